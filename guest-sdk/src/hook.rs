//! The `hook` world for Rust authors: the [`Hook`] trait, one method per event with a default
//! that changes nothing (continue, allow, keep), and [`export_hook!`](crate::export_hook),
//! which exports it and builds `describe` from the events named in it.
//!
//! ```ignore
//! use pi_guest_sdk::{Hook, ToolCallAnswer, ToolCallEvent};
//!
//! struct NoSudo;
//!
//! impl Hook for NoSudo {
//!     fn on_tool_call(event: ToolCallEvent) -> ToolCallAnswer {
//!         if event.tool == "bash" && event.input_json.contains("sudo") {
//!             ToolCallAnswer::Block("no sudo here".into())
//!         } else {
//!             ToolCallAnswer::Allow
//!         }
//!     }
//! }
//!
//! pi_guest_sdk::export_hook!(NoSudo: on_tool_call);
//! ```

use crate::{
    AgentEndEvent, BeforeAgentStartAnswer, BeforeAgentStartEvent, BeforeCompactAnswer,
    BeforeCompactEvent, CommandInfo, ContextEvent, InputAnswer, InputEvent, Message, SessionStart,
    ToolCallAnswer, ToolCallEvent, ToolResultAnswer, ToolResultEvent, TurnEndEvent,
};

/// A hook component. Implement the methods of the events you want and name them in
/// [`export_hook!`](crate::export_hook): the host calls only those. The defaults change
/// nothing, so a method left out behaves as if the component did not see the event.
pub trait Hook {
    /// The slash commands served, run by [`Hook::run_command`]. Called once; the host caches
    /// the answer.
    fn commands() -> Vec<CommandInfo> {
        Vec::new()
    }

    /// Runs one of the [`Hook::commands`]; `args` is the text after the name. An `Err` is
    /// shown to the user.
    fn run_command(name: String, args: String) -> Result<(), String> {
        let _ = args;
        Err(format!("no command `{name}`"))
    }

    /// A session was opened.
    fn on_session_start(event: SessionStart) {
        let _ = event;
    }

    /// The session is being closed.
    fn on_session_shutdown() {}

    /// The user submitted a prompt: go on with it, change it, or say it was handled.
    fn on_input(event: InputEvent) -> InputAnswer {
        let _ = event;
        InputAnswer::Continue
    }

    /// A run is about to start: change its system prompt or add a message.
    fn on_before_agent_start(event: BeforeAgentStartEvent) -> BeforeAgentStartAnswer {
        let _ = event;
        BeforeAgentStartAnswer {
            system_prompt: None,
            message: None,
        }
    }

    /// A request is about to be sent: `Some` replaces its messages for this request only.
    fn on_context(event: ContextEvent) -> Option<Vec<Message>> {
        let _ = event;
        None
    }

    /// A tool is about to run: allow, block, ask the user, or rewrite its arguments.
    fn on_tool_call(event: ToolCallEvent) -> ToolCallAnswer {
        let _ = event;
        ToolCallAnswer::Allow
    }

    /// A tool finished: keep its result or replace it.
    fn on_tool_result(event: ToolResultEvent) -> ToolResultAnswer {
        let _ = event;
        ToolResultAnswer::Keep
    }

    /// The session is about to compact: go on or cancel.
    fn on_before_compact(event: BeforeCompactEvent) -> BeforeCompactAnswer {
        let _ = event;
        BeforeCompactAnswer::Continue
    }

    /// A turn ended.
    fn on_turn_end(event: TurnEndEvent) {
        let _ = event;
    }

    /// A run ended.
    fn on_agent_end(event: AgentEndEvent) {
        let _ = event;
    }
}

/// The event a [`Hook`] method handles, by the method's name; another name does not compile.
#[doc(hidden)]
#[macro_export]
macro_rules! __hook_event {
    (on_session_start) => {
        $crate::EventKind::SessionStart
    };
    (on_session_shutdown) => {
        $crate::EventKind::SessionShutdown
    };
    (on_input) => {
        $crate::EventKind::Input
    };
    (on_before_agent_start) => {
        $crate::EventKind::BeforeAgentStart
    };
    (on_context) => {
        $crate::EventKind::Context
    };
    (on_tool_call) => {
        $crate::EventKind::ToolCall
    };
    (on_tool_result) => {
        $crate::EventKind::ToolResult
    };
    (on_before_compact) => {
        $crate::EventKind::BeforeCompact
    };
    (on_turn_end) => {
        $crate::EventKind::TurnEnd
    };
    (on_agent_end) => {
        $crate::EventKind::AgentEnd
    };
}

/// Exports a [`Hook`] implementation as the component's `hook-guest`, subscribed to the events
/// whose methods are named after the colon (a component that only serves commands names
/// none):
///
/// ```ignore
/// pi_guest_sdk::export_hook!(Todos: on_session_start, on_turn_end);
/// pi_guest_sdk::export_hook!(OnlyCommands);
/// ```
///
/// `describe` answers those events and [`Hook::commands`]. A name that is not a `Hook`
/// method does not compile.
#[macro_export]
macro_rules! export_hook {
    ($ty:ty $(: $($event:ident),* $(,)?)?) => {
        const _: () = {
            struct __PiHookExport;
            impl $crate::bindings::hook::exports::pi::extension::hook_guest::Guest for __PiHookExport {
                fn describe() -> $crate::HookInfo {
                    $crate::HookInfo {
                        events: ::std::vec![$($($crate::__hook_event!($event)),*)?],
                        commands: <$ty as $crate::Hook>::commands(),
                    }
                }
                fn on_session_start(event: $crate::SessionStart) {
                    <$ty as $crate::Hook>::on_session_start(event)
                }
                fn on_session_shutdown() {
                    <$ty as $crate::Hook>::on_session_shutdown()
                }
                fn on_input(event: $crate::InputEvent) -> $crate::InputAnswer {
                    <$ty as $crate::Hook>::on_input(event)
                }
                fn on_before_agent_start(
                    event: $crate::BeforeAgentStartEvent,
                ) -> $crate::BeforeAgentStartAnswer {
                    <$ty as $crate::Hook>::on_before_agent_start(event)
                }
                fn on_context(
                    event: $crate::ContextEvent,
                ) -> ::std::option::Option<::std::vec::Vec<$crate::Message>> {
                    <$ty as $crate::Hook>::on_context(event)
                }
                fn on_tool_call(event: $crate::ToolCallEvent) -> $crate::ToolCallAnswer {
                    <$ty as $crate::Hook>::on_tool_call(event)
                }
                fn on_tool_result(event: $crate::ToolResultEvent) -> $crate::ToolResultAnswer {
                    <$ty as $crate::Hook>::on_tool_result(event)
                }
                fn on_before_compact(
                    event: $crate::BeforeCompactEvent,
                ) -> $crate::BeforeCompactAnswer {
                    <$ty as $crate::Hook>::on_before_compact(event)
                }
                fn on_turn_end(event: $crate::TurnEndEvent) {
                    <$ty as $crate::Hook>::on_turn_end(event)
                }
                fn on_agent_end(event: $crate::AgentEndEvent) {
                    <$ty as $crate::Hook>::on_agent_end(event)
                }
                fn run_command(
                    name: ::std::string::String,
                    args: ::std::string::String,
                ) -> ::std::result::Result<(), ::std::string::String> {
                    <$ty as $crate::Hook>::run_command(name, args)
                }
            }
            $crate::bindings::hook::__export_hook_world!(__PiHookExport with_types_in $crate::bindings::hook);
        };
    };
}
