//! Which model a pattern reaches when extensions add models of their own: a bare id or part of
//! a name is the user's (built-in catalog, models.json) whenever one of theirs matches; an
//! extension's model is reached by naming it as `provider/id`, or when nothing of the user's
//! matches. Without extensions pi's rules are unchanged, ties included.

#![allow(clippy::unwrap_used)]

use pi_ai::models::{ModelRegistry, PatternUse, Reached};
use pi_ai::{Modality, Model, ThinkingLevel};
use std::path::Path;

/// The user's models.json: `mock/mock-model` and a router whose id looks like `provider/id`.
fn user_registry() -> ModelRegistry {
    ModelRegistry::from_models_json_str(
        r#"{"providers": {
            "mock": {"baseUrl": "http://127.0.0.1:1/v1", "api": "openai-completions",
                     "models": [{"id": "mock-model"}]},
            "router": {"baseUrl": "http://127.0.0.1:2/v1", "api": "openai-completions",
                       "models": [{"id": "vendor/model-x"}]}
        }}"#,
        Path::new("/home/u/.pi/agent/models.json"),
    )
    .unwrap()
}

fn ext_model(provider: &str, id: &str) -> Model {
    Model {
        id: id.into(),
        name: format!("Extension {id}"),
        api: "ext-api".into(),
        provider: provider.into(),
        base_url: "http://127.0.0.1:3/v1".into(),
        reasoning: true,
        input: vec![Modality::Text],
        context_window: 1000,
        max_tokens: 100,
        cost: pi_ai::ModelCost::default(),
        headers: None,
        compat: None,
    }
}

/// The user's registry plus an extension offering `models` (as `register_providers` adds them).
fn with_extension(models: &[(&str, &str)]) -> ModelRegistry {
    let mut registry = user_registry();
    let refused = registry.add_extension_models(models.iter().map(|(p, id)| ext_model(p, id)));
    assert!(refused.is_empty(), "{refused:?}");
    registry
}

/// `provider/id`, thinking level and how it was reached, for both ways of reading a pattern.
fn reach(
    registry: &ModelRegistry,
    pattern: &str,
    usage: PatternUse,
) -> Option<(String, Option<ThinkingLevel>, Reached)> {
    registry.resolve(pattern, usage).map(|found| {
        (
            format!("{}/{}", found.model.provider, found.model.id),
            found.thinking,
            found.reached,
        )
    })
}

fn both(
    registry: &ModelRegistry,
    pattern: &str,
) -> [Option<(String, Option<ThinkingLevel>, Reached)>; 2] {
    [
        reach(registry, pattern, PatternUse::Cli),
        reach(registry, pattern, PatternUse::Scope),
    ]
}

fn own(id: &str) -> Option<(String, Option<ThinkingLevel>, Reached)> {
    Some((id.to_owned(), None, Reached::Own))
}

#[test]
fn a_bare_id_an_extension_also_offers_is_the_users_model() {
    // The extension's model is added last: pi's partial matching alone would pick it.
    let registry = with_extension(&[("other", "mock-model")]);
    assert!(registry.is_extension_provider("other"));
    assert!(!registry.is_extension_provider("mock"));
    for found in both(&registry, "mock-model") {
        assert_eq!(found, own("mock/mock-model"));
    }
    for found in both(&registry, "MOCK-MODEL:high") {
        assert_eq!(
            found,
            Some((
                "mock/mock-model".into(),
                Some(ThinkingLevel::High),
                Reached::Own
            ))
        );
    }
    let (model, _) = registry.find_by_pattern("mock-model").unwrap();
    assert_eq!(model.provider, "mock");
}

#[test]
fn part_of_a_name_reaches_the_users_model_before_an_extensions_exact_id() {
    // "mock-model-zz" sorts above "mock-model", and "sonnet" is exactly the extension's id,
    // while the user's catalog has Claude Sonnet models: the user's still win.
    let registry = with_extension(&[("other", "mock-model-zz"), ("other", "sonnet")]);
    for found in both(&registry, "mock") {
        assert_eq!(found, own("mock/mock-model"));
    }
    for found in both(&registry, "sonnet") {
        let (name, _, reached) = found.unwrap();
        assert_eq!(reached, Reached::Own);
        assert!(
            name.contains("sonnet") && !name.starts_with("other/"),
            "{name}"
        );
    }
}

