//! Compiles the built-in model catalog (`src/models/catalog.json`) into a Rust table, so a
//! start parses nothing: `catalog.rs` includes the table this writes to `OUT_DIR`.
//!
//! Every string of the catalog goes once into one text, and the table names a string by its
//! offset and length. The table then holds no pointers, so the loader has nothing to relocate
//! in it and its pages are read from the binary only when a command looks at models.
//! A catalog the program could not use is a build error, naming the model.

use serde_json::{Map, Value};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;

type BuildResult<T> = Result<T, String>;

const CATALOG: &str = "src/models/catalog.json";

/// `compat` keys the adapters read, as the catalog spells them and as `Compat` names them.
const COMPAT_KEYS: [(&str, &str); 10] = [
    ("supportsStore", "supports_store"),
    ("supportsDeveloperRole", "supports_developer_role"),
    ("supportsReasoningEffort", "supports_reasoning_effort"),
    ("supportsUsageInStreaming", "supports_usage_in_streaming"),
    ("maxTokensField", "max_tokens_field"),
    ("requiresToolResultName", "requires_tool_result_name"),
    (
        "requiresAssistantAfterToolResult",
        "requires_assistant_after_tool_result",
    ),
    ("requiresThinkingAsText", "requires_thinking_as_text"),
    ("thinkingFormat", "thinking_format"),
    ("supportsStrictMode", "supports_strict_mode"),
];

const MODEL_KEYS: [&str; 11] = [
    "id",
    "name",
    "api",
    "baseUrl",
    "reasoning",
    "input",
    "cost",
    "contextWindow",
    "maxTokens",
    "headers",
    "compat",
];

fn main() -> BuildResult<()> {
    println!("cargo:rerun-if-changed={CATALOG}");
    println!("cargo:rerun-if-changed=build.rs");
    let text = std::fs::read_to_string(CATALOG).map_err(|e| format!("{CATALOG}: {e}"))?;
    let catalog: Value = serde_json::from_str(&text)
        .map_err(|e| format!("built-in model catalog {CATALOG} is invalid: {e}"))?;
    let table = Table::from_catalog(&catalog)
        .map_err(|e| format!("built-in model catalog {CATALOG} is invalid: {e}"))?;
    let out = PathBuf::from(std::env::var("OUT_DIR").map_err(|e| format!("OUT_DIR: {e}"))?)
        .join("catalog_table.rs");
    std::fs::write(&out, table.render()).map_err(|e| format!("{}: {e}", out.display()))
}

/// The strings of the catalog, each kept once.
#[derive(Default)]
struct Strings {
    text: String,
    seen: HashMap<String, (usize, usize)>,
}

impl Strings {
    /// `Str(offset, length)` of `s` in the text.
    fn add(&mut self, s: &str) -> String {
        let (at, len) = *self.seen.entry(s.to_owned()).or_insert_with(|| {
            let at = self.text.len();
            self.text.push_str(s);
            (at, s.len())
        });
        format!("Str({at}, {len})")
    }
}

/// The Rust source of the table, built up item by item.
#[derive(Default)]
struct Table {
    strings: Strings,
    source: String,
    generated: String,
    defaults: Vec<String>,
    providers: Vec<String>,
    models: Vec<String>,
    headers: Vec<String>,
}

impl Table {
    fn from_catalog(catalog: &Value) -> BuildResult<Table> {
        let mut table = Table::default();
        table.source = table.strings.add(string(catalog, "source", "the catalog")?);
        table.generated = table
            .strings
            .add(string(catalog, "generated", "the catalog")?);
        for pair in array(catalog, "defaults", "the catalog")? {
            let (provider, id) = match pair.as_array().map(Vec::as_slice) {
                Some([Value::String(p), Value::String(id)]) => (p, id),
                _ => return Err(format!("a default is not [provider, id]: {pair}")),
            };
            let entry = format!(
                "({}, {})",
                table.strings.add(provider),
                table.strings.add(id)
            );
            table.defaults.push(entry);
        }
        for (index, provider) in array(catalog, "providers", "the catalog")?
            .iter()
            .enumerate()
        {
            table.add_provider(index, provider)?;
        }
        Ok(table)
    }

