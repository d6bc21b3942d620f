//! Hook components as pi-ext-api [`Hook`]s. Each event runs on the component's cached
//! `InstancePre` in a fresh store, on a thread of its own under a watchdog (as tool calls do),
//! with the hook deadline: 2 s, or the package's lower `[limits] timeout-ms`. Time spent in a
//! `ui` dialog does not count (`clock.rs`). What the component subscribes to and serves comes
//! from `describe`, asked once and kept in the start-up index, so start-up neither compiles
//! nor instantiates hooks.

use crate::bindings::{HookPre, Pre};
use crate::component::{LazyComponent, LoadedComponent};
use crate::error::{Cause, ExtensionError};
use crate::hook_convert::{self, WitAnswer, WitEvent};
use crate::state::CallContext;
use crate::watchdog::{self, Watch};
use pi_agent::BoxFuture;
use pi_ext_api::ExtensionFailure;
use pi_ext_api::hooks::{
    CommandInfo, Hook, HookAnswer, HookEvent, HookEventKind, HookInfo, HookServices,
};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use wasmtime::Store;

/// The deadline of one hook call unless the package sets a lower one.
pub const HOOK_DEADLINE: Duration = Duration::from_secs(2);

/// The embedder's services, shared by the host and every component it opened, so that
/// setting them later reaches components opened before.
pub(crate) type ServicesSlot = Arc<RwLock<HookServices>>;

pub(crate) fn services_of(slot: &ServicesSlot) -> HookServices {
    slot.read().unwrap_or_else(PoisonError::into_inner).clone()
}

/// One hook component of a package.
pub struct HookComponent {
    component: Arc<LazyComponent>,
    source: Arc<str>,
    info: Arc<HookInfo>,
    fail_closed: bool,
    services: ServicesSlot,
}

/// Asks a loaded hook component what it wants and serves, bounded like any call.
pub fn describe(component: &Arc<LoadedComponent>) -> Result<HookInfo, ExtensionError> {
    let loaded = component.clone();
    watchdog::spawn(
        &component.extension,
        CancellationToken::new(),
        move |watch| {
            let pre = hook_pre(&loaded)?;
            let mut store = loaded.store(context(&loaded, watch))?;
            let info = crate::bindings::describe_hook(pre, &mut store)
                .map_err(|e| loaded.classify(&e, &store))?;
            store.data().flush_output();
            hook_convert::hook_info(info).map_err(|reason| loaded.error(Cause::Describe(reason)))
        },
    )?
    .wait_blocking()
}

fn hook_pre(component: &LoadedComponent) -> Result<&HookPre, ExtensionError> {
    match &component.pre {
        Pre::Hook(pre) => Ok(pre),
        _ => Err(component.error(Cause::Runtime("not a hook component".into()))),
    }
}

/// The deadline of a hook call of `component`.
pub fn deadline(component: &LoadedComponent) -> Duration {
    HOOK_DEADLINE.min(component.grant.limits.timeout)
}

fn context(component: &LoadedComponent, watch: Watch) -> CallContext {
    let mut context = CallContext::new(deadline(component));
    context.watch = watch;
    context
}

/// Calls the export of `event` in a fresh instance.
fn dispatch(
    pre: &HookPre,
    store: &mut Store<crate::state::HostState>,
    event: &WitEvent,
) -> wasmtime::Result<WitAnswer> {
    let instance = pre.instantiate(&mut *store)?;
    let guest = instance.pi_extension_hook_guest();
    Ok(match event {
        WitEvent::SessionStart(e) => {
            guest.call_on_session_start(store, e)?;
            WitAnswer::Observed
        }
        WitEvent::SessionShutdown => {
            guest.call_on_session_shutdown(store)?;
            WitAnswer::Observed
        }
        WitEvent::Input(e) => WitAnswer::Input(guest.call_on_input(store, e)?),
        WitEvent::BeforeAgentStart(e) => {
            WitAnswer::BeforeAgentStart(guest.call_on_before_agent_start(store, e)?)
        }
        WitEvent::Context(e) => WitAnswer::Context(guest.call_on_context(store, e)?),
        WitEvent::ToolCall(e) => WitAnswer::ToolCall(guest.call_on_tool_call(store, e)?),
        WitEvent::ToolResult(e) => WitAnswer::ToolResult(guest.call_on_tool_result(store, e)?),
        WitEvent::BeforeCompact(e) => {
            WitAnswer::BeforeCompact(guest.call_on_before_compact(store, *e)?)
        }
        WitEvent::TurnEnd(e) => {
            guest.call_on_turn_end(store, e)?;
            WitAnswer::Observed
        }
        WitEvent::AgentEnd(e) => {
            guest.call_on_agent_end(store, e)?;
            WitAnswer::Observed
        }
    })
}

/// Answers one event in a fresh store on the calling (blocking) thread, without a watchdog or
/// services (the epoch deadline still applies): for embedders and benchmarks that call a
/// component directly.
pub fn answer_once(
    component: &LoadedComponent,
    event: &HookEvent,
) -> Result<HookAnswer, ExtensionError> {
    let pre = hook_pre(component)?;
    let mut store = component.store(CallContext::new(deadline(component)))?;
    let answer = dispatch(pre, &mut store, &hook_convert::to_wit(event))
        .map_err(|e| component.classify(&e, &store))?;
    hook_convert::from_wit(event.kind(), answer, &component.grant.limits)
        .map_err(|reason| component.error(Cause::Guest(reason)))
}

