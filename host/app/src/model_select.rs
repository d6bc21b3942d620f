//! Which model a run starts with: `--provider`/`--model` > scoped models >
//! the model a resumed session last used > settings `defaultProvider`/`defaultModel` > each
//! provider's preferred default > the first model with credentials. Thinking levels are
//! clamped to what the chosen model supports.

use pi_ai::models::ModelRef;
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
}

/// Resolves `--provider` / `--model`. `Ok(None)` when neither was given.
pub fn cli_model(
    registry: &ModelRegistry,
    provider: Option<&str>,
    pattern: Option<&str>,
) -> Result<Option<ScopedModel>, ModelSelectError> {
    if let Some(provider) = provider
        && !registry.providers().contains(&provider)
    {
        return Err(ModelSelectError::UnknownProvider(
            provider.to_owned(),
            registry.providers().join(", "),
        ));
    }
    match (provider, pattern) {
        (None, None) => Ok(None),
        (Some(provider), None) => {
            Ok(
                provider_default(registry, provider).map(|model| ScopedModel {
                    model,
                    thinking: None,
                }),
            )
        }
        (provider, Some(pattern)) => {
            let pattern = match provider {
                // `--provider p --model p/id` must not become `p/p/id`.
                Some(p) if !pattern.starts_with(&format!("{p}/")) => format!("{p}/{pattern}"),
                _ => pattern.to_owned(),
            };
            let found = registry.find_by_pattern(&pattern).or_else(|| {
                // `--provider p --model part-of-a-name`: search that provider's models only.
                let provider = provider?;
                let (_, rest) = pattern.split_once('/')?;
                find_in_provider(registry, provider, rest)
            });
            match found {
                Some((model, thinking)) => Ok(Some(ScopedModel { model, thinking })),
                None => Err(ModelSelectError::NoMatch {
                    pattern: pattern.clone(),
                    scope: String::new(),
                }),
            }
        }
    }
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
/// warnings.
pub fn scoped_models(
    registry: &ModelRegistry,
    patterns: &[String],
) -> (Vec<ScopedModel>, Vec<String>) {
    let mut out: Vec<ScopedModel> = Vec::new();
    let mut warnings = Vec::new();
    for raw in patterns.iter().map(|p| p.trim()).filter(|p| !p.is_empty()) {
        let before = out.len();
        if raw.contains(['*', '?', '[']) {
            let (glob, thinking) = split_thinking(raw);
            let glob = ModelGlob::new(glob);
            for model in registry.models() {
                let full = format!("{}/{}", model.provider(), model.id());
                if glob.is_match(&full) || glob.is_match(model.id()) {
                    push_unique(&mut out, model.to_model(), thinking);
                }
            }
        } else if let Some((model, thinking)) = registry.find_by_pattern(raw) {
            push_unique(&mut out, model, thinking);
        }
        if out.len() == before {
            warnings.push(format!("No models match pattern \"{raw}\""));
        }
    }
    (out, warnings)
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
