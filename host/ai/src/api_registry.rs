//! The unified entry point: [`stream`] looks the model's `api` up in the process-wide
//! [`ApiRegistry`] (the four built-in protocols, plus whatever extensions register) and
//! returns that provider's event stream.

use crate::options::StreamOptions;
use crate::stream::{ApiProvider, AssistantMessageEventStream};
use crate::types::{AssistantMessage, Context, Model};
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

/// Maps `api` values to providers. [`ApiRegistry::builtin`] holds the four HTTP protocols;
/// extensions register more.
#[derive(Default)]
pub struct ApiRegistry {
    providers: RwLock<HashMap<String, Arc<dyn ApiProvider>>>,
}

impl ApiRegistry {
    /// The four built-in protocols.
    pub fn builtin() -> Self {
        let registry = ApiRegistry::default();
        for provider in crate::http::builtin() {
            registry.register(provider.0, provider.1);
        }
        registry
    }

    pub fn register(&self, api: &str, provider: Arc<dyn ApiProvider>) {
        if let Ok(mut map) = self.providers.write() {
            map.insert(api.to_owned(), provider);
        }
    }

    pub fn get(&self, api: &str) -> Option<Arc<dyn ApiProvider>> {
        self.providers.read().ok()?.get(api).cloned()
    }

    /// Streams through the provider registered for `model.api`.
    pub fn stream(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        match self.get(&model.api) {
            Some(provider) => provider.stream(model, context, options),
            None => AssistantMessageEventStream::failed(
                model,
                format!(
                    "no adapter for api \"{}\" (model {}/{})",
                    model.api, model.provider, model.id
                ),
            ),
        }
    }
}

/// The process-wide registry used by [`stream`].
pub fn registry() -> &'static ApiRegistry {
    static REGISTRY: OnceLock<ApiRegistry> = OnceLock::new();
    REGISTRY.get_or_init(ApiRegistry::builtin)
}

/// Streams one model response. Must be called inside a tokio runtime.
pub fn stream(
    model: &Model,
    context: &Context,
    options: StreamOptions,
) -> AssistantMessageEventStream {
    registry().stream(model, context, options)
}

/// Like [`stream`], returning only the final message.
pub async fn complete(
    model: &Model,
    context: &Context,
    options: StreamOptions,
) -> AssistantMessage {
    stream(model, context, options).result().await
}
