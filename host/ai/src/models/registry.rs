//! `ModelRegistry`: the built-in catalog plus the user's models.json.
//!
//! Built-in models stay as the compiled-in entries until something needs them as [`Model`]
//! values: a start looks at a few models (the preferred ones, the first with a credential)
//! among more than a thousand, so it makes only those.

use crate::auth::{AuthStorage, env_api_key, env_var_names, resolve_config_value};
use crate::models::catalog::{
    BuiltinModel, builtin_entries, builtin_provider_defaults, is_builtin_provider,
};
use crate::models::models_json::{
    self, CostOverride, ModelDef, ModelOverride, ModelsError, ModelsFile, ProviderConfig,
};
use crate::models::resolve::{PatternUse, Reached, resolve};
use crate::types::{Compat, Modality, Model, ModelCost, ThinkingLevel};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Provider names pi knows a credential for (its catalog, its environment variables, its
/// OAuth sign-ins): never an extension's, even before any model of theirs is known.
pub fn is_reserved_provider(provider: &str) -> bool {
    const OAUTH_PROVIDERS: [&str; 5] = [
        "anthropic",
        "openai-codex",
        "github-copilot",
        "google-gemini-cli",
        "google-antigravity",
    ];
    is_builtin_provider(provider)
        || !env_var_names(provider).is_empty()
        || OAUTH_PROVIDERS.contains(&provider)
}

/// Defaults pi gives a custom model for fields models.json leaves out.
const DEFAULT_CONTEXT_WINDOW: u64 = 128_000;
const DEFAULT_MAX_TOKENS: u64 = 16_384;

/// All known models: built-ins (possibly re-routed or overridden by models.json) followed by
/// custom models. A custom model with a built-in's provider and id replaces it.
#[derive(Debug, Clone, Default)]
pub struct ModelRegistry {
    models: Vec<Known>,
    /// Raw models.json `apiKey` per provider (resolved at request time).
    api_keys: BTreeMap<String, String>,
    /// Each models.json provider entry with its resolved headers, for the models extensions
    /// add later ([`add_models`](Self::add_models)).
    providers_config: BTreeMap<String, (ProviderConfig, Option<BTreeMap<String, String>>)>,
    /// Providers whose models an extension added ([`add_extension_models`](Self::add_extension_models)):
    /// a bare model id reaches them only when none of the user's own models matches.
    extension_providers: BTreeSet<String>,
}

/// A model of the registry: a built-in as compiled in, or one made or changed here (boxed, so
/// the many untouched built-ins take little room).
#[derive(Debug, Clone)]
enum Known {
    Builtin(BuiltinModel),
    Owned(Box<Model>),
}

/// A look at one model of the registry without making a [`Model`] of it.
#[derive(Debug, Clone, Copy)]
pub struct ModelRef<'a>(&'a Known);

impl<'a> ModelRef<'a> {
    pub fn provider(self) -> &'a str {
        match self.0 {
            Known::Builtin(b) => b.provider(),
            Known::Owned(m) => &m.provider,
        }
    }

    pub fn id(self) -> &'a str {
        match self.0 {
            Known::Builtin(b) => b.id(),
            Known::Owned(m) => &m.id,
        }
    }

    fn base_url(self) -> &'a str {
        match self.0 {
            Known::Builtin(b) => b.base_url(),
            Known::Owned(m) => &m.base_url,
        }
    }

    /// The model itself.
    pub fn to_model(self) -> Model {
        match self.0 {
            Known::Builtin(b) => b.to_model(),
            Known::Owned(m) => Model::clone(m),
        }
    }

    fn is(self, provider: &str, id: &str) -> bool {
        self.provider() == provider && self.id() == id
    }
}

impl ModelRegistry {
    /// Only the built-in catalog.
    pub fn builtin() -> Self {
        ModelRegistry {
            models: builtin_entries().map(Known::Builtin).collect(),
            api_keys: BTreeMap::new(),
            providers_config: BTreeMap::new(),
            extension_providers: BTreeSet::new(),
        }
    }

    /// Built-ins plus `models_json` (usually `~/.pi/agent/models.json`). A missing file, or
    /// `None`, gives the built-ins alone.
    pub fn load(models_json: Option<&Path>) -> Result<Self, ModelsError> {
        Self::load_with_providers(models_json, &[])
    }

    /// [`load`](Self::load) when extensions register `extension_providers`: their entries
    /// may, like a built-in provider's, only configure them (`apiKey`, `headers`, `baseUrl`,
    /// `modelOverrides`…, no `models`); that applies to their models once they are added.
    pub fn load_with_providers(
        models_json: Option<&Path>,
        extension_providers: &[String],
    ) -> Result<Self, ModelsError> {
        let Some(path) = models_json else {
            return Ok(Self::builtin());
        };
        match models_json::read(path)? {
            Some(file) => Self::from_file(&file, path, extension_providers),
            None => Ok(Self::builtin()),
        }
    }

