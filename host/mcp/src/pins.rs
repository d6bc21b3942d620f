//! Pinned tool definitions (beyond pi): `<agentDir>/mcp-pins.json` records, per server and
//! transport identity, a hash of each tool's definition (name, description, input schema,
//! annotations) the first time the server's tools are seen, and the definition itself, so a
//! change can be shown as a diff of the pinned and the current definition. A later list whose tools differ
//! from (or add to) the pinned ones reports those tools as changed, so the application can
//! withhold them until `pi mcp trust <server>` records the new definitions. The file is written
//! whole to a temp file and renamed over the old one, so it is never seen half-written.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The file's name in the agent dir.
pub const PINS_FILE: &str = "mcp-pins.json";

/// Why the pins file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum PinError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a pins file: {source}")]
    Parse {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot lock {path}: {source}")]
    Lock {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Per server, per transport identity, per tool.
type PerTool<T> = BTreeMap<String, BTreeMap<String, BTreeMap<String, T>>>;

/// `{"version": 1, "servers": {name: {identity: {tool: sha256}}}, "definitions": {name:
/// {identity: {tool: definition}}}}`. A file written before definitions were kept has no
/// `definitions`: its changes show without the pinned side.
#[derive(Debug, Default, Serialize, Deserialize)]
struct PinsFile {
    version: u32,
    #[serde(default)]
    servers: PerTool<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    definitions: PerTool<Value>,
}

/// What of a tool's wire definition is pinned: name, description, input schema, annotations.
pub fn pinned_definition(tool: &Value) -> Value {
    serde_json::json!({
        "name": tool.get("name"),
        "description": tool.get("description"),
        "inputSchema": tool.get("inputSchema"),
        "annotations": tool.get("annotations"),
    })
}

/// The hash of one tool's definition: SHA-256 of the canonical JSON (keys sorted) of its
/// name, description, input schema and annotations.
pub fn definition_hash(tool: &Value) -> String {
    let definition = pinned_definition(tool);
    let mut text = String::new();
    canonical(&definition, &mut text);
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// JSON text with object keys sorted, whatever order the server sent them in.
fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                canonical(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The pins of every server, in one file. A change (read, change, write) holds the process's
/// lock and the file's lock (`mcp-pins.json.lock`), so two pi processes trusting servers at the
/// same time do not lose each other's pins.
pub struct PinStore {
    path: Option<PathBuf>,
    lock: Mutex<()>,
}

impl PinStore {
    /// The store in `agent_dir`; `None` pins nothing and reports nothing changed.
    pub fn new(agent_dir: Option<&Path>) -> Self {
        PinStore {
            path: agent_dir.map(|dir| dir.join(PINS_FILE)),
            lock: Mutex::new(()),
        }
    }

    /// Compares `tools` (name → wire definition) with the pins of `server` at `identity`:
    /// first sight pins them all; otherwise the names of changed or added tools, sorted.
    /// Pins of tools the server no longer lists are dropped.
    pub fn check(
        &self,
        server: &str,
        identity: &str,
        tools: &BTreeMap<String, Value>,
    ) -> Result<Vec<String>, PinError> {
        let Some(path) = &self.path else {
            return Ok(Vec::new());
        };
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let _file_lock = file_lock(path)?;
        let mut file = read(path)?;
        let hashes = hashes_of(tools);
        let entry = file.servers.entry(server.to_owned()).or_default();
        let Some(pinned) = entry.get_mut(identity) else {
            entry.insert(identity.to_owned(), hashes);
            file.set_definitions(server, identity, tools);
            write(path, &file)?;
            return Ok(Vec::new());
        };
        let tools = &hashes;
        let changed: Vec<String> = tools
            .iter()
            .filter(|(name, hash)| pinned.get(*name) != Some(*hash))
            .map(|(name, _)| name.clone())
            .collect();
        let before = pinned.len();
        pinned.retain(|name, _| tools.contains_key(name));
        if pinned.len() != before {
            write(path, &file)?;
        }
        Ok(changed)
    }

    /// Records `tools` (name → wire definition) as the pinned definitions of `server` at
    /// `identity`.
    pub fn trust(
        &self,
        server: &str,
        identity: &str,
        tools: &BTreeMap<String, Value>,
    ) -> Result<(), PinError> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let _file_lock = file_lock(path)?;
        let mut file = read(path)?;
        file.servers
            .entry(server.to_owned())
            .or_default()
            .insert(identity.to_owned(), hashes_of(tools));
        file.set_definitions(server, identity, tools);
        write(path, &file)
    }

    /// The pinned definition of each tool of `server` at `identity` (empty when nothing is
    /// pinned, or the file predates kept definitions).
    pub fn definitions(
        &self,
        server: &str,
        identity: &str,
    ) -> Result<BTreeMap<String, Value>, PinError> {
        let Some(path) = &self.path else {
            return Ok(BTreeMap::new());
        };
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let mut file = read(path)?;
        Ok(file
            .definitions
            .remove(server)
            .and_then(|mut by_identity| by_identity.remove(identity))
            .unwrap_or_default())
    }
}

impl PinsFile {
    fn set_definitions(&mut self, server: &str, identity: &str, tools: &BTreeMap<String, Value>) {
        let pinned = tools
            .iter()
            .map(|(name, wire)| (name.clone(), pinned_definition(wire)))
            .collect();
        self.definitions
            .entry(server.to_owned())
            .or_default()
            .insert(identity.to_owned(), pinned);
    }
}

fn hashes_of(tools: &BTreeMap<String, Value>) -> BTreeMap<String, String> {
    tools
        .iter()
        .map(|(name, wire)| (name.clone(), definition_hash(wire)))
        .collect()
}

/// The lock other pi processes take before changing the file.
fn file_lock(path: &Path) -> Result<pi_ai::file_lock::FileLock, PinError> {
    pi_ai::file_lock::FileLock::acquire(path).map_err(|source| PinError::Lock {
        path: pi_ai::file_lock::lock_path(path),
        source,
    })
}

fn read(path: &Path) -> Result<PinsFile, PinError> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|source| PinError::Parse {
            path: path.to_owned(),
            source,
        }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(PinsFile {
            version: 1,
            ..PinsFile::default()
        }),
        Err(source) => Err(PinError::Read {
            path: path.to_owned(),
            source,
        }),
    }
}

/// Writes the whole file next to its final path, flushes it and renames it into place.
fn write(path: &Path, file: &PinsFile) -> Result<(), PinError> {
    let fail = |source| PinError::Write {
        path: path.to_owned(),
        source,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(fail)?;
    let mut temp = tempfile::NamedTempFile::new_in(dir).map_err(fail)?;
    let text = serde_json::to_vec_pretty(file).map_err(|e| fail(e.into()))?;
    temp.write_all(&text).map_err(fail)?;
    temp.write_all(b"\n").map_err(fail)?;
    temp.as_file().sync_all().map_err(fail)?;
    temp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tools(pairs: &[(&str, &Value)]) -> BTreeMap<String, Value> {
        pairs
            .iter()
            .map(|(n, v)| (n.to_string(), (*v).clone()))
            .collect()
    }

    #[test]
    fn two_stores_trusting_at_once_lose_nothing() {
        // Two stores stand for two pi processes: only the file's lock keeps them apart.
        let dir = tempfile::tempdir().unwrap();
        let stores = [
            PinStore::new(Some(dir.path())),
            PinStore::new(Some(dir.path())),
        ];
        let definition = json!({"name": "t"});
        std::thread::scope(|scope| {
            for (i, store) in stores.iter().enumerate() {
                let definition = &definition;
                scope.spawn(move || {
                    for n in 0..15 {
                        let server = format!("s{i}-{n}");
                        store
                            .trust(&server, "id", &tools(&[("t", definition)]))
                            .unwrap();
                    }
                });
            }
        });
        let file = read(&dir.path().join(PINS_FILE)).unwrap();
        assert_eq!(file.servers.len(), 30);
    }

    #[test]
    fn hash_ignores_key_order_and_other_fields() {
        let a =
            json!({"name": "t", "inputSchema": {"type": "object", "properties": {}}, "title": "x"});
        let b = json!({"inputSchema": {"properties": {}, "type": "object"}, "name": "t"});
        assert_eq!(definition_hash(&a), definition_hash(&b));
        let c = json!({"name": "t", "description": "other"});
        assert_ne!(definition_hash(&a), definition_hash(&c));
    }

    #[test]
    fn first_sight_pins_then_changes_and_additions_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        let store = PinStore::new(Some(dir.path()));
        let one = json!({"name": "one", "description": "1"});
        let two = json!({"name": "two", "description": "2"});
        let first = tools(&[("one", &one), ("two", &two)]);
        assert!(store.check("s", "stdio:x", &first).unwrap().is_empty());
        assert!(store.check("s", "stdio:x", &first).unwrap().is_empty());
        let changed_one = json!({"name": "one", "description": "changed"});
        let three = json!({"name": "three"});
        let later = tools(&[("one", &changed_one), ("three", &three)]);
        assert_eq!(
            store.check("s", "stdio:x", &later).unwrap(),
            vec!["one", "three"]
        );
        // Another transport identity is another server: pinned on first sight.
        assert!(store.check("s", "http:y", &later).unwrap().is_empty());
        let pinned = store.definitions("s", "stdio:x").unwrap();
        assert_eq!(
            pinned["one"]["description"], "1",
            "the pinned side of the diff"
        );
        store.trust("s", "stdio:x", &later).unwrap();
        assert!(store.check("s", "stdio:x", &later).unwrap().is_empty());
        let pinned = store.definitions("s", "stdio:x").unwrap();
        assert_eq!(pinned["one"]["description"], "changed");
        assert!(pinned.contains_key("three"));
        let text = std::fs::read_to_string(dir.path().join(PINS_FILE)).unwrap();
        let parsed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed["version"], 1);
        assert!(parsed["servers"]["s"]["stdio:x"]["three"].is_string());
    }
}