    fn add_provider(&mut self, index: usize, provider: &Value) -> BuildResult<()> {
        let id = string(provider, "id", "a provider")?;
        let what = format!("provider {id}");
        let api = string(provider, "api", &what)?;
        let base_url = string(provider, "baseUrl", &what)?;
        let first = self.models.len();
        for model in array(provider, "models", &what)? {
            self.add_model(index, api, base_url, model)
                .map_err(|e| format!("{id}/{}: {e}", model["id"].as_str().unwrap_or("?")))?;
        }
        let entry = format!(
            "Provider {{ id: {}, api: {}, base_url: {}, models: {first}..{} }}",
            self.strings.add(id),
            self.strings.add(api),
            self.strings.add(base_url),
            self.models.len()
        );
        self.providers.push(entry);
        Ok(())
    }

    fn add_model(
        &mut self,
        provider: usize,
        api: &str,
        base_url: &str,
        model: &Value,
    ) -> BuildResult<()> {
        let object = model.as_object().ok_or("not an object")?;
        if let Some(key) = object.keys().find(|k| !MODEL_KEYS.contains(&k.as_str())) {
            return Err(format!("unknown key {key}"));
        }
        let field = |key: &str| object.get(key).filter(|v| !v.is_null());
        let api = match field("api") {
            Some(v) => v.as_str().ok_or("api is not a string")?,
            None => api,
        };
        let base_url = match field("baseUrl") {
            Some(v) => v.as_str().ok_or("baseUrl is not a string")?,
            None => base_url,
        };
        let reasoning = field("reasoning")
            .and_then(Value::as_bool)
            .ok_or("reasoning is not a boolean")?;
        let entry = format!(
            "Entry {{ provider: {provider}, id: {}, name: {}, api: {}, base_url: {}, reasoning: {reasoning}, input: {}, cost: {}, context_window: {}, max_tokens: {}, headers: {}, compat: {} }}",
            self.strings.add(string(model, "id", "the model")?),
            self.strings.add(string(model, "name", "the model")?),
            self.strings.add(api),
            self.strings.add(base_url),
            input(field("input").ok_or("no input")?)?,
            cost(field("cost").ok_or("no cost")?)?,
            count(field("contextWindow"), "contextWindow")?,
            count(field("maxTokens"), "maxTokens")?,
            self.add_headers(field("headers"))?,
            compat(field("compat"))?,
        );
        self.models.push(entry);
        Ok(())
    }

    /// `Some(range)` of the model's headers in `HEADERS`, or `None`.
    fn add_headers(&mut self, headers: Option<&Value>) -> BuildResult<String> {
        let Some(headers) = headers else {
            return Ok("None".to_owned());
        };
        let map = headers.as_object().ok_or("headers is not an object")?;
        let first = self.headers.len();
        for (name, value) in map {
            let value = value
                .as_str()
                .ok_or_else(|| format!("header {name} is not a string"))?;
            let entry = format!("({}, {})", self.strings.add(name), self.strings.add(value));
            self.headers.push(entry);
        }
        Ok(format!("Some({first}..{})", self.headers.len()))
    }

    fn render(&self) -> String {
        let mut out = String::from("// Generated by host/ai/build.rs from catalog.json.\n");
        let _ = writeln!(out, "static STRINGS: &str = {:?};", self.strings.text);
        let _ = writeln!(out, "static SOURCE: Str = {};", self.source);
        let _ = writeln!(out, "static GENERATED: Str = {};", self.generated);
        let mut items = |name: &str, ty: &str, rows: &[String]| {
            let _ = writeln!(out, "static {name}: [{ty}; {}] = [", rows.len());
            for row in rows {
                let _ = writeln!(out, "    {row},");
            }
            out.push_str("];\n");
        };
        items("DEFAULTS", "(Str, Str)", &self.defaults);
        items("PROVIDERS", "Provider", &self.providers);
        items("MODELS", "Entry", &self.models);
        items("HEADERS", "(Str, Str)", &self.headers);
        out
    }
}

