//! Which model a run starts with: `--provider`/`--model` > scoped models >
//! the model a resumed session last used > settings `defaultProvider`/`defaultModel` > each
//! provider's preferred default > the first model with credentials. Thinking levels are
//! clamped to what the chosen model supports.

use pi_ai::models::{ModelRef, PatternMatch, PatternUse, Reached};
use pi_ai::{AuthStorage, Model, ModelRegistry, ThinkingLevel, clamp_thinking_level};

/// The thinking level when nothing chooses one.
pub const DEFAULT_THINKING_LEVEL: ThinkingLevel = ThinkingLevel::Medium;

/// Each provider's preferred model, in the reference pi's order (the initial pick tries them in
/// turn): the table the built-in catalog carries, taken from the same release as its models.
pub fn default_model_per_provider() -> impl Iterator<Item = (&'static str, &'static str)> {
    pi_ai::models::catalog::default_models()
}

/// A model chosen from a pattern, with the thinking level the pattern asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct ScopedModel {
    pub model: Model,
    pub thinking: Option<ThinkingLevel>,
}

/// Why no model could be chosen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelSelectError {
    #[error("Unknown provider \"{0}\". Known providers: {1}")]
    UnknownProvider(String, String),
    #[error(
        "No model matches \"{pattern}\"{scope}. Run `pi --list-models` to see the models you can use."
    )]
    NoMatch { pattern: String, scope: String },
    #[error(
        "--api-key is given only to a provider you name, and the model chosen, {model}, is served \
         by extension {extension}. Pass --model {model} (or --provider {provider}) to give it the \
         key, or choose one of your own models."
    )]
    ApiKeyForExtension {
        model: String,
        provider: String,
        extension: String,
    },
}

/// Refuses `--api-key` for `model` when `extension` serves it and the user did not name its
/// provider (`reached` is how `--model` reached it; `None`: `--model` did not choose it).
pub fn check_api_key_target(
    model: &Model,
    extension: Option<&str>,
    reached: Option<Reached>,
) -> Result<(), ModelSelectError> {
    match extension {
        Some(extension) if reached != Some(Reached::ExtensionNamed) => {
            Err(ModelSelectError::ApiKeyForExtension {
                model: format!("{}/{}", model.provider, model.id),
                provider: model.provider.clone(),
                extension: extension.to_owned(),
            })
        }
        _ => Ok(()),
    }
}

/// The start-up notice for a model `extension` serves; when `--model`'s bare id or part of a
/// name reached it (`pattern`), it says that none of the user's models matched.
pub fn served_by_extension(model: &Model, extension: &str, unnamed: Option<&str>) -> String {
    let name = format!("{}/{}", model.provider, model.id);
    match unnamed {
        Some(pattern) => format!(
            "Model {name} is served by extension {extension}: \"{pattern}\" matches none of your \
             own models (--model {name} names it)."
        ),
        None => format!("Model {name} is served by extension {extension}."),
    }
}

/// What `--provider` / `--model` chose.
#[derive(Debug, Clone, PartialEq)]
pub struct CliModel {
    pub scoped: ScopedModel,
    /// How the model was reached: an extension's model counts as named when `--provider` or
    /// the pattern's `provider/` named its provider.
    pub reached: Reached,
}

