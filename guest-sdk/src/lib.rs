//! Write pi extensions in Rust.
//!
//! pi extensions are WebAssembly components implementing one of the worlds of the
//! `pi:extension` WIT package (`wit/` in the pi repository: that WIT is the contract for every
//! language). This crate hides the generated bindings behind one small trait per world and an
//! export macro:
//!
//! ```ignore
//! use pi_guest_sdk::{Tool, ToolCall, ToolDefinition, ToolResult, ExecutionMode, text};
//!
//! struct Hello;
//!
//! impl Tool for Hello {
//!     fn describe() -> Vec<ToolDefinition> {
//!         vec![ToolDefinition {
//!             name: "hello".into(),
//!             label: "Hello".into(),
//!             description: "Greets someone.".into(),
//!             parameters_schema: r#"{"type":"object","properties":{"name":{"type":"string"}}}"#.into(),
//!             prompt_snippet: None,
//!             prompt_guidelines: vec![],
//!             execution_mode: ExecutionMode::Parallel,
//!         }]
//!     }
//!
//!     fn execute(call: ToolCall) -> Result<ToolResult, String> {
//!         pi_guest_sdk::host::progress(text("thinking about it"));
//!         Ok(text(&format!("hello, {}", call.arguments)))
//!     }
//! }
//!
//! pi_guest_sdk::export_tool!(Hello);
//! ```
//!
//! Build with `cargo build --target wasm32-wasip2 --release` and a `crate-type = ["cdylib"]`
//! library; the `.wasm` in `target/wasm32-wasip2/release/` is the component. Name it in the
//! package's `pi-extension.toml` together with its world and the capabilities it needs.
//!
//! Files are reached through `std::fs` (the workspace is preopened at its real path when
//! granted), environment variables through `std::env` (only granted names exist).

mod hook;
pub mod http;

pub use hook::Hook;

/// Generated bindings, one module per world. Prefer the re-exports and traits at the root.
pub mod bindings {
    /// The `tool` world; also the home of the shared `types` and `host` interfaces.
    pub mod tool {
        wit_bindgen::generate!({
            path: "../wit",
            world: "pi:extension/tool",
            pub_export_macro: true,
            export_macro_name: "__export_tool_world",
            default_bindings_module: "pi_guest_sdk::bindings::tool",
            generate_all,
        });
    }

    /// The `provider` world (with `wasi:http`).
    pub mod provider {
        wit_bindgen::generate!({
            path: "../wit",
            world: "pi:extension/provider",
            pub_export_macro: true,
            export_macro_name: "__export_provider_world",
            default_bindings_module: "pi_guest_sdk::bindings::provider",
            with: {
                "pi:extension/types@0.3.0": crate::bindings::tool::pi::extension::types,
                "pi:extension/host@0.3.0": crate::bindings::tool::pi::extension::host,
            },
            generate_all,
        });
    }

    /// The `renderer` world.
    pub mod renderer {
        wit_bindgen::generate!({
            path: "../wit",
            world: "pi:extension/renderer",
            pub_export_macro: true,
            export_macro_name: "__export_renderer_world",
            default_bindings_module: "pi_guest_sdk::bindings::renderer",
            with: {
                "pi:extension/types@0.3.0": crate::bindings::tool::pi::extension::types,
                "pi:extension/host@0.3.0": crate::bindings::tool::pi::extension::host,
            },
        });
    }

    /// The `hook` world: lifecycle events, tool gates and slash commands. Its `ui`, `session`
    /// and `hook-types` are the `tool` world's (a 0.3.0 tool imports `ui` and `session` too).
    pub mod hook {
        wit_bindgen::generate!({
            path: "../wit",
            world: "pi:extension/hook",
            pub_export_macro: true,
            export_macro_name: "__export_hook_world",
            default_bindings_module: "pi_guest_sdk::bindings::hook",
            with: {
                "pi:extension/types@0.3.0": crate::bindings::tool::pi::extension::types,
                "pi:extension/host@0.3.0": crate::bindings::tool::pi::extension::host,
                "pi:extension/hook-types@0.3.0": crate::bindings::tool::pi::extension::hook_types,
                "pi:extension/ui@0.3.0": crate::bindings::tool::pi::extension::ui,
                "pi:extension/session@0.3.0": crate::bindings::tool::pi::extension::session,
            },
        });
    }