    /// Built-ins plus models.json given as text; `path` only labels errors.
    pub fn from_models_json_str(text: &str, path: &Path) -> Result<Self, ModelsError> {
        Self::from_file(&models_json::parse(text, path)?, path, &[])
    }

    fn from_file(
        file: &ModelsFile,
        path: &Path,
        extension_providers: &[String],
    ) -> Result<Self, ModelsError> {
        let known = |p: &str| is_builtin_provider(p) || extension_providers.iter().any(|e| e == p);
        models_json::validate(file, path, &known)?;
        let mut registry = Self::builtin();
        for (provider, config) in &file.providers.0 {
            let value_error = |source| ModelsError::Value {
                path: path.to_owned(),
                provider: provider.clone(),
                source,
            };
            let headers = resolve_headers(config.headers.as_ref()).map_err(value_error)?;
            registry
                .override_builtins(provider, config, headers.as_ref())
                .map_err(value_error)?;
            for def in config.models.as_deref().unwrap_or_default() {
                let model =
                    custom_model(provider, config, def, headers.as_ref()).map_err(value_error)?;
                registry.insert(model);
            }
            if let Some(key) = &config.api_key {
                registry.api_keys.insert(provider.clone(), key.clone());
            }
            registry
                .providers_config
                .insert(provider.clone(), (config.clone(), headers));
        }
        Ok(registry)
    }

    /// Applies a provider's baseUrl/headers/compat and its `modelOverrides` to its built-ins.
    fn override_builtins(
        &mut self,
        provider: &str,
        config: &ProviderConfig,
        headers: Option<&BTreeMap<String, String>>,
    ) -> Result<(), crate::auth::AuthError> {
        for known in &mut self.models {
            if ModelRef(known).provider() != provider {
                continue;
            }
            let mut model = ModelRef(known).to_model();
            configure(&mut model, config, headers)?;
            *known = Known::Owned(Box::new(model));
        }
        Ok(())
    }

    fn insert(&mut self, model: Model) {
        let slot = self
            .models
            .iter_mut()
            .find(|known| ModelRef(known).is(&model.provider, &model.id));
        let model = Known::Owned(Box::new(model));
        match slot {
            Some(existing) => *existing = model,
            None => self.models.push(model),
        }
    }

    /// Adds the models of one extension provider (pi's `registerProvider`) and returns the
    /// ones refused: a provider name belongs to whoever has it first, so a model under the
    /// name of a built-in provider, of a models.json provider that defines models, or of an
    /// earlier extension is refused. Otherwise an extension could take over the user's model
    /// and receive the request and the credential pi resolves for that provider.
    /// A models.json entry of the extension's own provider configures its models as it
    /// does built-ins.
    pub fn add_extension_models(&mut self, models: impl IntoIterator<Item = Model>) -> Vec<Model> {
        let taken: Vec<String> = self.providers().into_iter().map(str::to_owned).collect();
        let (refused, accepted): (Vec<Model>, Vec<Model>) = models
            .into_iter()
            .partition(|m| is_reserved_provider(&m.provider) || taken.contains(&m.provider));
        self.extension_providers
            .extend(accepted.iter().map(|m| m.provider.clone()));
        self.add_models(accepted);
        refused
    }

    /// Whether an extension's provider serves `provider`'s models.
    pub fn is_extension_provider(&self, provider: &str) -> bool {
        self.extension_providers.contains(provider)
    }

    /// Adds models (the caller vouches for their provider names); one with the provider and
    /// id of a known model replaces it. A models.json entry of the same provider configures
    /// them as it does built-ins.
    pub fn add_models(&mut self, models: impl IntoIterator<Item = Model>) {
        for mut model in models {
            if let Some((config, headers)) = self.providers_config.get(&model.provider)
                && let Err(error) = configure(&mut model, config, headers.as_ref())
            {
                tracing::warn!(provider = %model.provider, model = %model.id, %error,
                    "models.json override not applied");
            }
            self.insert(model);
        }
    }

    /// Adds the models of a server found on this machine. Such servers take no credential;
    /// `placeholder_key` stands in for one, as an `apiKey` in models.json would, so the
    /// provider counts as ready.
    pub fn add_local_models(&mut self, provider: &str, models: Vec<Model>, placeholder_key: &str) {
        for model in models {
            self.insert(model);
        }
        self.api_keys
            .insert(provider.to_owned(), placeholder_key.to_owned());
    }