/// Resolves `--provider` / `--model`. `Ok(None)` when neither was given. A bare id or part of
/// a name reaches an extension's model only when none of the user's own models matches it
/// ([`ModelRegistry::resolve`]).
pub fn cli_model(
    registry: &ModelRegistry,
    provider: Option<&str>,
    pattern: Option<&str>,
) -> Result<Option<CliModel>, ModelSelectError> {
    if let Some(provider) = provider
        && !registry.providers().contains(&provider)
    {
        return Err(ModelSelectError::UnknownProvider(
            provider.to_owned(),
            registry.providers().join(", "),
        ));
    }
    let found = match (provider, pattern) {
        (None, None) => return Ok(None),
        (Some(provider), None) => provider_default(registry, provider).map(|model| PatternMatch {
            model,
            thinking: None,
            reached: Reached::Own,
        }),
        (provider, Some(pattern)) => {
            let pattern = match provider {
                // `--provider p --model p/id` must not become `p/p/id`.
                Some(p) if !pattern.starts_with(&format!("{p}/")) => format!("{p}/{pattern}"),
                _ => pattern.to_owned(),
            };
            let found = registry.resolve(&pattern, PatternUse::Cli).or_else(|| {
                // `--provider p --model part-of-a-name`: search that provider's models only.
                let provider = provider?;
                let (_, rest) = pattern.split_once('/')?;
                find_in_provider(registry, provider, rest).map(|(model, thinking)| PatternMatch {
                    model,
                    thinking,
                    reached: Reached::Own,
                })
            });
            if found.is_none() {
                return Err(ModelSelectError::NoMatch {
                    pattern,
                    scope: String::new(),
                });
            }
            found
        }
    };
    Ok(found.map(|found| {
        let extension = registry.is_extension_provider(&found.model.provider);
        let named = found.reached == Reached::ExtensionNamed
            || provider == Some(found.model.provider.as_str());
        let reached = match (extension, named) {
            (false, _) => Reached::Own,
            (true, true) => Reached::ExtensionNamed,
            (true, false) => Reached::ExtensionUnnamed,
        };
        CliModel {
            scoped: ScopedModel {
                model: found.model,
                thinking: found.thinking,
            },
            reached,
        }
    }))
}

/// Pattern search among `provider`'s models only.
fn find_in_provider(
    registry: &ModelRegistry,
    provider: &str,
    pattern: &str,
) -> Option<(Model, Option<ThinkingLevel>)> {
    let mine: Vec<Model> = registry
        .models()
        .filter(|m| m.provider() == provider)
        .map(ModelRef::to_model)
        .collect();
    pi_ai::models::resolve::find_by_pattern(&mine, pattern)
        .map(|(model, level)| (model.clone(), level))
}

/// The preferred model of `provider`: its entry in [`default_model_per_provider`], else its
/// first model.
pub fn provider_default(registry: &ModelRegistry, provider: &str) -> Option<Model> {
    let preferred = default_model_per_provider()
        .find(|(p, _)| *p == provider)
        .and_then(|(p, id)| registry.find(p, id));
    preferred.or_else(|| {
        registry
            .models()
            .find(|m| m.provider() == provider)
            .map(ModelRef::to_model)
    })
}

/// Resolves `--models` / `enabledModels` patterns; globs (with `*`, `?` or `[`) match
/// `provider/id` or the id (see [`ModelGlob`]). Patterns matching nothing are returned as
/// warnings. An extension's model joins only when the pattern names its provider
/// (`provider/…`) or none of the user's own models matches the pattern; the latter is said in a
/// warning too.
pub fn scoped_models(
    registry: &ModelRegistry,
    patterns: &[String],
) -> (Vec<ScopedModel>, Vec<String>) {
    let mut out: Vec<ScopedModel> = Vec::new();
    let mut warnings = Vec::new();
    for raw in patterns.iter().map(|p| p.trim()).filter(|p| !p.is_empty()) {
        let before = out.len();
        let mut unnamed: Vec<String> = Vec::new();
        if raw.contains(['*', '?', '[']) {
            let (glob, thinking) = split_thinking(raw);
            for (model, reached) in glob_matches(registry, glob) {
                if reached == Reached::ExtensionUnnamed {
                    unnamed.push(format!("{}/{}", model.provider(), model.id()));
                }
                push_unique(&mut out, model.to_model(), thinking);
            }
        } else if let Some(found) = registry.resolve(raw, PatternUse::Scope) {
            if found.reached == Reached::ExtensionUnnamed {
                unnamed.push(format!("{}/{}", found.model.provider, found.model.id));
            }
            push_unique(&mut out, found.model, found.thinking);
        }
        if out.len() == before {
            warnings.push(format!("No models match pattern \"{raw}\""));
        } else if !unnamed.is_empty() {
            warnings.push(format!(
                "Warning: model pattern \"{raw}\" matches none of your own models; it selects {}, \
                 which an extension provides",
                unnamed.join(", ")
            ));
        }
    }
    (out, warnings)
}

