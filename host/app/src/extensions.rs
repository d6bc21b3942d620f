//! Third-party extensions of a `pi` run: WebAssembly packages (`pi-extension.toml` + components)
//! found in the global `<agentDir>/extensions`, the trusted project's `.pi/extensions`, the
//! settings' `extensions` list and `-e <path>`; `-e npm:pkg[@version]`, `-e git:host/user/repo[@ref]`
//! and `-e <git URL>[@ref]` are installed to a temporary directory for the run (`source`).
//! `--no-extensions` skips everything but `-e`.
//!
//! Discovery goes through the extension host's start-up index, so a warm start reads no
//! manifest and compiles nothing: tool descriptions come from the cache and a component is
//! compiled (or loaded from the component cache) on its first call. Only a package seen for the
//! first time, or whose component changed, is compiled once to ask it for its tools.
//!
//! Skills and prompt templates a package ships (`[resources]`) join the session's.
//!
//! Compactor components are asked before pi's own summary (`ExtensionCompactor`); those
//! granted `llm` reach the session's models through it. Renderers are for the interactive UI,
//! which this build does not have.
//!
//! Provider components are loaded at start-up (their models must be known to choose one): the
//! component comes from the component cache, is instantiated once and asked for its models,
//! which join the model registry; the provider serves each `api` its models use that pi has no
//! adapter for.
//!
//! A package that cannot be used (bad manifest, missing or invalid component, a world it does
//! not implement) is skipped with a warning naming it; pi runs without it.

mod compactor;
mod git;
mod llm;
mod npm;
mod renderer;
pub mod source;
mod tarball;

pub use compactor::ExtensionCompactor;

use pi_ext_api::{MessageRenderer, ToolDescription};
use pi_ext_host::manifest::World;
use pi_ext_host::{
    ComponentProvider, DiscoveredExtension, ExtensionHost, Grant, LazyComponent, SearchPaths,
};
use pi_session::paths;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where to look for packages and what the command line asked for.
pub struct ExtensionSearch<'a> {
    pub agent_dir: &'a Path,
    pub cwd: &'a Path,
    pub project_trusted: bool,
    /// `--no-extensions`: only the `-e` packages load.
    pub no_extensions: bool,
    /// Package directories from the settings' `extensions` list (already resolved).
    pub settings_paths: &'a [PathBuf],
    /// `-e` arguments as given.
    pub cli_paths: &'a [String],
}

/// One tool served by an extension component, ready to be turned into an agent tool.
pub struct ExtensionTool {
    /// `name@version` of the package.
    pub extension: String,
    pub description: ToolDescription,
    pub component: Arc<LazyComponent>,
}

/// What the extensions of this run provide.
#[derive(Default)]
pub struct Extensions {
    /// `name@version` of each package that loaded.
    pub loaded: Vec<String>,
    /// Their tools; a later tool of the same name replaces an earlier one.
    pub tools: Vec<ExtensionTool>,
    /// Their model providers.
    pub providers: Vec<Arc<ComponentProvider>>,
    /// Their compactor components (loaded on the first compaction).
    pub compactors: Vec<Arc<LazyComponent>>,
    /// Their renderers (loaded when the interactive UI first asks them).
    pub renderers: Vec<Arc<dyn MessageRenderer>>,
    /// Skill and prompt-template directories the packages ship (`[resources]`).
    pub skill_dirs: Vec<PathBuf>,
    pub prompt_dirs: Vec<PathBuf>,
    /// One line per package that was skipped (or world that is not wired yet).
    pub warnings: Vec<String>,
    /// `npm:`/`git:` sources installed for this run; their directories go when this drops.
    pub installed: Vec<source::Installed>,
}

impl Extensions {
    pub fn tool_names(&self) -> Vec<String> {
        self.tools
            .iter()
            .map(|t| t.description.name.clone())
            .collect()
    }

    pub fn tool(&self, name: &str) -> Option<&ExtensionTool> {
        self.tools.iter().find(|t| t.description.name == name)
    }
}

/// The search paths of `search`. An `npm:`, `git:` or URL source of `-e` is installed into a
/// temporary directory for this run first (nothing is fetched unless one is given); one that
/// cannot be parsed or installed is reported and skipped. The installed directory then loads
/// like any `-e` directory.
fn search_paths(search: &ExtensionSearch, out: &mut Extensions) -> SearchPaths {
    let mut command_line: Vec<PathBuf> = Vec::new();
    if !search.no_extensions {
        command_line.extend(search.settings_paths.iter().cloned());
    }
    for arg in search.cli_paths {
        let installed = source::parse(arg)
            .map_err(|e| e.to_string())
            .and_then(|parsed| source::install(&parsed).map_err(|e| e.to_string()));
        match installed {
            Ok(Some(installed)) => {
                command_line.push(installed.dir.clone());
                out.installed.push(installed);
            }
            Ok(None) => {
                let path = paths::expand_tilde(arg);
                command_line.push(if path.is_absolute() {
                    path
                } else {
                    search.cwd.join(path)
                });
            }
            Err(error) => out
                .warnings
                .push(format!("Warning: extension \"{arg}\" not loaded: {error}")),
        }
    }
    let (global, project) = if search.no_extensions {
        (None, None)
    } else {
        (
            Some(search.agent_dir.join("extensions")),
            search
                .project_trusted
                .then(|| search.cwd.join(".pi").join("extensions")),
        )
    };
    SearchPaths {
        global,
        project,
        command_line,
        disabled: Vec::new(),
    }
}

