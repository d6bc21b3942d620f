//! Hook components as pi-ext-api [`Hook`]s. Each event runs on a thread of its own under a
//! watchdog (as tool calls do), with the hook deadline: 2 s, or the package's lower `[limits]
//! timeout-ms`. Time spent in a `ui` dialog does not count (`clock.rs`). A hook answers many
//! small events, for which a fresh store and instance would cost more than the call itself:
//! the instance a call leaves behind serves the next one ([`Warm`]), unless that call failed
//! or printed; a component keeps its memory between events, as pi's extensions keep theirs. What the component subscribes to and serves comes
//! from `describe`, asked once and kept in the start-up index, so start-up neither compiles
//! nor instantiates hooks.

use crate::bindings::{HookInstance, HookPre, Pre};
use crate::component::{LazyComponent, LoadedComponent};
use crate::error::{Cause, ExtensionError};
use crate::grant::Grant;
use crate::hook_convert::{self, WitAnswer, WitEvent};
use crate::state::CallContext;
use crate::watchdog::{self, Watch};
use pi_agent::BoxFuture;
use pi_ext_api::ExtensionFailure;
use pi_ext_api::hooks::{
    CommandInfo, Hook, HookAnswer, HookEvent, HookEventKind, HookInfo, HookServices,
};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
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
    warm: Arc<Mutex<Option<Warm>>>,
}

/// An instance kept for the next call, with its store and the component it came from (which
/// it keeps loaded).
struct Warm {
    loaded: Arc<LoadedComponent>,
    store: Store<crate::state::HostState>,
    instance: HookInstance,
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

/// The deadline of a hook call of a component with `grant`.
pub fn deadline(grant: &Grant) -> Duration {
    HOOK_DEADLINE.min(grant.limits.timeout)
}

fn context(component: &LoadedComponent, watch: Watch) -> CallContext {
    let mut context = CallContext::new(deadline(&component.grant));
    context.watch = watch;
    context
}

/// Calls the export of `event`.
fn dispatch(
    instance: &HookInstance,
    store: &mut Store<crate::state::HostState>,
    event: &WitEvent,
) -> wasmtime::Result<WitAnswer> {
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
    let mut store = component.store(CallContext::new(deadline(&component.grant)))?;
    let answer = pre
        .instantiate(&mut store)
        .and_then(|instance| dispatch(&instance, &mut store, &hook_convert::to_wit(event)))
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

/// The warm instance, if no other call has it.
fn take(slot: &Mutex<Option<Warm>>) -> Option<Warm> {
    slot.lock().unwrap_or_else(PoisonError::into_inner).take()
}

/// Keeps `warm` for the next call, unless a call running alongside kept its own first.
fn keep(slot: &Mutex<Option<Warm>>, warm: Warm) {
    let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
    if slot.is_none() {
        *slot = Some(warm);
    }
}

/// A new instance of the component (loaded now if needed) in a store for `context`.
fn instantiate(component: &LazyComponent, context: CallContext) -> Result<Warm, ExtensionError> {
    let loaded = component.get()?;
    let mut store = loaded.store(context)?;
    let instance = hook_pre(&loaded)?
        .instantiate(&mut store)
        .map_err(|e| loaded.classify(&e, &store))?;
    Ok(Warm {
        loaded,
        store,
        instance,
    })
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
            warm: Arc::default(),
        }
    }

    pub fn component(&self) -> &Arc<LazyComponent> {
        &self.component
    }

    pub fn info(&self) -> &HookInfo {
        &self.info
    }

    /// Runs `call` on its own thread under the watchdog, with the hook deadline, `cancel` as
    /// the abort and the embedder's services, in the warm instance if there is one, else in a
    /// new one.
    async fn run<T, F>(&self, cancel: CancellationToken, call: F) -> Result<T, ExtensionError>
    where
        T: Send + 'static,
        F: FnOnce(
                &LoadedComponent,
                &mut Store<crate::state::HostState>,
                &HookInstance,
            ) -> Result<T, ExtensionError>
            + Send
            + 'static,
    {
        let component = self.component.clone();
        let services = services_of(&self.services);
        let session_id = services.session.session_id();
        let abort = cancel.clone();
        let warm_slot = self.warm.clone();
        watchdog::spawn(&self.component.extension, cancel, move |watch| {
            let mut context = CallContext::new(deadline(&component.grant));
            context.watch = watch;
            context.abort = abort;
            context.services = services;
            context.session_id = session_id;
            let mut warm = match take(&warm_slot) {
                Some(mut warm) => {
                    warm.store.data_mut().begin(context);
                    warm.store.set_epoch_deadline(1);
                    warm
                }
                None => instantiate(&component, context)?,
            };
            let result = call(&warm.loaded, &mut warm.store, &warm.instance);
            let state = warm.store.data_mut();
            state.flush_output();
            if result.is_ok() && !state.printed() {
                // The services and abort of this call are not the next one's.
                state.begin(CallContext::new(Duration::ZERO));
                keep(&warm_slot, warm);
            }
            result
        })?
        .wait_short()
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
            .run(cancel, move |loaded, store, instance| {
                dispatch(instance, store, &wit_event).map_err(|e| loaded.classify(&e, store))
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
        self.run(cancel, move |loaded, store, instance| {
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

    fn read_only(&self) -> Option<Arc<dyn Hook>> {
        let grant = self.component.grant.read_only();
        if grant == *self.component.grant {
            return None;
        }
        Some(Arc::new(HookComponent {
            component: Arc::new(self.component.with_grant(Arc::new(grant))),
            source: Arc::clone(&self.source),
            info: Arc::clone(&self.info),
            fail_closed: self.fail_closed,
            services: self.services.clone(),
            warm: Arc::default(),
        }))
    }

    fn prepare(&self) {
        // Instantiating runs no more of the component than its start (bounded by the epoch
        // deadline like any call); no watchdog is needed for nobody waits on it.
        let context = CallContext::new(deadline(&self.component.grant));
        match instantiate(&self.component, context) {
            Ok(warm) => keep(&self.warm, warm),
            Err(error) => tracing::debug!(hook = %self.source, "not prepared: {error}"),
        }
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
            warm: self.warm.clone(),
        }
    }
}
