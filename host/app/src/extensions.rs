//! Third-party extensions of a `pi` run: WebAssembly packages (`pi-extension.toml` + components)
//! found in the global `<agentDir>/extensions`, the trusted project's `.pi/extensions`, the
//! settings' `extensions` list, the packages `pi ext install` recorded (the `packages` key and
//! the scope's lock file) and `-e <dir>` (the CLI fetches `-e npm:…`/`-e git:…` sources into a
//! temporary directory first). `--no-extensions` skips everything but `-e`.
//!
//! An installed package gets only what its user approved: one whose manifest now asks for more
//! (an edit, a new version) is not loaded until approved again, and a fetched one whose files
//! no longer match their recorded hashes is refused.
//!
//! Discovery goes through the extension host's start-up index, so a warm start reads no
//! manifest and compiles nothing: tool descriptions come from the cache and a component is
//! compiled (or loaded from the component cache) on its first call. Only a package seen for the
//! first time, or whose component changed, is compiled once to ask it for its tools.
//!
//! Skills, prompt templates and themes a package ships (`[resources]`) join the session's.
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
mod llm;
mod renderer;

pub use compactor::ExtensionCompactor;

use pi_ext_api::{MessageRenderer, ToolDescription};
use pi_ext_host::lockfile::LockedPackage;
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
    /// `-e` package directories (sources the CLI fetched are already directories).
    pub cli_paths: &'a [String],
    /// Installed packages (`pi ext install`) the settings list, with what was approved.
    pub packages: &'a [LockedPackage],
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
    /// Theme directories the packages ship (`[resources] themes`), for the interactive UI.
    pub theme_dirs: Vec<PathBuf>,
    /// One line per package that was skipped (or world that is not wired yet).
    pub warnings: Vec<String>,
    /// What `-e` packages were granted, one line each (shown on stderr: nobody approved it).
    pub grants: Vec<String>,
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

/// The search paths of `search`. An installed package whose files changed since it was
/// installed is reported and skipped.
fn search_paths(search: &ExtensionSearch, out: &mut Extensions) -> SearchPaths {
    let mut command_line: Vec<PathBuf> = Vec::new();
    if !search.no_extensions {
        command_line.extend(search.settings_paths.iter().cloned());
        for package in search.packages {
            match package.verify() {
                Ok(()) => command_line.push(package.path.clone()),
                Err(error) => out.warnings.push(format!(
                    "Warning: extension \"{}\" not loaded: {error}",
                    package.name
                )),
            }
        }
    }
    command_line.extend(cli_dirs(search));
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
        if let Some(grant) = allowed(package, search, &mut out) {
            open_package(host, package, grant, &mut out);
        }
    }
    out
}

/// The `-e` directories, resolved against the working directory.
fn cli_dirs<'a>(search: &'a ExtensionSearch) -> impl Iterator<Item = PathBuf> + 'a {
    search.cli_paths.iter().map(|arg| {
        let path = paths::expand_tilde(arg);
        if path.is_absolute() {
            path
        } else {
            search.cwd.join(path)
        }
    })
}

/// The grant of a discovered package: an installed one gets what its manifest asks only when
/// that is within what was approved (else it is skipped with a warning saying how to approve
/// it); other packages (placed by hand, `-e`) get what they ask, and `-e` ones say so.
fn allowed(
    package: &DiscoveredExtension,
    search: &ExtensionSearch,
    out: &mut Extensions,
) -> Option<Grant> {
    let manifest = &package.manifest;
    let asks = &manifest.capabilities;
    let installed = search.packages.iter().find(|p| p.path == package.dir);
    if let Some(installed) = installed {
        let beyond = asks.beyond(&installed.approved);
        if !beyond.is_empty() {
            out.warnings.push(format!(
                "Warning: extension \"{}\" not loaded: it now asks for more than was approved \
                 ({}); run `pi ext update {}` to review and approve",
                manifest.name,
                beyond.join("; "),
                manifest.name
            ));
            return None;
        }
    } else if cli_dirs(search).any(|dir| dir == package.dir) {
        let words = asks.plain_words();
        if !words.is_empty() {
            out.grants.push(format!(
                "Extension \"{}\" (-e {}) is granted: {}",
                manifest.name,
                package.dir.display(),
                words.join("; ")
            ));
        }
    }
    Some(Grant::from_manifest(manifest, search.cwd))
}

fn open_package(
    host: &ExtensionHost,
    package: &DiscoveredExtension,
    grant: Grant,
    out: &mut Extensions,
) {
    let manifest = &package.manifest;
    let id = format!("{}@{}", manifest.name, manifest.version);
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
    out.theme_dirs
        .extend(resources.themes.iter().map(|d| package.dir.join(d)));
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