    /// Every model, built-ins first, each made into a [`Model`]: for listing them all. To
    /// look for a few, [`models`](Self::models) is cheaper.
    pub fn all(&self) -> Vec<Model> {
        self.models().map(ModelRef::to_model).collect()
    }

    /// Every model, built-ins first, as a look at its provider and id.
    pub fn models(&self) -> impl Iterator<Item = ModelRef<'_>> {
        self.models.iter().map(ModelRef)
    }

    /// The model with exactly this provider and id.
    pub fn find(&self, provider: &str, id: &str) -> Option<Model> {
        self.models()
            .find(|m| m.is(provider, id))
            .map(ModelRef::to_model)
    }

    /// Whether a model has exactly this provider and id.
    pub fn contains(&self, provider: &str, id: &str) -> bool {
        self.models().any(|m| m.is(provider, id))
    }

    /// Provider ids in first-seen order.
    pub fn providers(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for model in self.models() {
            // Models come grouped by provider: the last one seen is the likely repeat.
            if out.last() != Some(&model.provider()) && !out.contains(&model.provider()) {
                out.push(model.provider());
            }
        }
        out
    }

    /// The raw models.json `apiKey` of `provider` (pass it to `resolve_api_key`).
    pub fn provider_api_key(&self, provider: &str) -> Option<&str> {
        self.api_keys.get(provider).map(String::as_str)
    }

    /// Whether `provider` has a credential: stored, in the environment, or in models.json.
    pub fn has_credential(&self, provider: &str, auth: &AuthStorage) -> bool {
        auth.has(provider)
            || env_api_key(provider).is_some()
            || self.api_keys.contains_key(provider)
    }

    /// Models whose provider has a credential (pi's `getAvailable`). Cheap: runs no commands and
    /// does not check expiry.
    pub fn available<'a>(&'a self, auth: &AuthStorage) -> Vec<Model> {
        // Models come grouped by provider: ask once per run of one provider, not per model
        // (each answer reads the environment and the store).
        let mut last: Option<(&'a str, bool)> = None;
        let mut credential = |provider: &'a str| match last {
            Some((seen, has)) if seen == provider => has,
            _ => {
                let has = self.has_credential(provider, auth);
                last = Some((provider, has));
                has
            }
        };
        self.models()
            .filter(|m| credential(m.provider()))
            .filter(|m| crate::models::base_url::expand_from_env(m.base_url()).is_ok())
            .map(ModelRef::to_model)
            .collect()
    }

    /// Resolves a user's model pattern (`--models`, `enabledModels`): pi's rules, the user's own
    /// models before the extensions' (see [`resolve`](Self::resolve)).
    pub fn find_by_pattern(&self, pattern: &str) -> Option<(Model, Option<ThinkingLevel>)> {
        self.resolve(pattern, PatternUse::Scope)
            .map(|found| (found.model, found.thinking))
    }

    /// Resolves a user's model pattern as `usage` reads it; see [`crate::models::resolve`].
    pub fn resolve(&self, pattern: &str, usage: PatternUse) -> Option<PatternMatch> {
        let all = self.all();
        let is_extension = |m: &Model| self.is_extension_provider(&m.provider);
        resolve(&all, &is_extension, pattern, usage).map(|found| PatternMatch {
            model: found.model.clone(),
            thinking: found.thinking,
            reached: found.reached,
        })
    }
}

/// A model a pattern resolved to ([`ModelRegistry::resolve`]).
#[derive(Debug, Clone, PartialEq)]
pub struct PatternMatch {
    pub model: Model,
    /// The thinking level the pattern asked for (`sonnet:high`).
    pub thinking: Option<ThinkingLevel>,
    /// Whether it is the user's own model, or an extension's named or not.
    pub reached: Reached,
}

/// Applies a provider entry's baseUrl/headers/compat and its `modelOverrides` to one of its
/// models (built-in or added by an extension).
fn configure(
    model: &mut Model,
    config: &ProviderConfig,
    headers: Option<&BTreeMap<String, String>>,
) -> Result<(), crate::auth::AuthError> {
    if let Some(base_url) = &config.base_url {
        model.base_url = base_url.clone();
    }
    model.headers = merge_maps(model.headers.take(), headers);
    model.compat = merge_compat(model.compat.as_ref(), config.compat.as_ref());
    if let Some(over) = config
        .model_overrides
        .as_ref()
        .and_then(|o| o.get(&model.id))
    {
        apply_override(model, over)?;
    }
    Ok(())
}

