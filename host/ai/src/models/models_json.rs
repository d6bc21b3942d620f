//! The `~/.pi/agent/models.json` file format (custom providers, models and overrides) and its
//! errors. Every field is optional at the serde level so that a missing one is reported with
//! the provider and model it belongs to rather than as a bare serde message.

use crate::auth::AuthError;
use crate::models::catalog::SUPPORTED_APIS;
use crate::types::{Compat, Modality};
use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

/// Why models.json could not be used. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum ModelsError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}:{line}:{column}: invalid JSON: {message}", path.display())]
    Syntax {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    /// Valid JSON of the wrong shape (a string where a number belongs, an unknown modality…).
    #[error("{}:{line}:{column}: {message}", path.display())]
    Invalid {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error(
        "{}: provider \"{provider}\"{}: unknown api \"{api}\" (supported: {})",
        path.display(),
        model.as_ref().map(|m| format!(", model \"{m}\"")).unwrap_or_default(),
        SUPPORTED_APIS.join(", ")
    )]
    UnknownApi {
        path: PathBuf,
        provider: String,
        model: Option<String>,
        api: String,
    },
    #[error("{}: provider \"{provider}\": model #{index} has no \"id\"", path.display())]
    MissingModelId {
        path: PathBuf,
        provider: String,
        index: usize,
    },
    #[error(
        "{}: provider \"{provider}\" is not a built-in provider, so it needs \"{field}\" to define models",
        path.display()
    )]
    MissingProviderField {
        path: PathBuf,
        provider: String,
        field: &'static str,
    },
    #[error(
        "{}: provider \"{provider}\", model \"{model}\": no \"api\" (set it on the provider or the model)",
        path.display()
    )]
    MissingModelApi {
        path: PathBuf,
        provider: String,
        model: String,
    },
    #[error(
        "{}: provider \"{provider}\" is not a built-in provider and defines no \"models\"",
        path.display()
    )]
    NoModels { path: PathBuf, provider: String },
    #[error("{}: provider \"{provider}\", model \"{model}\": \"{field}\" must be greater than 0", path.display())]
    InvalidLimit {
        path: PathBuf,
        provider: String,
        model: String,
        field: &'static str,
    },
    #[error("{}: provider \"{provider}\": {source}", path.display())]
    Value {
        path: PathBuf,
        provider: String,
        source: AuthError,
    },
}

/// The whole file.
#[derive(Debug, Default, Deserialize)]
pub struct ModelsFile {
    #[serde(default)]
    pub providers: Ordered<ProviderConfig>,
}

/// One entry of `providers`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderConfig {
    pub base_url: Option<String>,
    pub api: Option<String>,
    /// Raw value (`!cmd`, `$VAR` …), resolved at request time.
    pub api_key: Option<String>,
    pub headers: Option<BTreeMap<String, String>>,
    /// Adds `Authorization: Bearer <apiKey>` to the provider's custom models.
    pub auth_header: Option<bool>,
    pub compat: Option<Compat>,
    pub models: Option<Vec<ModelDef>>,
    pub model_overrides: Option<Ordered<ModelOverride>>,
}

/// A custom model; unset fields take pi's defaults.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelDef {
    pub id: Option<String>,
    pub name: Option<String>,
    pub api: Option<String>,
    pub base_url: Option<String>,
    pub reasoning: Option<bool>,
    pub input: Option<Vec<Modality>>,
    pub cost: Option<CostOverride>,
    pub context_window: Option<u64>,
    pub max_tokens: Option<u64>,
    pub headers: Option<BTreeMap<String, String>>,
    pub compat: Option<Compat>,
}

/// Changes to one built-in model; only the fields given are replaced.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelOverride {
    pub name: Option<String>,
    pub reasoning: Option<bool>,
    pub input: Option<Vec<Modality>>,
    pub cost: Option<CostOverride>,
    pub context_window: Option<u64>,
    pub max_tokens: Option<u64>,
    pub headers: Option<BTreeMap<String, String>>,
    pub compat: Option<Compat>,
}

/// Prices with every field optional (missing ones keep the model's value, or 0 for new models).
#[derive(Debug, Default, Clone, Copy, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CostOverride {
    pub input: Option<f64>,
    pub output: Option<f64>,
    pub cache_read: Option<f64>,
    pub cache_write: Option<f64>,
}

/// A JSON object kept in file order (custom models are listed in the order they were written).
#[derive(Debug, Clone)]
pub struct Ordered<T>(pub Vec<(String, T)>);

impl<T> Default for Ordered<T> {
    fn default() -> Self {
        Ordered(Vec::new())
    }
}

