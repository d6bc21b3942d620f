//! pi-ai: model access for pi.
//!
//! One entry point, [`stream()`], turns a [`Model`], a [`Context`] and [`StreamOptions`] into an
//! [`AssistantMessageEventStream`]. Protocol adapters (`providers`) speak the wire protocols
//! (the four public APIs and the ChatGPT backend); failures of any kind end the stream with an
//! `error` event, never a panic. `auth` resolves the credential of each request and `oauth`
//! signs in and refreshes.

pub mod api_registry;
pub mod auth;
mod auth_error;
mod auth_store;
pub mod classify;
mod config_value;
pub mod event;
pub mod file_lock;
pub mod http;
pub mod http_client;
pub mod lexical_path;
pub mod models;
pub mod oauth;
pub mod options;
pub mod partial_json;
pub mod protocol;
pub mod providers;
pub mod retry;
pub mod schema;
pub mod sse;
pub mod stream;
pub mod sync;
pub mod terminal_text;
pub mod transform;
pub mod types;
mod upload;

pub use api_registry::{ApiRegistry, complete, registry, stream};
pub use auth::{AuthError, AuthStorage, Credential, ResolveOptions, resolve_api_key};
pub use classify::{is_context_overflow, is_retryable_error};
pub use config_value::{config_value_env_names, resolve_config_value};
pub use event::{AssistantMessageEvent, MessageBuilder, apply_event};
pub use models::{ModelRegistry, ModelsError, clamp_thinking_level, supported_thinking_levels};
pub use options::StreamOptions;
pub use schema::Schema;
pub use stream::{ApiProvider, AssistantMessageEventStream, EventSender};
pub use sync::lock;
pub use transform::transform_messages;
pub use types::*;
