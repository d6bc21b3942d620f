//! The extension host: one engine, one component cache, and the extensions opened from
//! discovered packages. Discovery and opening answer from the start-up index in the cache
//! (`index.rs`), so a warm start neither parses manifests, compiles nor instantiates
//! anything; components load on first use.

use crate::cache::{ComponentCache, ToolDescription};
use crate::component::LazyComponent;
use crate::discovery::{self, DiscoveredExtension, SearchPaths};
use crate::error::{Cause, ExtensionError, ExtensionId};
use crate::grant::Grant;
use crate::hook::{self, HookComponent, ServicesSlot};
use crate::manifest::{ManifestError, WitVersion, World};
use crate::tool::{self, ComponentTool};
use pi_ext_api::hooks::{HookInfo, HookServices};
use std::path::PathBuf;
use std::sync::{Arc, PoisonError, RwLock};
use wasmtime::Engine;

/// The engine and the cache shared by all extensions. Cheap to clone: clones share both.
#[derive(Clone)]
pub struct ExtensionHost {
    engine: Engine,
    cache: Arc<ComponentCache>,
    /// What the `ui` and `session` imports of every component opened here talk to.
    services: ServicesSlot,
}

/// An opened package: its components (loaded lazily) and the tools they serve.
pub struct LoadedExtension {
    pub extension: Arc<ExtensionId>,
    pub dir: PathBuf,
    pub components: Vec<Arc<LazyComponent>>,
    pub tools: Vec<Arc<ComponentTool>>,
    /// Its hook components, in manifest order.
    pub hooks: Vec<Arc<HookComponent>>,
}

impl ExtensionHost {
    /// An engine (with its epoch ticker) and a cache in `cache_dir`.
    pub fn new(cache_dir: impl Into<PathBuf>) -> Result<Self, String> {
        Ok(ExtensionHost {
            engine: crate::engine::new_engine()?,
            cache: Arc::new(ComponentCache::new(cache_dir)),
            services: Arc::new(RwLock::new(HookServices::none())),
        })
    }

    /// Where the `ui` and `session` imports of hook and tool components go from now on,
    /// components already opened included (until then: [`HookServices::none`]).
    pub fn set_hook_services(&self, services: HookServices) {
        *self
            .services
            .write()
            .unwrap_or_else(PoisonError::into_inner) = services;
    }

    /// `tool` with its `ui` and `session` calls going to this host's services (a tool
    /// built from cached descriptions, outside [`load`](Self::load)).
    pub fn serve_tool(&self, tool: crate::tool::ComponentTool) -> crate::tool::ComponentTool {
        tool.with_services(self.services.clone())
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    pub fn cache(&self) -> &Arc<ComponentCache> {
        &self.cache
    }

    /// Finds the packages of `paths` like [`discovery::discover`], taking each unchanged
    /// manifest from the start-up index instead of parsing it. Writes the index back when a
    /// package was added, changed or removed.
    pub fn discover(&self, paths: &SearchPaths) -> (Vec<DiscoveredExtension>, Vec<ManifestError>) {
        let mut index = self.cache.index();
        index.begin(crate::index::index_file(self.cache.dir(), paths));
        let found =
            discovery::discover_with(paths, |path| index.manifest(path, discovery::read_manifest));
        index.end_discovery();
        index.save();
        found
    }

    /// A component that loads (cache or compile) on first use.
    pub fn component(
        &self,
        extension: Arc<ExtensionId>,
        path: PathBuf,
        world: World,
        wit: WitVersion,
        grant: Arc<Grant>,
    ) -> Arc<LazyComponent> {
        Arc::new(LazyComponent::new(
            self.engine.clone(),
            self.cache.clone(),
            extension,
            path,
            world,
            wit,
            grant,
        ))
    }

    /// Tool descriptions of a tool component: from the cache, else by loading the component
    /// and calling `describe` once (then cached).
    pub fn describe(
        &self,
        component: &LazyComponent,
    ) -> Result<Vec<ToolDescription>, ExtensionError> {
        if let Some(tools) = self.cache.descriptions(component.path()) {
            return Ok(tools);
        }
        let loaded = component.get()?;
        let tools = tool::describe(&loaded)?;
        self.cache
            .store_descriptions(component.path(), &tools, loaded.artifact());
        Ok(tools)
    }

    /// What a hook component subscribes to and serves: from the cache, else by loading the
    /// component and calling `describe` once (then cached).
    pub fn hook_info(&self, component: &LazyComponent) -> Result<HookInfo, ExtensionError> {
        if let Some(info) = self.cache.hook_info(component.path()) {
            return Ok(info);
        }
        let loaded = component.get()?;
        let info = hook::describe(&loaded)?;
        self.cache
            .store_hook_info(component.path(), &info, loaded.artifact());
        Ok(info)
    }

    /// A hook component (its info from the cache when there), calling the host's services;
    /// `fail_closed` as the package's `[hook] fail = "closed"`.
    pub fn hook(
        &self,
        component: Arc<LazyComponent>,
        fail_closed: bool,
    ) -> Result<HookComponent, ExtensionError> {
        let info = self.hook_info(&component)?;
        Ok(HookComponent::new(
            component,
            info,
            fail_closed,
            self.services.clone(),
        ))
    }

    /// Opens a discovered package with `grant` (normally everything its manifest asked for
    /// and the user approved).
    pub fn open(
        &self,
        package: &DiscoveredExtension,
        grant: Grant,
    ) -> Result<LoadedExtension, ExtensionError> {
        let extension = Arc::new(ExtensionId {
            name: package.manifest.name.clone(),
            version: package.manifest.version.clone(),
        });
        let grant = Arc::new(grant);
        let mut components = Vec::new();
        let mut tools = Vec::new();
        let mut hooks = Vec::new();
        for entry in &package.manifest.components {
            let component = self.component(
                extension.clone(),
                package.dir.join(&entry.path),
                entry.world,
                package.manifest.wit,
                grant.clone(),
            );
            match entry.world {
                World::Tool => {
                    for description in self.describe(&component)? {
                        let tool = ComponentTool::new(component.clone(), description)
                            .with_services(self.services.clone());
                        tools.push(Arc::new(tool));
                    }
                }
                World::Hook => {
                    let fail_closed = package.manifest.hook.fail_closed;
                    hooks.push(Arc::new(self.hook(component.clone(), fail_closed)?));
                }
                World::Provider | World::Renderer | World::Compactor => {}
            }
            components.push(component);
        }
        if tools.len() > grant.limits.tools {
            return Err(ExtensionError::new(
                &extension,
                Cause::Describe(format!(
                    "the package offers {} tools; at most {} are allowed per package",
                    tools.len(),
                    grant.limits.tools
                )),
            ));
        }
        // Descriptions learnt just now go into the start-up index for the next run.
        self.cache.index().save();
        Ok(LoadedExtension {
            extension,
            dir: package.dir.clone(),
            components,
            tools,
            hooks,
        })
    }
}