impl<T> Ordered<T> {
    pub fn get(&self, key: &str) -> Option<&T> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Ordered<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct OrderedVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for OrderedVisitor<T> {
            type Value = Ordered<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries: Vec<(String, T)> = Vec::new();
                while let Some((key, value)) = map.next_entry::<String, T>()? {
                    // A repeated key replaces the earlier one, as in JavaScript.
                    entries.retain(|(k, _)| *k != key);
                    entries.push((key, value));
                }
                Ok(Ordered(entries))
            }
        }
        deserializer.deserialize_map(OrderedVisitor(PhantomData))
    }
}

/// Reads and parses models.json. A missing file is `Ok(None)`, not an error.
pub fn read(path: &Path) -> Result<Option<ModelsFile>, ModelsError> {
    match std::fs::read_to_string(path) {
        Ok(text) => parse(&text, path).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(ModelsError::Read {
            path: path.to_owned(),
            source,
        }),
    }
}

/// Parses models.json text; `path` is only used in error messages.
pub fn parse(text: &str, path: &Path) -> Result<ModelsFile, ModelsError> {
    if text.trim().is_empty() {
        return Ok(ModelsFile::default());
    }
    serde_json::from_str(text).map_err(|e| {
        let (line, column, message) = (e.line(), e.column(), e.to_string());
        let path = path.to_owned();
        match e.classify() {
            serde_json::error::Category::Data => ModelsError::Invalid {
                path,
                line,
                column,
                message: strip_position(&message),
            },
            _ => ModelsError::Syntax {
                path,
                line,
                column,
                message: strip_position(&message),
            },
        }
    })
}

/// serde_json appends " at line L column C"; the error already shows the position up front.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_owned(),
        None => message.to_owned(),
    }
}

/// Checks the parts serde cannot: apis, required fields, limits.
pub fn validate(
    file: &ModelsFile,
    path: &Path,
    is_builtin: &dyn Fn(&str) -> bool,
) -> Result<(), ModelsError> {
    for (provider, config) in &file.providers.0 {
        validate_provider(provider, config, path, is_builtin(provider))?;
    }
    Ok(())
}

fn validate_provider(
    provider: &str,
    config: &ProviderConfig,
    path: &Path,
    builtin: bool,
) -> Result<(), ModelsError> {
    check_api(config.api.as_deref(), provider, None, path)?;
    let models = config.models.as_deref().unwrap_or_default();
    if !builtin {
        if models.is_empty() {
            return Err(ModelsError::NoModels {
                path: path.to_owned(),
                provider: provider.to_owned(),
            });
        }
        if config.base_url.is_none() && models.iter().any(|m| m.base_url.is_none()) {
            return Err(ModelsError::MissingProviderField {
                path: path.to_owned(),
                provider: provider.to_owned(),
                field: "baseUrl",
            });
        }
    }
    for (index, model) in models.iter().enumerate() {
        validate_model(provider, config, model, index, path, builtin)?;
    }
    Ok(())
}

fn validate_model(
    provider: &str,
    config: &ProviderConfig,
    model: &ModelDef,
    index: usize,
    path: &Path,
    builtin: bool,
) -> Result<(), ModelsError> {
    let Some(id) = model.id.as_deref().filter(|id| !id.trim().is_empty()) else {
        return Err(ModelsError::MissingModelId {
            path: path.to_owned(),
            provider: provider.to_owned(),
            index,
        });
    };
    check_api(model.api.as_deref(), provider, Some(id), path)?;
    if !builtin && model.api.is_none() && config.api.is_none() {
        return Err(ModelsError::MissingModelApi {
            path: path.to_owned(),
            provider: provider.to_owned(),
            model: id.to_owned(),
        });
    }
    for (field, value) in [
        ("contextWindow", model.context_window),
        ("maxTokens", model.max_tokens),
    ] {
        if value == Some(0) {
            return Err(ModelsError::InvalidLimit {
                path: path.to_owned(),
                provider: provider.to_owned(),
                model: id.to_owned(),
                field,
            });
        }
    }
    Ok(())
}

fn check_api(
    api: Option<&str>,
    provider: &str,
    model: Option<&str>,
    path: &Path,
) -> Result<(), ModelsError> {
    match api {
        Some(api) if !SUPPORTED_APIS.contains(&api) => Err(ModelsError::UnknownApi {
            path: path.to_owned(),
            provider: provider.to_owned(),
            model: model.map(str::to_owned),
            api: api.to_owned(),
        }),
        _ => Ok(()),
    }
}
