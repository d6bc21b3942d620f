//! Provider components as pi-ai providers: registered under their models' `api` in an
//! [`ApiRegistry`](pi_ai::ApiRegistry); each request runs in a fresh store on its own thread
//! under a watchdog (`watchdog.rs`), and its events go through pi-ai's `MessageBuilder` into
//! the event stream as they arrive. When the watchdog gives up on a request (deadline, abort)
//! the stream ends with that error at once, and whatever the abandoned call still emits is
//! dropped.

use crate::bindings::types as wit;
use crate::component::{LoadedComponent, Pre};
use crate::convert;
use crate::error::{Cause, ExtensionError};
use crate::state::{CallContext, SinkFn};
use crate::watchdog::{self, Watch};
use pi_ai::{
    ApiProvider, ApiRegistry, AssistantMessage, AssistantMessageEventStream, Context, EventSender,
    MessageBuilder, Model, StopReason, StreamOptions,
};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// A provider component.
pub struct ComponentProvider {
    component: Arc<LoadedComponent>,
    models: Vec<Model>,
}

/// Turns stream-sink events into builder calls.
struct EventPump {
    builder: MessageBuilder,
    open: Option<usize>,
    tx: EventSender,
    /// The message was finished (or failed); later events of an abandoned call are dropped.
    done: bool,
}

impl EventPump {
    fn on_event(&mut self, event: wit::StreamEvent) -> bool {
        if self.done {
            return false;
        }
        let b = &mut self.builder;
        match event {
            wit::StreamEvent::TextStart => self.open = Some(b.start_text()),
            wit::StreamEvent::ThinkingStart => self.open = Some(b.start_thinking(false)),
            wit::StreamEvent::ToolCallStart(start) => {
                self.open = Some(b.start_tool_call(&start.id, &start.name));
            }
            wit::StreamEvent::TextDelta(delta) => match self.open {
                Some(i) => b.push_text(i, &delta),
                None => {
                    let i = b.start_text();
                    self.open = Some(i);
                    b.push_text(i, &delta);
                }
            },
            wit::StreamEvent::ThinkingDelta(delta) => {
                if let Some(i) = self.open {
                    b.push_thinking(i, &delta);
                }
            }
            wit::StreamEvent::ToolCallDelta(delta) => {
                if let Some(i) = self.open {
                    b.push_tool_args(i, &delta);
                }
            }
            wit::StreamEvent::TextEnd
            | wit::StreamEvent::ThinkingEnd
            | wit::StreamEvent::ToolCallEnd => {
                if let Some(i) = self.open.take() {
                    b.end_block(i);
                }
            }
            wit::StreamEvent::Usage(usage) => {
                b.start();
                let u = &mut b.message_mut().usage;
                u.input = usage.input;
                u.output = usage.output;
                u.cache_read = usage.cache_read;
                u.cache_write = usage.cache_write;
                // The counts are the extension's: sums saturate rather than overflow.
                u.total_tokens = u.parts_total();
            }
            wit::StreamEvent::ResponseId(id) => b.message_mut().response_id = Some(id),
        }
        self.flush();
        !self.tx.is_closed()
    }

    fn flush(&mut self) {
        for event in self.builder.take_events() {
            self.tx.send(event);
        }
    }
}

impl ComponentProvider {
    /// Asks the component for its models (bounded by the grant's timeout, like any call).
    pub fn load(component: Arc<LoadedComponent>) -> Result<Self, ExtensionError> {
        let loaded = component.clone();
        let models = watchdog::spawn(
            &component.extension,
            CancellationToken::new(),
            move |watch| Self::models_inline(&loaded, watch),
        )?
        .wait_blocking()?;
        Ok(ComponentProvider { models, component })
    }

    fn models_inline(
        component: &LoadedComponent,
        watch: Watch,
    ) -> Result<Vec<Model>, ExtensionError> {
        let Pre::Provider(pre) = &component.pre else {
            return Err(component.error(Cause::Runtime("not a provider component".into())));
        };
        let mut context = CallContext::new(component.grant.limits.timeout);
        context.watch = watch;
        let mut store = component.store(context)?;
        let models = pre
            .models(&mut store)
            .map_err(|e| component.classify(&e, &store))?;
        crate::bounds::check_models(&models)
            .map_err(|reason| component.error(Cause::Describe(reason)))?;
        Ok(models.iter().map(convert::model).collect())
    }

    /// The models this provider serves (pi model records).
    pub fn models(&self) -> &[Model] {
        &self.models
    }