/// The models `glob` matches: the user's own, else the extensions'; an extension's model
/// whose provider the glob names (`provider/…`) either way.
fn glob_matches<'a>(registry: &'a ModelRegistry, glob: &str) -> Vec<(ModelRef<'a>, Reached)> {
    let matcher = ModelGlob::new(glob);
    let names_provider = |provider: &str| {
        glob.split_once('/')
            .is_some_and(|(head, _)| head.eq_ignore_ascii_case(provider))
    };
    let matching: Vec<ModelRef<'a>> = registry
        .models()
        .filter(|m| {
            let full = format!("{}/{}", m.provider(), m.id());
            matcher.is_match(&full) || matcher.is_match(m.id())
        })
        .collect();
    let any_own = matching
        .iter()
        .any(|m| !registry.is_extension_provider(m.provider()));
    matching
        .into_iter()
        .filter_map(|m| {
            if !registry.is_extension_provider(m.provider()) {
                Some((m, Reached::Own))
            } else if names_provider(m.provider()) {
                Some((m, Reached::ExtensionNamed))
            } else {
                (!any_own).then_some((m, Reached::ExtensionUnnamed))
            }
        })
        .collect()
}

fn push_unique(out: &mut Vec<ScopedModel>, model: Model, thinking: Option<ThinkingLevel>) {
    if !out
        .iter()
        .any(|s| s.model.provider == model.provider && s.model.id == model.id)
    {
        out.push(ScopedModel { model, thinking });
    }
}

/// `pattern:level` → (`pattern`, level) when the suffix is a thinking level.
fn split_thinking(pattern: &str) -> (&str, Option<ThinkingLevel>) {
    match pattern.rsplit_once(':') {
        Some((head, tail)) => match ThinkingLevel::parse(&tail.to_ascii_lowercase()) {
            Some(level) => (head, Some(level)),
            None => (pattern, None),
        },
        None => (pattern, None),
    }
}

/// A model glob as pi reads one (minimatch, case-insensitive): `*` and `?` stay within one
/// `/`-separated part (so `anthropic*` does not match `anthropic/claude-x`; the bare id is
/// tried too), `**` spans parts, `[...]` classes and `{a,b}` alternatives. Compiled to an
/// automaton, so no pattern takes more than linear time. A glob that does not parse (an
/// unclosed `[`) matches only its own text, as minimatch treats it.
pub enum ModelGlob {
    Glob(globset::GlobMatcher),
    Literal(String),
}

impl ModelGlob {
    pub fn new(glob: &str) -> Self {
        let built = globset::GlobBuilder::new(glob)
            .case_insensitive(true)
            .literal_separator(true)
            .backslash_escape(true)
            .build();
        match built {
            Ok(glob) => ModelGlob::Glob(glob.compile_matcher()),
            Err(error) => {
                tracing::debug!(%error, glob, "model pattern is not a glob; matched as text");
                ModelGlob::Literal(glob.to_lowercase())
            }
        }
    }

    pub fn is_match(&self, text: &str) -> bool {
        match self {
            ModelGlob::Glob(glob) => glob.is_match(text),
            ModelGlob::Literal(literal) => text.to_lowercase() == *literal,
        }
    }
}

/// Everything the initial choice depends on.
pub struct InitialModelInputs<'a> {
    pub registry: &'a ModelRegistry,
    pub auth: &'a AuthStorage,
    pub cli: Option<ScopedModel>,
    pub scoped: &'a [ScopedModel],
    /// Continuing or resuming: the session's own model wins over the scope.
    pub resuming: bool,
    /// The provider and id a resumed session last used.
    pub session_model: Option<(String, String)>,
    pub default_provider: Option<String>,
    pub default_model: Option<String>,
}

