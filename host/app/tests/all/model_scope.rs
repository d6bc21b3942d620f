//! `--models` / `enabledModels` patterns as pi reads them: globs match `provider/id` or the bare
//! id, with `*` and `?` inside one `/`-separated part, `**`, `[...]` classes and `{a,b}`
//! alternatives; `[` alone makes a glob; a glob that does not parse matches nothing else.

use pi_ai::{ModelRegistry, ThinkingLevel};
use pi_app::model_select::scoped_models;
use serde_json::json;
use std::path::Path;

/// Two providers of our own (names no built-in model shares) next to the built-in catalog.
fn registry() -> ModelRegistry {
    let models = |ids: &[&str]| -> Vec<serde_json::Value> {
        ids.iter().map(|id| json!({"id": id})).collect()
    };
    let file = json!({"providers": {
        "zzlab": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions",
                 "apiKey": "k", "models": models(&["zq-alpha-1", "zq-beta-2", "zq-alpha-mini"])},
        "zzlab-two": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions",
                     "apiKey": "k", "models": models(&["zq-alpha-1"])}
    }});
    ModelRegistry::from_models_json_str(&file.to_string(), Path::new("models.json")).unwrap()
}

fn scope(pattern: &str) -> (Vec<String>, Vec<String>) {
    let (models, warnings) = scoped_models(&registry(), &[pattern.to_owned()]);
    let mut names: Vec<String> = models
        .iter()
        .map(|s| format!("{}/{}", s.model.provider, s.model.id))
        .collect();
    names.sort();
    (names, warnings)
}

fn matches(pattern: &str) -> Vec<String> {
    scope(pattern).0
}

#[test]
fn globs_stay_within_one_part_of_provider_slash_id() {
    // `*` does not cross `/`: neither `zzlab/...` nor a bare id starts with "zzlab".
    let (found, warnings) = scope("zzlab*");
    assert!(found.is_empty(), "{found:?}");
    assert_eq!(warnings, ["No models match pattern \"zzlab*\""]);
    assert_eq!(
        matches("zzlab/*"),
        ["zzlab/zq-alpha-1", "zzlab/zq-alpha-mini", "zzlab/zq-beta-2"]
    );
    assert_eq!(
        matches("*/zq-alpha-1"),
        ["zzlab-two/zq-alpha-1", "zzlab/zq-alpha-1"]
    );
    assert_eq!(matches("**/zq-beta-2"), ["zzlab/zq-beta-2"]);
    // The bare id, case-insensitively; `?` is one character.
    assert_eq!(
        matches("ZQ-ALPHA-?"),
        ["zzlab-two/zq-alpha-1", "zzlab/zq-alpha-1"]
    );
}

#[test]
fn classes_alternatives_and_thinking_levels() {
    // `[` alone makes a pattern a glob.
    assert_eq!(matches("zq-[b]eta-2"), ["zzlab/zq-beta-2"]);
    assert_eq!(matches("zq-[!a]*"), ["zzlab/zq-beta-2"]);
    assert_eq!(
        matches("{zzlab-two,nowhere}/zq-alpha-*"),
        ["zzlab-two/zq-alpha-1"]
    );
    let (models, _) = scoped_models(&registry(), &["zzlab/zq-alpha-*:high".to_owned()]);
    assert_eq!(models.len(), 2);
    assert!(
        models
            .iter()
            .all(|s| s.thinking == Some(ThinkingLevel::High))
    );
    // An unclosed class is no glob: it matches only a model named exactly so.
    let (found, warnings) = scope("zq-[alpha");
    assert!(found.is_empty(), "{found:?}");
    assert_eq!(warnings, ["No models match pattern \"zq-[alpha\""]);
}

/// [`registry`] plus an extension's provider `zzext` offering `ids`.
fn with_extension(ids: &[&str]) -> ModelRegistry {
    let mut registry = registry();
    let mine = registry.find("zzlab", "zq-alpha-1").unwrap();
    let refused = registry.add_extension_models(ids.iter().map(|id| pi_ai::Model {
        provider: "zzext".into(),
        id: (*id).into(),
        name: (*id).into(),
        ..mine.clone()
    }));
    assert!(refused.is_empty());
    registry
}

fn scope_in(registry: &ModelRegistry, pattern: &str) -> (Vec<String>, Vec<String>) {
    let (models, warnings) = scoped_models(registry, &[pattern.to_owned()]);
    let names = models
        .iter()
        .map(|s| format!("{}/{}", s.model.provider, s.model.id))
        .collect();
    (names, warnings)
}

#[test]
fn an_extensions_models_join_a_scope_only_when_named_or_nothing_of_the_users_matches() {
    let registry = with_extension(&["zq-beta-2", "zq-alpha-zz", "zq-gamma"]);
    // A bare id and a glob the user's models match: the user's only.
    assert_eq!(
        scope_in(&registry, "zq-beta-2"),
        (vec!["zzlab/zq-beta-2".to_owned()], vec![])
    );
    assert_eq!(
        scope_in(&registry, "zq-alpha*").0,
        [
            "zzlab/zq-alpha-1",
            "zzlab/zq-alpha-mini",
            "zzlab-two/zq-alpha-1"
        ]
    );
    // Named by provider: the extension's.
    assert_eq!(
        scope_in(&registry, "zzext/zq-beta-2").0,
        ["zzext/zq-beta-2"]
    );
    assert_eq!(
        scope_in(&registry, "zzext/*").0,
        ["zzext/zq-beta-2", "zzext/zq-alpha-zz", "zzext/zq-gamma"]
    );
    // Nothing of the user's matches: the extension's, with a warning.
    let (names, warnings) = scope_in(&registry, "zq-gamma");
    assert_eq!(names, ["zzext/zq-gamma"]);
    assert_eq!(
        warnings,
        [
            "Warning: model pattern \"zq-gamma\" matches none of your own models; it selects \
          zzext/zq-gamma, which an extension provides"
        ]
    );
    let (names, warnings) = scope_in(&registry, "*gamma*");
    assert_eq!(names, ["zzext/zq-gamma"]);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
}