/// The answer a hook gives to an event it did not subscribe to: nothing changes.
fn neutral(kind: HookEventKind) -> HookAnswer {
    use pi_ext_api::hooks::{BeforeCompactAnswer, InputAnswer, ToolCallAnswer, ToolResultAnswer};
    match kind {
        HookEventKind::Input => HookAnswer::Input(InputAnswer::Continue),
        HookEventKind::BeforeAgentStart => HookAnswer::BeforeAgentStart {
            system_prompt: None,
            message: None,
        },
        HookEventKind::Context => HookAnswer::Context(None),
        HookEventKind::ToolCall => HookAnswer::ToolCall(ToolCallAnswer::Allow),
        HookEventKind::ToolResult => HookAnswer::ToolResult(ToolResultAnswer::Keep),
        HookEventKind::BeforeCompact => HookAnswer::BeforeCompact(BeforeCompactAnswer::Continue),
        _ => HookAnswer::Observed,
    }
}

fn failure(error: &ExtensionError) -> ExtensionFailure {
    ExtensionFailure(format!("{}: {}", error.extension, error.cause))
}

impl HookComponent {
    pub(crate) fn new(
        component: Arc<LazyComponent>,
        info: HookInfo,
        fail_closed: bool,
        services: ServicesSlot,
    ) -> Self {
        HookComponent {
            source: component.extension.to_string().into(),
            component,
            info: Arc::new(info),
            fail_closed,
            services,
        }
    }

    pub fn component(&self) -> &Arc<LazyComponent> {
        &self.component
    }

    pub fn info(&self) -> &HookInfo {
        &self.info
    }

    /// Runs `call` on the loaded component on its own thread under the watchdog, with the
    /// hook deadline, `cancel` as the abort and the embedder's services.
    async fn run<T, F>(&self, cancel: CancellationToken, call: F) -> Result<T, ExtensionError>
    where
        T: Send + 'static,
        F: FnOnce(
                &LoadedComponent,
                &mut Store<crate::state::HostState>,
            ) -> Result<T, ExtensionError>
            + Send
            + 'static,
    {
        let component = self.component.clone();
        let services = services_of(&self.services);
        let abort = cancel.clone();
        watchdog::spawn(&self.component.extension, cancel, move |watch| {
            let loaded = component.get()?;
            let mut context = context(&loaded, watch);
            context.abort = abort;
            context.services = services;
            let mut store = loaded.store(context)?;
            let result = call(&loaded, &mut store);
            store.data().flush_output();
            result
        })?
        .wait()
        .await
    }

    /// Answers one event (see [`Hook::handle`]).
    pub async fn answer(
        &self,
        event: Arc<HookEvent>,
        cancel: CancellationToken,
    ) -> Result<HookAnswer, ExtensionFailure> {
        let kind = event.kind();
        if !self.wants(kind) {
            return Ok(neutral(kind));
        }
        let wit_event = hook_convert::to_wit(&event);
        let limits = self.component.grant.limits.clone();
        let answer = self
            .run(cancel, move |loaded, store| {
                let pre = hook_pre(loaded)?;
                dispatch(pre, store, &wit_event).map_err(|e| loaded.classify(&e, store))
            })
            .await
            .map_err(|e| failure(&e))?;
        let answer = hook_convert::from_wit(kind, answer, &limits)
            .map_err(|reason| ExtensionFailure(format!("{}: {reason}", self.source)))?;
        Ok(match (answer, &*event) {
            (HookAnswer::Context(Some(changed)), HookEvent::Context { messages }) => {
                HookAnswer::Context(Some(hook_convert::keep_unchanged(messages, changed)))
            }
            (answer, _) => answer,
        })
    }

    /// Runs one of its commands (see [`Hook::run_command`]).
    pub async fn command(
        &self,
        name: &str,
        args: &str,
        cancel: CancellationToken,
    ) -> Result<(), ExtensionFailure> {
        if !self.info.commands.iter().any(|c| c.name == name) {
            return Err(ExtensionFailure(format!(
                "{}: serves no command `{name}`",
                self.source
            )));
        }
        let (name, args) = (name.to_owned(), args.to_owned());
        self.run(cancel, move |loaded, store| {
            let pre = hook_pre(loaded)?;
            let instance = pre
                .instantiate(&mut *store)
                .map_err(|e| loaded.classify(&e, store))?;
            instance
                .pi_extension_hook_guest()
                .call_run_command(&mut *store, &name, &args)
                .map_err(|e| loaded.classify(&e, store))?
                .map_err(|message| {
                    loaded.error(Cause::Guest(crate::bounds::cut_owned(message, 4096)))
                })
        })
        .await
        .map_err(|e| failure(&e))
    }
}

impl Hook for HookComponent {
    fn source(&self) -> &str {
        &self.source
    }

    fn wants(&self, kind: HookEventKind) -> bool {
        self.info.events.contains(&kind)
    }

    fn commands(&self) -> &[CommandInfo] {
        &self.info.commands
    }

    fn fails_closed(&self) -> bool {
        self.fail_closed
    }

    fn handle(
        &self,
        event: Arc<HookEvent>,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<HookAnswer, ExtensionFailure>> {
        let this = self.clone_handle();
        Box::pin(async move { this.answer(event, cancel).await })
    }

    fn run_command(
        &self,
        name: &str,
        args: &str,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<(), ExtensionFailure>> {
        let this = self.clone_handle();
        let (name, args) = (name.to_owned(), args.to_owned());
        Box::pin(async move { this.command(&name, &args, cancel).await })
    }
}

impl HookComponent {
    /// A copy sharing the component (the trait's futures are `'static`).
    fn clone_handle(&self) -> HookComponent {
        HookComponent {
            component: self.component.clone(),
            source: self.source.clone(),
            info: self.info.clone(),
            fail_closed: self.fail_closed,
            services: self.services.clone(),
        }
    }
}