    /// The `compactor` world.
    pub mod compactor {
        wit_bindgen::generate!({
            path: "../wit",
            world: "pi:extension/compactor",
            pub_export_macro: true,
            export_macro_name: "__export_compactor_world",
            default_bindings_module: "pi_guest_sdk::bindings::compactor",
            with: {
                "pi:extension/types@0.3.0": crate::bindings::tool::pi::extension::types,
                "pi:extension/host@0.3.0": crate::bindings::tool::pi::extension::host,
            },
        });
    }
}

pub use bindings::tool::pi::extension::types::*;

/// The `hook` world's events and answers.
pub use bindings::tool::pi::extension::hook_types::{
    AgentEndEvent, BeforeAgentStartAnswer, BeforeAgentStartEvent, BeforeCompactAnswer,
    BeforeCompactEvent, CommandInfo, CompactReason, ContextEvent, EventKind, HookInfo, InputAnswer,
    InputEvent, InputSource, InputTransform, OutgoingMessage, SessionStart, SessionStartReason,
    SystemPromptChange, ToolCallAnswer, ToolCallEvent, ToolResultAnswer, ToolResultChange,
    ToolResultEvent, TurnEndEvent,
};

/// Host services every component has: logging, progress, session facts.
pub mod host {
    pub use crate::bindings::tool::pi::extension::host::{
        LogLevel, aborted, cwd, log, progress, session_id,
    };
}

/// Whole-directory listings of `wasi:filesystem` directories (one host call per directory,
/// entry types from the listing): for walking large trees.
pub mod directory {
    pub use crate::bindings::tool::pi::extension::directory::*;
}

/// `wasi:filesystem` (preview 2) itself: descriptors to open, read and list through the host
/// directly.
pub mod filesystem {
    pub use crate::bindings::tool::wasi::filesystem::{preopens, types};
}

/// Talking to the user (`notify`, `confirm`, `select`, `input`, `set-status`, `attention`);
/// only usable when the extension was granted `ui` (without it dialogs answer `None` and the
/// rest is dropped). Hook components and, since 0.3.0, tools import it.
pub mod ui {
    pub use crate::bindings::tool::pi::extension::ui::*;
}

/// The session (`send-message`, `append-entry`, `entries`, `set-session-name`, `set-label`);
/// only usable when the extension was granted `session` (without it each call is an `Err`
/// naming the capability). Hook components and, since 0.3.0, tools import it.
pub mod session {
    pub use crate::bindings::tool::pi::extension::session::*;
}

/// Host processes; only usable when the extension was granted `process`.
pub mod process {
    pub use crate::bindings::tool::pi::extension::process::*;
}

/// Model completions; only usable by compactors granted `llm`.
pub mod llm {
    pub use crate::bindings::compactor::pi::extension::llm::complete;
}

/// Sends a streamed event to the host (providers only). False when nobody listens any more.
pub fn emit(event: &StreamEvent) -> bool {
    bindings::provider::pi::extension::stream_sink::emit(event)
}

/// A successful tool result holding one text block.
pub fn text(text: &str) -> ToolResult {
    ToolResult {
        content: vec![ContentBlock::Text(text.to_owned())],
        details: None,
        is_error: false,
    }
}

/// A tool component: serves one or more tools.
pub trait Tool {
    /// The tools served; called once, the host caches the answer.
    fn describe() -> Vec<ToolDefinition>;
    /// Runs one call.
    fn execute(call: ToolCall) -> Result<ToolResult, String>;
}

/// A provider component: serves models and streams answers.
pub trait Provider {
    /// The models served.
    fn models() -> Vec<ModelInfo>;
    /// Streams one answer through [`emit`]; returns the stop reason.
    fn stream(
        model: ModelInfo,
        context: LlmContext,
        options: StreamOptions,
    ) -> Result<StopReason, String>;
}