fn string<'a>(value: &'a Value, key: &str, what: &str) -> BuildResult<&'a str> {
    value[key]
        .as_str()
        .ok_or_else(|| format!("{what} has no string {key}"))
}

fn array<'a>(value: &'a Value, key: &str, what: &str) -> BuildResult<&'a Vec<Value>> {
    value[key]
        .as_array()
        .ok_or_else(|| format!("{what} has no array {key}"))
}

fn count(value: Option<&Value>, key: &str) -> BuildResult<u64> {
    value
        .and_then(Value::as_u64)
        .ok_or_else(|| format!("{key} is not a whole number"))
}

/// The modalities, at most one of each: `[Some(first), second]`.
fn input(value: &Value) -> BuildResult<String> {
    let names = value.as_array().ok_or("input is not an array")?;
    let mut out: Vec<&str> = Vec::new();
    for name in names {
        let modality = match name.as_str() {
            Some("text") => "Modality::Text",
            Some("image") => "Modality::Image",
            _ => return Err(format!("unknown input {name}")),
        };
        if out.contains(&modality) {
            return Err(format!("input {name} twice"));
        }
        out.push(modality);
    }
    let slot = |i: usize| {
        out.get(i)
            .map_or("None".to_owned(), |m| format!("Some({m})"))
    };
    Ok(format!("[{}, {}]", slot(0), slot(1)))
}

/// `[input, output, cacheRead, cacheWrite]` dollars per million tokens.
fn cost(value: &Value) -> BuildResult<String> {
    let prices: Option<Vec<f64>> = value
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).collect());
    match prices.as_deref() {
        Some([input, output, cache_read, cache_write]) => Ok(format!(
            "ModelCost {{ input: {input:?}, output: {output:?}, cache_read: {cache_read:?}, cache_write: {cache_write:?} }}"
        )),
        _ => Err(format!("cost is not four numbers: {value}")),
    }
}

/// A `Compat` literal with the keys the catalog sets; any other key is an error, as a key
/// the adapters do not read would be silently lost.
fn compat(value: Option<&Value>) -> BuildResult<String> {
    let Some(value) = value else {
        return Ok("None".to_owned());
    };
    let map: &Map<String, Value> = value.as_object().ok_or("compat is not an object")?;
    if let Some(key) = map
        .keys()
        .find(|k| !COMPAT_KEYS.iter().any(|(name, _)| name == k))
    {
        return Err(format!("unknown compat key {key}"));
    }
    let mut fields = String::new();
    for (name, field) in COMPAT_KEYS {
        let literal = match map.get(name).filter(|v| !v.is_null()) {
            None => "None".to_owned(),
            Some(v) => format!("Some({})", compat_value(name, v)?),
        };
        let _ = write!(fields, "{field}: {literal}, ");
    }
    Ok(format!("Some(Compat {{ {fields}extra: BTreeMap::new() }})"))
}

fn compat_value(name: &str, value: &Value) -> BuildResult<String> {
    let wrong = || format!("compat {name} has an unknown value {value}");
    match name {
        "maxTokensField" => match value.as_str() {
            Some("max_tokens") => Ok("MaxTokensField::MaxTokens".to_owned()),
            Some("max_completion_tokens") => Ok("MaxTokensField::MaxCompletionTokens".to_owned()),
            _ => Err(wrong()),
        },
        // As the runtime reads models.json: a format pi does not know is `Other`.
        "thinkingFormat" => {
            let variant = match value.as_str().ok_or_else(wrong)? {
                "openai" => "Openai",
                "openrouter" => "Openrouter",
                "deepseek" => "Deepseek",
                "zai" => "Zai",
                "qwen" => "Qwen",
                "chat-template" => "ChatTemplate",
                _ => "Other",
            };
            Ok(format!("ThinkingFormat::{variant}"))
        }
        _ => value.as_bool().map(|b| b.to_string()).ok_or_else(wrong),
    }
}
