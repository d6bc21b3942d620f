//! Adding, removing and updating one server in an `mcp.json`, keeping every other key, their order and
//! the file's indentation. The file is replaced atomically (a temporary file renamed over it),
//! so a reader never sees it half-written.

use serde::Serialize;
use serde_json::{Map, Value};
use std::io::Write;
use std::path::Path;

/// Why an `mcp.json` could not be changed.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error(r#"{path}: expected an object with an "mcpServers" object"#)]
    Shape { path: String },
    #[error(r#"{path} does not define the MCP server "{name}""#)]
    Missing { path: String, name: String },
}

/// Adds `config` as server `name` to the file at `path` (created, with its directory, when
/// missing), replacing an entry of that name in its place. Whether one was replaced.
pub fn add_server(path: &Path, name: &str, config: Map<String, Value>) -> Result<bool, EditError> {
    let mut replaced = false;
    edit_servers(path, |servers| {
        replaced = servers
            .insert(name.to_owned(), Value::Object(config))
            .is_some();
        true
    })?;
    Ok(replaced)
}

/// Removes server `name` from the file at `path`. Whether the file defined it.
pub fn remove_server(path: &Path, name: &str) -> Result<bool, EditError> {
    if !path.exists() {
        return Ok(false);
    }
    let mut removed = false;
    edit_servers(path, |servers| {
        removed = servers.shift_remove(name).is_some();
        removed
    })?;
    Ok(removed)
}

/// Sets the fields of `patch` (`enabled`, `exposure`) in server `name` of the file at `path`,
/// keeping its other fields, as pi 1.6's `/mcp` saves a change. With `create` (a project
/// override of a global server) a missing entry is added holding only `patch`; otherwise a
/// missing entry is an error.
pub fn update_server(
    path: &Path,
    name: &str,
    patch: Map<String, Value>,
    create: bool,
) -> Result<(), EditError> {
    let mut missing = false;
    edit_servers(path, |servers| {
        if !create && !servers.contains_key(name) {
            missing = true;
            return false;
        }
        let entry = servers
            .entry(name.to_owned())
            .or_insert_with(|| Value::Object(Map::new()));
        let Some(fields) = entry.as_object_mut() else {
            missing = true;
            return false;
        };
        fields.extend(patch);
        true
    })?;
    if missing {
        return Err(EditError::Missing {
            path: path.display().to_string(),
            name: name.to_owned(),
        });
    }
    Ok(())
}

/// Reads the file (an empty configuration when missing), lets `edit` change its `mcpServers`
/// and writes it back when `edit` says it changed something.
fn edit_servers(
    path: &Path,
    edit: impl FnOnce(&mut Map<String, Value>) -> bool,
) -> Result<(), EditError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => Some(text.trim_start_matches('\u{feff}').to_owned()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => return Err(error.into()),
    };
    let mut parsed: Value = match &text {
        Some(text) => serde_json::from_str(text)?,
        None => Value::Object(Map::new()),
    };
    let shape = || EditError::Shape {
        path: path.display().to_string(),
    };
    let root = parsed.as_object_mut().ok_or_else(shape)?;
    let servers = root
        .entry("mcpServers")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(shape)?;
    if !edit(servers) {
        return Ok(());
    }
    let indent = text.as_deref().and_then(indentation).unwrap_or("  ");
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
    parsed.serialize(&mut serde_json::Serializer::with_formatter(
        &mut out, formatter,
    ))?;
    out.push(b'\n');
    write_atomically(path, &out)
}

/// The leading whitespace of the first indented line.
fn indentation(text: &str) -> Option<&str> {
    text.lines().find_map(|line| {
        let body = line.trim_start_matches([' ', '\t']);
        let indent = &line[..line.len() - body.len()];
        (!indent.is_empty() && !body.trim().is_empty()).then_some(indent)
    })
}

/// Writes `bytes` to a temporary file beside `path` and renames it over `path`.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), EditError> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    file.write_all(bytes)?;
    // A replaced file keeps its permissions (the temporary file is the owner's only).
    if let Ok(metadata) = std::fs::metadata(path) {
        file.as_file().set_permissions(metadata.permissions())?;
    }
    file.as_file().sync_all()?;
    file.persist(path).map_err(|error| error.error)?;
    Ok(())
}
