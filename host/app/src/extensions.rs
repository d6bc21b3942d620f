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
//! Skills, prompt templates, themes and agent definitions a package ships (`[resources]`) join
//! the session's. An object-form `packages` entry in settings picks which of a package's
//! components and resources load ([`filter`]).
//!
//! Compactor components are asked before pi's own summary (`ExtensionCompactor`); those
//! granted `llm` reach the session's models through it. Renderers are for the interactive UI.
//!
//! Provider components are loaded at start-up (their models must be known to choose one): the
//! component comes from the component cache, is instantiated once and asked for its models,
//! which join the model registry; the provider serves each `api` its models use that pi has no
//! adapter for.
//!
//! A package that cannot be used (bad manifest, missing or invalid component, a world it does
//! not implement) is skipped with a warning naming it; pi runs without it.

mod compactor;
pub mod filter;
mod llm;
mod renderer;

pub use compactor::ExtensionCompactor;

use filter::{PackageFilter, Picked, ResourceKind};
use pi_ext_api::{Hook, MessageRenderer, ToolDescription};
use pi_ext_host::approvals::{Approvals, canonical_dir};
use pi_ext_host::lockfile::LockedPackage;
use pi_ext_host::manifest::{ComponentEntry, World};
use pi_ext_host::{
    ComponentProvider, DiscoveredExtension, ExtensionHost, Grant, LazyComponent, SearchPaths,
};
use pi_session::paths;
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A package `pi ext install` recorded, with the filter of the settings entry that lists it.
#[derive(Debug, Clone)]
pub struct InstalledPackage {
    pub locked: LockedPackage,
    pub filter: Option<PackageFilter>,
}

/// The theme folders and single theme files packages ship.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PackageThemes {
    pub dirs: Vec<PathBuf>,
    pub files: Vec<PathBuf>,
}

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
    pub packages: &'a [InstalledPackage],
    /// pi's own directories: no package's grant reaches them (`Grant::protected`).
    pub protected: &'a [PathBuf],
    /// What the user approved for packages placed by hand (`pi ext approve`).
    pub approvals: &'a Approvals,
}

/// One tool served by an extension component, ready to be turned into an agent tool.
#[derive(Clone)]
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
    /// Their hook components, in load order (the order the pipeline calls them in).
    pub hooks: Vec<Arc<dyn Hook>>,
    /// Skill and prompt-template folders the packages ship (`[resources]`), or the entries of
    /// them a settings filter picked.
    pub skill_dirs: Vec<PathBuf>,
    pub prompt_dirs: Vec<PathBuf>,
    /// The agent-definition folders packages ship (`[resources] agents`), with the package's
    /// name.
    pub agent_dirs: Vec<(String, PathBuf)>,
    /// Theme directories and files the packages ship (`[resources] themes`, the files when a
    /// settings entry picks some), for the interactive UI.
    pub themes: PackageThemes,
    /// One line per package that was skipped (or world that is not wired yet).
    pub warnings: Vec<String>,
    /// What `-e` packages were granted, one line each (shown on stderr: nobody approved it).
    pub grants: Vec<String>,
    /// Each loaded package (`name@version`) with what it was granted, in plain words.
    pub granted: Vec<(String, Vec<String>)>,
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

/// The extension tools whose package's grant lets them change something: files (a writable
/// workspace or directory) or processes. The permission mode `ask-writes` asks before them.
pub fn writing_tools(extensions: &Extensions) -> Vec<String> {
    use pi_ext_host::FsAccess;
    extensions
        .tools
        .iter()
        .filter(|tool| {
            let grant = &tool.component.grant;
            grant.filesystem == FsAccess::Write
                || grant.process
                || grant.preopens.iter().any(|p| p.access == FsAccess::Write)
        })
        .map(|tool| tool.description.name.clone())
        .collect()
}

/// Whether an extension list entry names one of pi 1.6's built-in extensions
/// (`builtin:mcp`, or `-builtin:mcp` disabling it) rather than a package.
fn is_builtin(entry: &str) -> bool {
    entry.trim().trim_start_matches('-').starts_with("builtin:")
}