    /// The package the provider belongs to.
    pub fn extension(&self) -> &crate::ExtensionId {
        &self.component.extension
    }

    /// Whether `model` is under one of the provider names this component's models use and
    /// that may be an extension's (never one pi holds credentials for).
    fn owns(&self, model: &Model) -> bool {
        self.models.iter().any(|m| m.provider == model.provider)
            && !pi_ai::models::is_reserved_provider(&model.provider)
    }

    /// Registers this provider under every `api` its models use.
    pub fn register(self: &Arc<Self>, registry: &ApiRegistry) {
        let mut apis: Vec<&str> = self.models.iter().map(|m| m.api.as_str()).collect();
        apis.sort_unstable();
        apis.dedup();
        for api in apis {
            registry.register(api, self.clone());
        }
    }

    fn run(
        component: &LoadedComponent,
        model: &Model,
        context: &wit::LlmContext,
        options: &wit::StreamOptions,
        mut call: CallContext,
        pump: Arc<Mutex<EventPump>>,
    ) -> Result<StopReason, ExtensionError> {
        let Pre::Provider(pre) = &component.pre else {
            return Err(component.error(Cause::Runtime("not a provider component".into())));
        };
        let sink_pump = pump.clone();
        let sink: SinkFn = Box::new(move |event| match sink_pump.lock() {
            Ok(mut pump) => pump.on_event(event),
            Err(_) => false,
        });
        call.sink = Some(sink);
        let mut store = component.store(call)?;
        let outcome = pre
            .stream(&mut store, &convert::model_info(model), context, options)
            .map_err(|e| component.classify(&e, &store))?;
        store.data().flush_output();
        outcome
            .map(convert::from_stop_reason)
            .map_err(|message| component.error(Cause::Guest(message)))
    }
}

/// Ends the message with the call's outcome (once: an abandoned call's later events and
/// outcome are dropped).
fn finish(pump: &Mutex<EventPump>, model: &Model, outcome: Result<StopReason, ExtensionError>) {
    let Ok(mut pump) = pump.lock() else { return };
    if pump.done {
        return;
    }
    pump.builder.message_mut().usage.apply_cost(&model.cost);
    match outcome {
        Ok(StopReason::Error) => {
            pump.builder
                .fail(StopReason::Error, "the provider reported an error".into());
        }
        Ok(StopReason::Aborted) => {
            pump.builder
                .fail(StopReason::Aborted, "Request was aborted".into());
        }
        Ok(reason) => {
            pump.builder.finish(reason);
        }
        Err(error) => {
            let reason = if error.cause == Cause::Aborted {
                StopReason::Aborted
            } else {
                StopReason::Error
            };
            pump.builder.fail(reason, error.to_string());
        }
    }
    pump.flush();
    pump.done = true;
}

impl ApiProvider for ComponentProvider {
    fn stream(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        let (tx, stream) = AssistantMessageEventStream::channel(model);
        let mut pump = EventPump {
            builder: MessageBuilder::new(AssistantMessage::empty_for(model)),
            open: None,
            tx,
            done: false,
        };
        if !self.owns(model) {
            // A models.json model routed to this component's `api` under another provider's
            // name: the request would carry that provider's credential.
            pump.builder.fail(
                StopReason::Error,
                format!(
                    "extension {} serves only its own models, not {}/{}",
                    self.component.extension, model.provider, model.id
                ),
            );
            pump.flush();
            return stream;
        }
        let pump = Arc::new(Mutex::new(pump));
        let cancel = options.cancel.clone();
        let component = self.component.clone();
        let model = model.clone();
        let wit_context = convert::context(context);
        // Only this provider's own credential: the explicit key, else its env variable.
        let api_key = options
            .api_key
            .clone()
            .or_else(|| pi_ai::auth::env_api_key(&model.provider));
        let wit_options = convert::options(&model, &options, api_key);
        let (call_pump, call_model, abort) = (pump.clone(), model.clone(), cancel.clone());
        let spawned = watchdog::spawn(&self.component.extension, cancel, move |watch| {
            let mut call = CallContext::new(component.grant.limits.timeout);
            call.abort = abort;
            call.watch = watch;
            Self::run(
                &component,
                &call_model,
                &wit_context,
                &wit_options,
                call,
                call_pump,
            )
        });
        match spawned {
            Ok(watchdog) => {
                tokio::spawn(async move {
                    let outcome = watchdog.wait().await;
                    finish(&pump, &model, outcome);
                });
            }
            Err(error) => finish(&pump, &model, Err(error)),
        }
        stream
    }
}
