//! pi's own documentation, compiled into the binary and put on disk for the model to `read`.
//!
//! The built-in system prompt points the model at pi's README and topic pages so that pi can
//! answer questions about itself (and help write an extension) without a checkout of its
//! repository. The files are embedded with `include_str!` and written once per pi version to
//! `<agentDir>/docs/<version>/`: a warm start costs one `stat` of that directory. The first
//! start writes everything into a temporary directory beside it and renames it into place, so a
//! reader never sees half a tree and two processes starting at once both end with a whole one.
//! A directory that cannot be written (a read-only agent dir) is logged and leaves the paths
//! empty; start-up goes on.

use std::path::{Path, PathBuf};

use pi_session::system_prompt::DocPaths;

/// The files shipped, by their path under the version directory. `docs/ARCHITECTURE.md` and
/// `docs/performance.md` are for contributors and stay out; the guest SDK's walkthrough and the example packages show how an
/// extension is written.
const FILES: &[(&str, &str)] = &[
    ("README.md", include_str!("../../../README.md")),
    (
        "docs/command-hooks.md",
        include_str!("../../../docs/command-hooks.md"),
    ),
    (
        "docs/environment-variables.md",
        include_str!("../../../docs/environment-variables.md"),
    ),
    (
        "docs/extensions-c.md",
        include_str!("../../../docs/extensions-c.md"),
    ),
    (
        "docs/extensions-javascript.md",
        include_str!("../../../docs/extensions-javascript.md"),
    ),
    (
        "docs/extensions-python.md",
        include_str!("../../../docs/extensions-python.md"),
    ),
    (
        "docs/extensions.md",
        include_str!("../../../docs/extensions.md"),
    ),
    (
        "docs/keybindings.md",
        include_str!("../../../docs/keybindings.md"),
    ),
    ("docs/mcp.md", include_str!("../../../docs/mcp.md")),
    ("docs/models.md", include_str!("../../../docs/models.md")),
    (
        "docs/packages.md",
        include_str!("../../../docs/packages.md"),
    ),
    (
        "docs/permissions.md",
        include_str!("../../../docs/permissions.md"),
    ),
    (
        "docs/prompt-templates.md",
        include_str!("../../../docs/prompt-templates.md"),
    ),
    ("docs/rewind.md", include_str!("../../../docs/rewind.md")),
    ("docs/rpc.md", include_str!("../../../docs/rpc.md")),
    (
        "docs/settings.md",
        include_str!("../../../docs/settings.md"),
    ),
    ("docs/skills.md", include_str!("../../../docs/skills.md")),
    (
        "docs/subagents.md",
        include_str!("../../../docs/subagents.md"),
    ),
    ("docs/themes.md", include_str!("../../../docs/themes.md")),
    ("docs/tui.md", include_str!("../../../docs/tui.md")),
    (
        "examples/guest-sdk/README.md",
        include_str!("../../../guest-sdk/README.md"),
    ),
    (
        "examples/extensions/ollama/README.md",
        include_str!("../../../extensions/ollama/README.md"),
    ),
    (
        "examples/extensions/ollama/pi-extension.toml",
        include_str!("../../../extensions/ollama/pi-extension.toml"),
    ),
    (
        "examples/extensions/ollama/Cargo.toml",
        include_str!("../../../extensions/ollama/Cargo.toml"),
    ),
    (
        "examples/extensions/ollama/src/lib.rs",
        include_str!("../../../extensions/ollama/src/lib.rs"),
    ),
    (
        "examples/extensions/md-table/README.md",
        include_str!("../../../extensions/md-table/README.md"),
    ),
    (
        "examples/extensions/md-table/pi-extension.toml",
        include_str!("../../../extensions/md-table/pi-extension.toml"),
    ),
    (
        "examples/extensions/md-table/build.sh",
        include_str!("../../../extensions/md-table/build.sh"),
    ),
    (
        "examples/extensions/md-table/src/md-table.js",
        include_str!("../../../extensions/md-table/src/md-table.js"),
    ),
    (
        "examples/extensions/md-table/src/table.js",
        include_str!("../../../extensions/md-table/src/table.js"),
    ),
    (
        "examples/extensions/md-table/src/width.js",
        include_str!("../../../extensions/md-table/src/width.js"),
    ),
    (
        "examples/extensions/md-table/src/workspace.js",
        include_str!("../../../extensions/md-table/src/workspace.js"),
    ),
    (
        "examples/extensions/checksum/README.md",
        include_str!("../../../extensions/checksum/README.md"),
    ),
    (
        "examples/extensions/checksum/pi-extension.toml",
        include_str!("../../../extensions/checksum/pi-extension.toml"),
    ),
    (
        "examples/extensions/checksum/build.sh",
        include_str!("../../../extensions/checksum/build.sh"),
    ),
    (
        "examples/extensions/checksum/src/checksum.c",
        include_str!("../../../extensions/checksum/src/checksum.c"),
    ),
    (
        "examples/extensions/checksum/src/sums.h",
        include_str!("../../../extensions/checksum/src/sums.h"),
    ),
    (
        "examples/extensions/checksum/src/sums.c",
        include_str!("../../../extensions/checksum/src/sums.c"),
    ),
    (
        "examples/extensions/checksum/src/json.h",
        include_str!("../../../extensions/checksum/src/json.h"),
    ),
    (
        "examples/extensions/checksum/src/json.c",
        include_str!("../../../extensions/checksum/src/json.c"),
    ),
    (
        "examples/extensions/json-query/README.md",
        include_str!("../../../extensions/json-query/README.md"),
    ),
    (
        "examples/extensions/json-query/pi-extension.toml",
        include_str!("../../../extensions/json-query/pi-extension.toml"),
    ),
    (
        "examples/extensions/json-query/build.sh",
        include_str!("../../../extensions/json-query/build.sh"),
    ),
    (
        "examples/extensions/json-query/app.py",
        include_str!("../../../extensions/json-query/app.py"),
    ),
    (
        "examples/extensions/json-query/query.py",
        include_str!("../../../extensions/json-query/query.py"),
    ),
    (
        "examples/extensions/json-query/sources.py",
        include_str!("../../../extensions/json-query/sources.py"),
    ),
];

