//! pi-ext-host integration tests: real components built from `host/ext-host/test-components` by the
//! test-artifacts build script, exercised through the host.

// Test helpers outside #[test] functions fail loudly on purpose.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cache;
mod compactor;
mod discovery;
mod escape;
mod fuzz_manifest;
mod hooks;
mod index;
mod manifest;
mod provider;
mod renderer;
mod tool;
mod watchdog;
mod wit_versions;

use pi_agent::{ToolError, ToolOutput};
use pi_ext_api::ToolDescription;
use pi_ext_host::tool::ComponentTool;
use pi_ext_host::{ExtensionHost, ExtensionId, Grant, LazyComponent, WitVersion, World};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use tokio_util::sync::CancellationToken;

/// One host for the whole binary, with a cache dir that lives as long as the process, so each
/// component is compiled once.
pub fn host() -> &'static ExtensionHost {
    static HOST: OnceLock<(ExtensionHost, tempfile::TempDir)> = OnceLock::new();
    &HOST
        .get_or_init(|| {
            let dir = tempfile::tempdir().expect("cache dir");
            let host = ExtensionHost::new(dir.path().join("cache")).expect("host");
            (host, dir)
        })
        .0
}

pub fn id(name: &str) -> Arc<ExtensionId> {
    Arc::new(ExtensionId {
        name: name.to_owned(),
        version: "0.1.0".to_owned(),
    })
}

/// A workspace inside a temp dir, with a secret file next to it (outside).
pub struct Workspace {
    pub root: tempfile::TempDir,
    pub dir: PathBuf,
    pub secret: PathBuf,
}

impl Workspace {
    pub fn create() -> Self {
        let root = tempfile::tempdir().expect("tempdir");
        let base = std::fs::canonicalize(root.path()).expect("canonical");
        let dir = base.join("ws");
        std::fs::create_dir_all(dir.join("sub")).expect("ws");
        std::fs::write(dir.join("hello.txt"), "hello from the workspace").expect("file");
        let secret = base.join("secret.txt");
        std::fs::write(&secret, "TOP-SECRET").expect("secret");
        Workspace { root, dir, secret }
    }

    pub fn grant(&self) -> Grant {
        Grant::new(&self.dir)
    }
}

pub fn component(path: &str, world: World, grant: Grant, name: &str) -> Arc<LazyComponent> {
    component_of(path, (world, WitVersion::LATEST), grant, name)
}

/// A component built against WIT version `wit`.
pub fn component_of(
    path: &str,
    (world, wit): (World, WitVersion),
    grant: Grant,
    name: &str,
) -> Arc<LazyComponent> {
    host().component(id(name), PathBuf::from(path), world, wit, Arc::new(grant))
}

/// The named tool of the test tool component under `grant`.
pub fn test_tool(grant: Grant, tool: &str) -> ComponentTool {
    tool_of(pi_ext_test_artifacts::TOOL, grant, tool, "test-tool")
}

pub fn tool_of(path: &str, grant: Grant, tool: &str, name: &str) -> ComponentTool {
    let component = component(path, World::Tool, grant, name);
    let descriptions: Vec<ToolDescription> = host().describe(&component).expect("describe");
    let description = descriptions
        .into_iter()
        .find(|d| d.name == tool)
        .unwrap_or_else(|| panic!("tool {tool} not described"));
    ComponentTool::new(component, description)
}

pub async fn run(tool: &ComponentTool, args: Value) -> Result<ToolOutput, ToolError> {
    tool.run("call-1", &args, CancellationToken::new(), None)
        .await
}

pub fn text(output: &ToolOutput) -> String {
    output
        .content
        .iter()
        .filter_map(|b| match b {
            pi_ai::UserBlock::Text(t) => Some(t.text.clone()),
            pi_ai::UserBlock::Image(_) => None,
        })
        .collect()
}

pub fn exists(path: &Path) -> bool {
    path.exists()
}