/// A renderer component.
pub trait Renderer {
    /// Custom message types drawn.
    fn custom_types() -> Vec<String>;
    /// Tool names whose results are drawn.
    fn tool_names() -> Vec<String>;
    /// Renders at most `width` cells wide; `None` lets pi draw it.
    fn render(subject: RenderSubject, width: u32) -> Option<Vec<StyledLine>>;
}

/// A compaction override.
pub trait Compactor {
    /// Decides how to compact.
    fn compact(preparation: CompactionPreparation) -> CompactionDecision;
}

/// Exports a [`Tool`] implementation as the component's `tool-guest`.
#[macro_export]
macro_rules! export_tool {
    ($ty:ty) => {
        const _: () = {
            struct __PiToolExport;
            impl $crate::bindings::tool::exports::pi::extension::tool_guest::Guest for __PiToolExport {
                fn describe() -> ::std::vec::Vec<$crate::ToolDefinition> {
                    <$ty as $crate::Tool>::describe()
                }
                fn execute(
                    call: $crate::ToolCall,
                ) -> ::std::result::Result<$crate::ToolResult, ::std::string::String> {
                    <$ty as $crate::Tool>::execute(call)
                }
            }
            $crate::bindings::tool::__export_tool_world!(__PiToolExport with_types_in $crate::bindings::tool);
        };
    };
}

/// Exports a [`Provider`] implementation as the component's `provider-guest`.
#[macro_export]
macro_rules! export_provider {
    ($ty:ty) => {
        const _: () = {
            struct __PiProviderExport;
            impl $crate::bindings::provider::exports::pi::extension::provider_guest::Guest
                for __PiProviderExport
            {
                fn models() -> ::std::vec::Vec<$crate::ModelInfo> {
                    <$ty as $crate::Provider>::models()
                }
                fn stream(
                    model: $crate::ModelInfo,
                    context: $crate::LlmContext,
                    options: $crate::StreamOptions,
                ) -> ::std::result::Result<$crate::StopReason, ::std::string::String> {
                    <$ty as $crate::Provider>::stream(model, context, options)
                }
            }
            $crate::bindings::provider::__export_provider_world!(__PiProviderExport with_types_in $crate::bindings::provider);
        };
    };
}

/// Exports a [`Renderer`] implementation as the component's `renderer-guest`.
#[macro_export]
macro_rules! export_renderer {
    ($ty:ty) => {
        const _: () = {
            struct __PiRendererExport;
            impl $crate::bindings::renderer::exports::pi::extension::renderer_guest::Guest
                for __PiRendererExport
            {
                fn custom_types() -> ::std::vec::Vec<::std::string::String> {
                    <$ty as $crate::Renderer>::custom_types()
                }
                fn tool_names() -> ::std::vec::Vec<::std::string::String> {
                    <$ty as $crate::Renderer>::tool_names()
                }
                fn render(
                    subject: $crate::RenderSubject,
                    width: u32,
                ) -> ::std::option::Option<::std::vec::Vec<$crate::StyledLine>> {
                    <$ty as $crate::Renderer>::render(subject, width)
                }
            }
            $crate::bindings::renderer::__export_renderer_world!(__PiRendererExport with_types_in $crate::bindings::renderer);
        };
    };
}

/// Exports a [`Compactor`] implementation as the component's `compactor-guest`.
#[macro_export]
macro_rules! export_compactor {
    ($ty:ty) => {
        const _: () = {
            struct __PiCompactorExport;
            impl $crate::bindings::compactor::exports::pi::extension::compactor_guest::Guest
                for __PiCompactorExport
            {
                fn compact(preparation: $crate::CompactionPreparation) -> $crate::CompactionDecision {
                    <$ty as $crate::Compactor>::compact(preparation)
                }
            }
            $crate::bindings::compactor::__export_compactor_world!(__PiCompactorExport with_types_in $crate::bindings::compactor);
        };
    };
}