/// Why the documentation could not be put on disk.
#[derive(Debug, thiserror::Error)]
pub enum DocsError {
    #[error("cannot create {path}: {source}")]
    Create {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot move {from} to {to}: {source}")]
    Rename {
        from: PathBuf,
        to: PathBuf,
        source: std::io::Error,
    },
}

/// The documentation on disk: its version directory and the paths the system prompt names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShippedDocs {
    /// `<agentDir>/docs/<version>`.
    pub root: PathBuf,
    pub paths: DocPaths,
}

/// Where this version's documentation lives under `agent_dir`.
pub fn version_dir(agent_dir: &Path) -> PathBuf {
    agent_dir.join("docs").join(env!("CARGO_PKG_VERSION"))
}

/// Makes sure this version's documentation is on disk under `agent_dir` and says where. `None`
/// (logged) when it is not there and cannot be written.
pub fn install(agent_dir: &Path) -> Option<ShippedDocs> {
    let root = version_dir(agent_dir);
    if !root.is_dir()
        && let Err(error) = write_tree(&root)
    {
        tracing::warn!("pi's documentation is not available to the model: {error}");
        return None;
    }
    Some(ShippedDocs {
        paths: DocPaths {
            readme: root.join("README.md"),
            docs: root.join("docs"),
            examples: root.join("examples"),
        },
        root,
    })
}

/// Writes every file into a temporary directory next to `root`, then renames it to `root`.
fn write_tree(root: &Path) -> Result<(), DocsError> {
    let parent = root.parent().unwrap_or(root);
    std::fs::create_dir_all(parent).map_err(|source| DocsError::Create {
        path: parent.to_path_buf(),
        source,
    })?;
    let staging = tempfile::Builder::new()
        .prefix(".incomplete-")
        .tempdir_in(parent)
        .map_err(|source| DocsError::Create {
            path: parent.to_path_buf(),
            source,
        })?;
    for (relative, text) in FILES {
        let path = staging.path().join(relative);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|source| DocsError::Create {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        std::fs::write(&path, text).map_err(|source| DocsError::Write { path, source })?;
    }
    match std::fs::rename(staging.path(), root) {
        Ok(()) => {
            // Renamed away: nothing is left for the guard to remove.
            let _ = staging.keep();
            Ok(())
        }
        // Another pi finished first; its tree is the same, and ours is removed by the guard.
        Err(_) if root.is_dir() => Ok(()),
        Err(source) => Err(DocsError::Rename {
            from: staging.path().to_path_buf(),
            to: root.to_path_buf(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pages of `docs/` written for contributors, not shipped.
    const CONTRIBUTORS_ONLY: [&str; 2] = ["ARCHITECTURE.md", "performance.md"];

    /// Every topic page in `docs/` is shipped (a new page cannot be forgotten), and nothing
    /// shipped is missing from the repository.
    #[test]
    fn every_topic_page_is_shipped() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut pages: Vec<String> = std::fs::read_dir(repo.join("docs"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".md") && !CONTRIBUTORS_ONLY.contains(&name.as_str()))
            .map(|name| format!("docs/{name}"))
            .collect();
        pages.sort();
        let shipped: Vec<String> = FILES
            .iter()
            .map(|(path, _)| (*path).to_owned())
            .filter(|path| path.starts_with("docs/"))
            .collect();
        assert_eq!(shipped, pages);
    }

    #[test]
    fn a_second_install_leaves_the_tree_alone() {
        let agent = tempfile::tempdir().unwrap();
        let first = install(agent.path()).unwrap();
        let readme = std::fs::read_to_string(&first.paths.readme).unwrap();
        assert!(readme.starts_with("# pi (Rust)"));
        std::fs::write(&first.paths.readme, "changed").unwrap();
        let second = install(agent.path()).unwrap();
        assert_eq!(second, first);
        assert_eq!(
            std::fs::read_to_string(&second.paths.readme).unwrap(),
            "changed"
        );
        let leftovers: Vec<_> = std::fs::read_dir(agent.path().join("docs"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            leftovers,
            [std::ffi::OsString::from(env!("CARGO_PKG_VERSION"))]
        );
    }
}