#[test]
fn an_extensions_model_named_as_provider_and_id_is_exact() {
    let registry = with_extension(&[("other", "mock-model")]);
    for found in both(&registry, "other/mock-model") {
        assert_eq!(
            found,
            Some(("other/mock-model".into(), None, Reached::ExtensionNamed))
        );
    }
    for found in both(&registry, "Other/Mock-Model:low") {
        assert_eq!(
            found,
            Some((
                "other/mock-model".into(),
                Some(ThinkingLevel::Low),
                Reached::ExtensionNamed
            ))
        );
    }
}

#[test]
fn a_users_id_spelt_like_an_extensions_provider_and_id_stays_the_users() {
    // The extension calls its provider "vendor" and offers "model-x": "vendor/model-x" is
    // also the id of the user's router model, which wins.
    let registry = with_extension(&[("vendor", "model-x")]);
    for found in both(&registry, "vendor/model-x") {
        assert_eq!(found, own("router/vendor/model-x"));
    }
    for found in both(&registry, "router/vendor/model-x") {
        assert_eq!(found, own("router/vendor/model-x"));
    }
}

#[test]
fn only_an_extension_matching_reaches_it_unnamed() {
    let registry = with_extension(&[("ollama", "qwen-local-coder:7b")]);
    for found in both(&registry, "qwen-local-coder:7b") {
        assert_eq!(
            found,
            Some((
                "ollama/qwen-local-coder:7b".into(),
                None,
                Reached::ExtensionUnnamed
            ))
        );
    }
    // Part of a name, and a thinking level after the id's own colon.
    for found in both(&registry, "qwen-local-coder:7b:high") {
        assert_eq!(
            found,
            Some((
                "ollama/qwen-local-coder:7b".into(),
                Some(ThinkingLevel::High),
                Reached::ExtensionUnnamed
            ))
        );
    }
    for found in both(&registry, "local-coder") {
        assert_eq!(found.unwrap().2, Reached::ExtensionUnnamed);
    }
    for found in both(&registry, "nothing-matches-this") {
        assert_eq!(found, None);
    }
}

#[test]
fn two_user_providers_sharing_an_id_resolve_as_pi_does() {
    let registry = ModelRegistry::from_models_json_str(
        r#"{"providers": {
            "first": {"baseUrl": "http://127.0.0.1:1/v1", "api": "openai-completions",
                      "models": [{"id": "shared-model"}]},
            "second": {"baseUrl": "http://127.0.0.1:2/v1", "api": "openai-completions",
                       "models": [{"id": "shared-model"}, {"id": "shared-model-2"}]}
        }}"#,
        Path::new("/home/u/.pi/agent/models.json"),
    )
    .unwrap();
    // `--model` (pi's resolveCliModel): the first model listed with exactly that id.
    assert_eq!(
        reach(&registry, "shared-model", PatternUse::Cli),
        own("first/shared-model")
    );
    // A scope pattern (pi's parseModelPattern): an ambiguous id is no exact match, so matching
    // by part of the id decides: the highest id, and among equal ids the first listed.
    assert_eq!(
        reach(&registry, "shared-model", PatternUse::Scope),
        own("second/shared-model-2")
    );
    assert_eq!(
        reach(&registry, "shared-mod", PatternUse::Scope),
        own("second/shared-model-2")
    );
    let without_2 = ModelRegistry::from_models_json_str(
        r#"{"providers": {
            "first": {"baseUrl": "http://127.0.0.1:1/v1", "api": "openai-completions",
                      "models": [{"id": "shared-model"}]},
            "second": {"baseUrl": "http://127.0.0.1:2/v1", "api": "openai-completions",
                       "models": [{"id": "shared-model"}]}
        }}"#,
        Path::new("/home/u/.pi/agent/models.json"),
    )
    .unwrap();
    for found in both(&without_2, "shared-model") {
        assert_eq!(found, own("first/shared-model"));
    }
    // Named, either is reached.
    assert_eq!(
        reach(&without_2, "second/shared-model", PatternUse::Cli),
        own("second/shared-model")
    );
}

#[test]
fn pi_rules_on_one_list_keep_the_first_listed_among_equal_ids() {
    let models = [
        ext_model("a", "same"),
        ext_model("b", "same"),
        ext_model("c", "sam"),
    ];
    let (model, level) = pi_ai::models::resolve::find_by_pattern(&models, "same:medium").unwrap();
    assert_eq!(
        (model.provider.as_str(), level),
        ("a", Some(ThinkingLevel::Medium))
    );
    let (model, _) = pi_ai::models::resolve::find_by_pattern(&models, "sam").unwrap();
    assert_eq!(
        model.provider, "c",
        "an exact id that only one provider has"
    );
}
