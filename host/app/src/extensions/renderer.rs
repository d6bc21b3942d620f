//! Renderer components as the UI's message renderers. A component is loaded (compiled,
//! instantiated, asked what it draws) the first time the UI asks whether it draws something,
//! so start-up stays fast; one that fails to load draws nothing and pi's own view is used.

use pi_ext_api::{ExtensionFailure, MessageRenderer, RenderTarget, StyledLine};
use pi_ext_host::{ComponentRenderer, LazyComponent};
use std::sync::{Arc, OnceLock};

/// One renderer component of an extension.
pub struct ExtensionRenderer {
    extension: String,
    component: Arc<LazyComponent>,
    loaded: OnceLock<Option<ComponentRenderer>>,
}

impl ExtensionRenderer {
    pub fn new(extension: String, component: Arc<LazyComponent>) -> Self {
        ExtensionRenderer {
            extension,
            component,
            loaded: OnceLock::new(),
        }
    }

    fn renderer(&self) -> Option<&ComponentRenderer> {
        let loaded = self.loaded.get_or_init(|| {
            let loaded = self
                .component
                .get()
                .and_then(ComponentRenderer::load)
                .map_err(|error| {
                    tracing::warn!("{}: renderer not loaded: {error}", self.extension);
                });
            loaded.ok()
        });
        loaded.as_ref()
    }
}

impl MessageRenderer for ExtensionRenderer {
    fn handles(&self, target: &RenderTarget<'_>) -> bool {
        self.renderer().is_some_and(|r| r.handles(target))
    }

    fn render(
        &self,
        target: &RenderTarget<'_>,
        width: u32,
    ) -> Result<Option<Vec<StyledLine>>, ExtensionFailure> {
        match self.renderer() {
            Some(renderer) => renderer.render(target, width),
            None => Ok(None),
        }
    }
}