/// The search paths of `search`. An installed package whose files changed since it was
/// installed is reported and skipped.
fn search_paths(search: &ExtensionSearch, out: &mut Extensions) -> SearchPaths {
    let mut command_line: Vec<PathBuf> = Vec::new();
    if !search.no_extensions {
        command_line.extend(
            search
                .settings_paths
                .iter()
                .filter(|path| {
                    !path
                        .file_name()
                        .is_some_and(|n| is_builtin(&n.to_string_lossy()))
                })
                .cloned(),
        );
        for InstalledPackage { locked, .. } in search.packages {
            match locked.verify() {
                Ok(()) => command_line.push(locked.path.clone()),
                Err(error) => out.warnings.push(format!(
                    "Warning: extension \"{}\" not loaded: {error}",
                    locked.name
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
        // An installed package is searched at exactly its locked path, so the bytes match.
        let installed = search
            .packages
            .iter()
            .find(|p| p.locked.path.as_os_str() == package.dir.as_os_str());
        if let Some((grant, approved)) = allowed(package, installed, search, &mut out) {
            let filter = installed.and_then(|p| p.filter.as_ref());
            let package = filtered(package, filter);
            open_package(host, &package, filter, (grant, &approved), &mut out);
        }
    }
    out
}

/// The `-e` directories, resolved against the working directory.
fn cli_dirs<'a>(search: &'a ExtensionSearch) -> impl Iterator<Item = PathBuf> + 'a {
    search
        .cli_paths
        .iter()
        .filter(|arg| !is_builtin(arg))
        .map(|arg| {
            let path = paths::expand_tilde(arg);
            if path.is_absolute() {
                path
            } else {
                search.cwd.join(path)
            }
        })
}

/// The grant of a discovered package and the capabilities it stands for: an installed one gets
/// what its manifest asks only when that is within what was approved (else it is skipped with a
/// warning saying how to approve it); a `-e` one gets what it asks, and says so; one placed by
/// hand gets what `pi ext approve` recorded for it as its files are now, else nothing (and the
/// warning says what it asks and how to approve it).
fn allowed(
    package: &DiscoveredExtension,
    installed: Option<&InstalledPackage>,
    search: &ExtensionSearch,
    out: &mut Extensions,
) -> Option<(Grant, pi_ext_host::Capabilities)> {
    let manifest = &package.manifest;
    let asks = &manifest.capabilities;
    let granted = |capabilities: pi_ext_host::Capabilities| {
        let mut grant = Grant::from_capabilities(&capabilities, search.cwd);
        // The limits a package sets on itself apply whatever it was granted.
        grant.limits = Grant::from_manifest(manifest, search.cwd).limits;
        grant.protected = search.protected.to_vec();
        Some((grant, capabilities))
    };
    if let Some(installed) = installed {
        let beyond = asks.beyond(&installed.locked.approved);
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
    } else if let Err(why) = search
        .approvals
        .grant_for(&canonical_dir(&package.dir), asks)
    {
        let words = asks.plain_words();
        if !words.is_empty() {
            out.warnings.push(format!(
                "Warning: extension \"{}\" ({}) runs with no capabilities: it was not installed \
                 with `pi ext install`, and {why}. It asks to: {}. Check it, then run `pi ext \
                 approve {}` to grant that.",
                manifest.name,
                package.dir.display(),
                words.join("; "),
                package.dir.display(),
            ));
        }
        return granted(pi_ext_host::Capabilities::default());
    }
    granted(asks.clone())
}

/// `package` with only the components `filter` keeps (copied only when it drops some).
fn filtered<'p>(
    package: &'p DiscoveredExtension,
    filter: Option<&PackageFilter>,
) -> Cow<'p, DiscoveredExtension> {
    let keeps =
        |c: &&ComponentEntry| filter.is_none_or(|f| f.keeps(ResourceKind::Extensions, &c.path));
    if package.manifest.components.iter().all(|c| keeps(&c)) {
        return Cow::Borrowed(package);
    }
    let mut package = package.clone();
    package.manifest.components.retain(|c| keeps(&c));
    Cow::Owned(package)
}

fn open_package(
    host: &ExtensionHost,
    package: &DiscoveredExtension,
    filter: Option<&PackageFilter>,
    (grant, approved): (Grant, &pi_ext_host::Capabilities),
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
    out.granted.push((id.clone(), approved.plain_words()));
    for (entry, component) in manifest.components.iter().zip(&loaded.components) {
        match entry.world {
            World::Tool => {
                // `open` described each tool component (from the start-up index when warm).
                let described = loaded
                    .tools
                    .iter()
                    .filter(|tool| Arc::ptr_eq(tool.component(), component))
                    .map(|tool| tool.tool_description().clone());
                add_tools(&id, &approved.replaces, component, described, out);
            }
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
            // `open` made one hook per hook component, in manifest order.
            World::Hook => {
                let hooks = loaded
                    .hooks
                    .iter()
                    .filter(|hook| Arc::ptr_eq(hook.component(), component))
                    .map(|hook| Arc::clone(hook) as Arc<dyn Hook>);
                out.hooks.extend(hooks);
            }
        }
    }
    add_resources(package, filter, out);
    out.loaded.push(id);
}