/// A models.json model with pi's defaults filled in.
fn custom_model(
    provider: &str,
    config: &ProviderConfig,
    def: &ModelDef,
    provider_headers: Option<&BTreeMap<String, String>>,
) -> Result<Model, crate::auth::AuthError> {
    // Validation guarantees an id, and an api/baseUrl for non-built-in providers.
    let id = def.id.clone().unwrap_or_default();
    let defaults = builtin_provider_defaults(provider);
    let api = def
        .api
        .clone()
        .or_else(|| config.api.clone())
        .or_else(|| defaults.map(|d| d.0.to_owned()))
        .unwrap_or_default();
    let base_url = def
        .base_url
        .clone()
        .or_else(|| config.base_url.clone())
        .or_else(|| defaults.map(|d| d.1.to_owned()))
        .unwrap_or_default();
    let model_headers = resolve_headers(def.headers.as_ref())?;
    let mut headers = merge_maps(provider_headers.cloned(), model_headers.as_ref());
    if config.auth_header == Some(true)
        && let Some(raw) = &config.api_key
        && let Some(key) = resolve_config_value(raw)?
    {
        headers
            .get_or_insert_with(BTreeMap::new)
            .insert("Authorization".to_owned(), format!("Bearer {key}"));
    }
    Ok(Model {
        name: def.name.clone().unwrap_or_else(|| id.clone()),
        id,
        api,
        provider: provider.to_owned(),
        base_url,
        reasoning: def.reasoning.unwrap_or(false),
        input: def.input.clone().unwrap_or_else(|| vec![Modality::Text]),
        cost: apply_cost(ModelCost::default(), def.cost.as_ref()),
        context_window: def.context_window.unwrap_or(DEFAULT_CONTEXT_WINDOW),
        max_tokens: def.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        headers,
        compat: merge_compat(config.compat.as_ref(), def.compat.as_ref()),
    })
}

fn apply_override(model: &mut Model, over: &ModelOverride) -> Result<(), crate::auth::AuthError> {
    if let Some(name) = &over.name {
        model.name = name.clone();
    }
    if let Some(reasoning) = over.reasoning {
        model.reasoning = reasoning;
    }
    if let Some(input) = &over.input {
        model.input = input.clone();
    }
    if let Some(window) = over.context_window {
        model.context_window = window;
    }
    if let Some(max) = over.max_tokens {
        model.max_tokens = max;
    }
    model.cost = apply_cost(model.cost, over.cost.as_ref());
    let headers = resolve_headers(over.headers.as_ref())?;
    model.headers = merge_maps(model.headers.take(), headers.as_ref());
    model.compat = merge_compat(model.compat.as_ref(), over.compat.as_ref());
    Ok(())
}

fn apply_cost(base: ModelCost, over: Option<&CostOverride>) -> ModelCost {
    let Some(over) = over else { return base };
    ModelCost {
        input: over.input.unwrap_or(base.input),
        output: over.output.unwrap_or(base.output),
        cache_read: over.cache_read.unwrap_or(base.cache_read),
        cache_write: over.cache_write.unwrap_or(base.cache_write),
    }
}

/// Resolves `!cmd` / `$VAR` header values; a header whose value does not resolve is left out.
fn resolve_headers(
    headers: Option<&BTreeMap<String, String>>,
) -> Result<Option<BTreeMap<String, String>>, crate::auth::AuthError> {
    let Some(headers) = headers else {
        return Ok(None);
    };
    let mut out = BTreeMap::new();
    for (name, raw) in headers {
        if let Some(value) = resolve_config_value(raw)? {
            out.insert(name.clone(), value);
        }
    }
    Ok(Some(out))
}

fn merge_maps(
    base: Option<BTreeMap<String, String>>,
    over: Option<&BTreeMap<String, String>>,
) -> Option<BTreeMap<String, String>> {
    match (base, over) {
        (base, None) => base,
        (None, Some(over)) => Some(over.clone()),
        (Some(mut base), Some(over)) => {
            base.extend(over.iter().map(|(k, v)| (k.clone(), v.clone())));
            Some(base)
        }
    }
}

/// `override` on top of `base`, key by key; object values (routing preferences) merge one
/// level deeper, as pi does.
pub fn merge_compat(base: Option<&Compat>, over: Option<&Compat>) -> Option<Compat> {
    let (base, over) = match (base, over) {
        (base, None) => return base.cloned(),
        (None, Some(over)) => return Some(over.clone()),
        (Some(base), Some(over)) => (base, over),
    };
    let (Ok(Value::Object(mut merged)), Ok(Value::Object(over_map))) =
        (serde_json::to_value(base), serde_json::to_value(over))
    else {
        return Some(over.clone());
    };
    for (key, value) in over_map {
        match (merged.get_mut(&key), value) {
            (Some(Value::Object(existing)), Value::Object(inner)) => existing.extend(inner),
            (_, value) => {
                merged.insert(key, value);
            }
        }
    }
    serde_json::from_value(Value::Object(merged))
        .ok()
        .or_else(|| Some(over.clone()))
}