/// The initial model, or `None` when no model has a credential.
pub fn initial_model(inputs: &InitialModelInputs<'_>) -> Option<ScopedModel> {
    if let Some(cli) = &inputs.cli {
        return Some(cli.clone());
    }
    let usable = |provider: &str| inputs.registry.has_credential(provider, inputs.auth);
    let plain = |model: Model| ScopedModel {
        model,
        thinking: None,
    };
    if !inputs.resuming && !inputs.scoped.is_empty() {
        let saved = inputs.scoped.iter().find(|s| {
            Some(&s.model.provider) == inputs.default_provider.as_ref()
                && Some(&s.model.id) == inputs.default_model.as_ref()
        });
        return Some(saved.unwrap_or(&inputs.scoped[0]).clone());
    }
    if let Some((provider, id)) = &inputs.session_model
        && let Some(model) = inputs
            .registry
            .find(provider, id)
            .filter(|m| usable(&m.provider))
    {
        return Some(plain(model));
    }
    if let (Some(provider), Some(id)) = (&inputs.default_provider, &inputs.default_model)
        && let Some(model) = inputs
            .registry
            .find(provider, id)
            .filter(|m| usable(&m.provider))
    {
        return Some(plain(model));
    }
    // Only the model chosen is made into a `Model`: the catalog has over a thousand.
    let preferred = default_model_per_provider()
        .find(|(p, id)| usable(p) && inputs.registry.contains(p, id))
        .and_then(|(p, id)| inputs.registry.find(p, id));
    preferred
        .or_else(|| {
            inputs
                .registry
                .models()
                .find(|m| usable(m.provider()))
                .map(ModelRef::to_model)
        })
        .map(plain)
}

/// The starting thinking level: `--thinking` > the model pattern's `:level` > the session's >
/// settings `defaultThinkingLevel` > medium, clamped to the model.
pub fn initial_thinking(
    model: &Model,
    cli: Option<ThinkingLevel>,
    from_pattern: Option<ThinkingLevel>,
    from_session: Option<ThinkingLevel>,
    from_settings: Option<ThinkingLevel>,
) -> ThinkingLevel {
    let wanted = cli
        .or(from_pattern)
        .or(from_session)
        .or(from_settings)
        .unwrap_or(DEFAULT_THINKING_LEVEL);
    clamp_thinking_level(model, wanted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        let glob_match = |glob: &str, text: &str| ModelGlob::new(glob).is_match(text);
        assert!(glob_match("anthropic/*", "anthropic/claude-x"));
        assert!(glob_match("*SONNET*", "claude-sonnet-4"));
        assert!(glob_match("gpt-?", "gpt-5"));
        assert!(!glob_match("gpt-?", "gpt-55"));
        assert!(!glob_match("openai/*", "anthropic/x"));
        // `*` and `?` do not cross `/`; `**` does.
        assert!(!glob_match("anthropic*", "anthropic/claude-x"));
        assert!(!glob_match("*sonnet*", "anthropic/claude-sonnet-4"));
        assert!(!glob_match("anthropic?claude", "anthropic/claude"));
        assert!(glob_match("**/claude-*", "anthropic/claude-x"));
        assert!(glob_match("gpt-[45]o", "gpt-4o"));
        assert!(!glob_match("gpt-[!45]o", "gpt-4o"));
        assert!(glob_match("{openai,anthropic}/*", "anthropic/x"));
        // Not a glob after all: only its own text.
        assert!(glob_match("gpt-[4o", "GPT-[4o"));
        assert!(!glob_match("gpt-[4o", "gpt-4o"));
    }

    #[test]
    fn thinking_suffix() {
        assert_eq!(split_thinking("a*:high"), ("a*", Some(ThinkingLevel::High)));
        assert_eq!(split_thinking("x:free"), ("x:free", None));
    }
}