/// Finds and opens the packages of `search`; never fails (problems become warnings).
pub fn load(host: &ExtensionHost, search: &ExtensionSearch) -> Extensions {
    let mut out = Extensions::default();
    let paths = search_paths(search, &mut out);
    if paths.global.is_none() && paths.project.is_none() && paths.command_line.is_empty() {
        return out;
    }
    let (packages, errors) = host.discover(&paths);
    for error in errors {
        out.warnings
            .push(format!("Warning: extension not loaded: {error}"));
    }
    for package in &packages {
        open_package(host, package, search.cwd, &mut out);
    }
    out
}

fn open_package(
    host: &ExtensionHost,
    package: &DiscoveredExtension,
    cwd: &Path,
    out: &mut Extensions,
) {
    let manifest = &package.manifest;
    let id = format!("{}@{}", manifest.name, manifest.version);
    // Everything the manifest asks for: pi has no approval prompt, installing is consent.
    let grant = Grant::from_capabilities(&manifest.capabilities, cwd);
    let loaded = match host.open(package, grant) {
        Ok(loaded) => loaded,
        Err(error) => {
            out.warnings.push(format!(
                "Warning: extension \"{}\" ({}) not loaded: {error}",
                manifest.name,
                package.dir.display()
            ));
            return;
        }
    };
    for (entry, component) in manifest.components.iter().zip(&loaded.components) {
        match entry.world {
            World::Tool => add_tools(host, &id, component, out),
            World::Provider => add_provider(&id, component, out),
            World::Compactor => out.compactors.push(Arc::clone(component)),
            // Renderers draw custom messages and tool results in the interactive UI; print,
            // json and rpc modes never ask them, so they are never loaded there.
            World::Renderer => out
                .renderers
                .push(Arc::new(renderer::ExtensionRenderer::new(
                    id.clone(),
                    Arc::clone(component),
                ))),
        }
    }
    let resources = &manifest.resources;
    out.skill_dirs
        .extend(resources.skills.iter().map(|d| package.dir.join(d)));
    out.prompt_dirs
        .extend(resources.prompts.iter().map(|d| package.dir.join(d)));
    out.loaded.push(id);
}

/// The tools of one tool component; `open` has just stored their descriptions in the cache.
fn add_tools(host: &ExtensionHost, id: &str, component: &Arc<LazyComponent>, out: &mut Extensions) {
    let descriptions = match host.describe(component) {
        Ok(d) => d,
        Err(error) => {
            out.warnings
                .push(format!("Warning: extension \"{id}\": {error}"));
            return;
        }
    };
    for description in descriptions {
        out.tools.retain(|t| t.description.name != description.name);
        out.tools.push(ExtensionTool {
            extension: id.to_owned(),
            description,
            component: Arc::clone(component),
        });
    }
}

/// Loads a provider component and asks it for its models.
fn add_provider(id: &str, component: &Arc<LazyComponent>, out: &mut Extensions) {
    match component.get().and_then(ComponentProvider::load) {
        Ok(provider) => out.providers.push(Arc::new(provider)),
        Err(error) => out
            .warnings
            .push(format!("Warning: extension \"{id}\": {error}")),
    }
}

/// The provider names the extensions' models use (models.json may configure them).
pub fn provider_names(extensions: &Extensions) -> Vec<String> {
    let mut names: Vec<String> = extensions
        .providers
        .iter()
        .flat_map(|p| p.models().iter().map(|m| m.provider.clone()))
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// Adds the providers' models to `registry` (configured by models.json like built-ins) and
/// registers each provider for the `api`s of its models that no adapter serves yet (an
/// extension does not replace pi's own protocols).
pub fn register_providers(extensions: &Extensions, registry: &mut pi_ai::ModelRegistry) {
    let apis = pi_ai::registry();
    for provider in &extensions.providers {
        registry.add_models(provider.models().iter().cloned());
        for model in provider.models() {
            if apis.get(&model.api).is_none() {
                apis.register(
                    &model.api,
                    Arc::clone(provider) as Arc<dyn pi_ai::ApiProvider>,
                );
            }
        }
    }
}
