//! pi-ai: model access for pi.
//!
//! One entry point, [`stream`], turns a [`Model`], a [`Context`] and [`StreamOptions`] into an
//! [`AssistantMessageEventStream`]. Protocol adapters (`providers`) speak the four wire
//! protocols; failures of any kind end the stream with an `error` event, never a panic.

pub mod auth;
pub mod event;
pub mod options;
pub mod partial_json;
pub mod protocol;
pub mod providers;
pub mod retry;
pub mod sse;
pub mod stream;
pub mod types;

pub use event::{AssistantMessageEvent, MessageBuilder, apply_event};
pub use options::StreamOptions;
pub use stream::{
    ApiProvider, ApiRegistry, AssistantMessageEventStream, EventSender, complete, registry, stream,
};
pub use types::*;