/// The skills, prompt templates, themes and agent definitions of `package` that `filter` keeps.
fn add_resources(
    package: &DiscoveredExtension,
    filter: Option<&PackageFilter>,
    out: &mut Extensions,
) {
    let resources = &package.manifest.resources;
    let pick = |kind, folder: &Option<PathBuf>| {
        folder
            .as_deref()
            .map(|folder| filter::pick(filter, kind, &package.dir, folder))
    };
    let paths = |picked: Picked| match picked {
        Picked::All(dir) => vec![dir],
        Picked::Some(paths) => paths,
    };
    if let Some(picked) = pick(ResourceKind::Skills, &resources.skills) {
        out.skill_dirs.extend(paths(picked));
    }
    if let Some(picked) = pick(ResourceKind::Prompts, &resources.prompts) {
        out.prompt_dirs.extend(paths(picked));
    }
    if let Some(picked) = pick(ResourceKind::Agents, &resources.agents) {
        let name = &package.manifest.name;
        out.agent_dirs
            .extend(paths(picked).into_iter().map(|path| (name.clone(), path)));
    }
    match pick(ResourceKind::Themes, &resources.themes) {
        Some(Picked::All(dir)) => out.themes.dirs.push(dir),
        Some(Picked::Some(files)) => out.themes.files.extend(files),
        None => {}
    }
}

/// The tools of one tool component. A tool with a built-in's name sees everything the model
/// sends that tool: it replaces the built-in only when the package asks for that (`replaces`,
/// approved at install), and the run says so.
fn add_tools(
    id: &str,
    replaces: &[String],
    component: &Arc<LazyComponent>,
    descriptions: impl Iterator<Item = ToolDescription>,
    out: &mut Extensions,
) {
    for description in descriptions {
        let name = &description.name;
        if pi_builtins::TOOL_NAMES.contains(&name.as_str()) {
            if !replaces.contains(name) {
                out.warnings.push(format!(
                    "Warning: extension \"{id}\": tool `{name}` not loaded: it would replace \
                     the built-in tool; the package must ask for that (`replaces = [\"{name}\"]` \
                     under [capabilities]) and be approved"
                ));
                continue;
            }
            out.warnings.push(format!(
                "Extension \"{id}\" replaces the built-in tool `{name}`."
            ));
        }
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

/// The package whose provider serves `model`, if an extension's does.
pub fn serving(extensions: &Extensions, model: &pi_ai::Model) -> Option<String> {
    extensions
        .providers
        .iter()
        .find(|p| {
            p.models()
                .iter()
                .any(|m| m.provider == model.provider && m.id == model.id)
                && !pi_ai::models::is_reserved_provider(&model.provider)
        })
        .map(|p| p.extension().to_string())
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
/// extension does not replace pi's own protocols). A model under a provider name that is not
/// the extension's to use is refused; the warnings say which and why.
pub fn register_providers(
    extensions: &Extensions,
    registry: &mut pi_ai::ModelRegistry,
) -> Vec<String> {
    let apis = pi_ai::registry();
    let mut warnings = Vec::new();
    for provider in &extensions.providers {
        let refused = registry.add_extension_models(provider.models().iter().cloned());
        for model in &refused {
            warnings.push(format!(
                "Warning: extension \"{}\": model {}/{} refused: the provider name \"{}\" \
                 belongs to pi, models.json or another extension; an extension's models must \
                 use a provider name of its own",
                provider.extension(),
                model.provider,
                model.id,
                model.provider
            ));
        }
        for model in provider.models() {
            if refused
                .iter()
                .any(|r| r.provider == model.provider && r.id == model.id)
            {
                continue;
            }
            if apis.get(&model.api).is_none() {
                apis.register(
                    &model.api,
                    Arc::clone(provider) as Arc<dyn pi_ai::ApiProvider>,
                );
            }
        }
    }
    warnings
}
