//! The linkers of one host, one per world, WIT version and set of optional imports. Building
//! one registers every WASI function and costs more than the rest of loading a component from
//! the cache; components of the same kind share theirs, so only the first load of a kind pays.

use crate::bindings::Optional;
use crate::manifest::{WitVersion, World};
use crate::state::HostState;
use std::sync::{Arc, Mutex, PoisonError};
use wasmtime::component::Linker;

type Kind = ((World, WitVersion), Optional);

/// The linkers built so far (a handful at most: a short list beats a map).
#[derive(Default)]
pub(crate) struct Linkers {
    built: Mutex<Vec<(Kind, Arc<Linker<HostState>>)>>,
}

impl Linkers {
    /// The linker of this kind, built with `build` the first time.
    pub(crate) fn get(
        &self,
        world: (World, WitVersion),
        optional: Optional,
        build: impl FnOnce() -> wasmtime::Result<Linker<HostState>>,
    ) -> wasmtime::Result<Arc<Linker<HostState>>> {
        let kind = (world, optional);
        // Held while building: components loading side by side build one linker, not two.
        let mut built = self.built.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, linker)) = built.iter().find(|(k, _)| *k == kind) {
            return Ok(linker.clone());
        }
        let linker = Arc::new(build()?);
        built.push((kind, linker.clone()));
        Ok(linker)
    }
}
