//! Tool components as pi-agent tools: progress becomes `tool_execution_update`, abort becomes
//! an interrupt, and a trap, deadline or memory cap becomes an error result that names the
//! extension and the cause. Calls and `describe` run under a watchdog (`watchdog.rs`), so a
//! component stuck in a host call cannot hold its caller past the deadline or an abort.

use crate::bindings::types as wit;
use crate::bounds;
use crate::cache::ToolDescription;
use crate::component::{LazyComponent, LoadedComponent, Pre};
use crate::error::{Cause, ExtensionError};
use crate::state::{CallContext, ProgressFn};
use crate::watchdog::{self, Watch};
use pi_agent::{AgentTool, BoxFuture, ExecutionMode, ToolError, ToolUpdateFn};
use pi_ai::UserBlock;
use serde_json::Value;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

pub use pi_agent::ToolOutput;

/// One tool served by a tool component.
pub struct ComponentTool {
    component: Arc<LazyComponent>,
    description: ToolDescription,
    session_id: Option<String>,
    on_write: Option<crate::state::WriteFn>,
    /// Where the `ui` and `session` imports go (0.3.0 tools opened by the host).
    services: Option<crate::hook::ServicesSlot>,
}

/// Calls `describe` (instantiates the component once), bounded by the grant's timeout like
/// any call: a component that never answers is reported, not waited for.
pub fn describe(component: &Arc<LoadedComponent>) -> Result<Vec<ToolDescription>, ExtensionError> {
    let loaded = component.clone();
    watchdog::spawn(
        &component.extension,
        CancellationToken::new(),
        move |watch| describe_inline(&loaded, watch),
    )?
    .wait_blocking()
}

fn describe_inline(
    component: &LoadedComponent,
    watch: Watch,
) -> Result<Vec<ToolDescription>, ExtensionError> {
    let Pre::Tool(pre) = &component.pre else {
        return Err(component.error(Cause::Runtime("not a tool component".into())));
    };
    let mut context = CallContext::new(component.grant.limits.timeout);
    context.watch = watch;
    let mut store = component.store(context)?;
    let defs = pre
        .describe(&mut store)
        .map_err(|e| component.classify(&e, &store))?;
    store.data().flush_output();
    bounds::check_tools(&defs, &component.grant.limits)
        .map_err(|reason| component.error(Cause::Describe(reason)))?;
    Ok(defs.iter().map(crate::cache::description_of).collect())
}

/// Runs one call of tool `name` with `arguments` (JSON text) in a fresh store, on the calling
/// (blocking) thread, without a watchdog (the epoch and the bounded WASI waits still apply):
/// for embedders and benchmarks that call a component directly.
pub fn call_once(
    component: &LoadedComponent,
    name: &str,
    arguments: &str,
    limit: usize,
) -> Result<ToolOutput, ExtensionError> {
    let request = wit::ToolCall {
        id: String::new(),
        name: name.to_owned(),
        arguments: arguments.to_owned(),
    };
    let context = CallContext::new(component.grant.limits.timeout);
    let result = call(component, &request, context)?;
    let limits = crate::grant::Limits {
        result_bytes: limit,
        ..component.grant.limits.clone()
    };
    Ok(bounds::tool_output(result, &limits))
}

/// Runs one call in a fresh store, on the calling (blocking) thread.
pub(crate) fn call(
    component: &LoadedComponent,
    call: &wit::ToolCall,
    context: CallContext,
) -> Result<wit::ToolResult, ExtensionError> {
    let Pre::Tool(pre) = &component.pre else {
        return Err(component.error(Cause::Runtime("not a tool component".into())));
    };
    let mut store = component.store(context)?;
    let result = pre
        .execute(&mut store, call)
        .map_err(|e| component.classify(&e, &store))?;
    store.data().flush_output();
    result.map_err(|message| {
        let message = bounds::cut_owned(message, component.grant.limits.result_bytes);
        component.error(Cause::Guest(message))
    })
}

/// The progress callback of a call: updates are bounded like results, and delivered inside
/// the caller's runtime (the call's own thread is outside it) so that listeners may use tokio.
fn progress_fn(update: ToolUpdateFn, limits: crate::grant::Limits) -> ProgressFn {
    let runtime = tokio::runtime::Handle::try_current().ok();
    Box::new(move |r: wit::ToolResult| {
        let _entered = runtime.as_ref().map(tokio::runtime::Handle::enter);
        update(bounds::tool_output(r, &limits));
    })
}

fn error_text(output: &ToolOutput) -> String {
    output
        .content
        .iter()
        .filter_map(|b| match b {
            UserBlock::Text(t) => Some(t.text.as_str()),
            UserBlock::Image(_) => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The failure an `is-error` result stands for: its text, and its details unless they are
/// empty (then the error result gets pi's `{}`), so e.g. bash's `fullOutputPath` survives.
fn error_of(output: ToolOutput) -> ToolError {
    let error = ToolError::new(error_text(&output));
    let empty = match &output.details {
        Value::Null => true,
        Value::Object(map) => map.is_empty(),
        _ => false,
    };
    if empty {
        error
    } else {
        error.with_details(output.details)
    }
}

impl ComponentTool {
    pub fn new(component: Arc<LazyComponent>, description: ToolDescription) -> Self {
        ComponentTool {
            component,
            description,
            session_id: None,
            on_write: None,
            services: None,
        }
    }

    /// Sends the `ui` and `session` calls of the tool to the host's services.
    pub(crate) fn with_services(mut self, services: crate::hook::ServicesSlot) -> Self {
        self.services = Some(services);
        self
    }

    /// The session id the tool reports through `host.session-id`.
    pub fn with_session_id(mut self, session_id: Option<String>) -> Self {
        self.session_id = session_id;
        self
    }

    /// Tells `observer` the host path of every file a call opens for writing or renames into
    /// place, before the write happens.
    pub fn with_write_observer(mut self, observer: crate::state::WriteFn) -> Self {
        self.on_write = Some(observer);
        self
    }

    pub fn component(&self) -> &Arc<LazyComponent> {
        &self.component
    }

    pub fn tool_description(&self) -> &ToolDescription {
        &self.description
    }

    /// Runs a call; failures of any kind come back as an error naming the extension.
    pub async fn run(
        &self,
        call_id: &str,
        args: &Value,
        cancel: CancellationToken,
        on_update: Option<ToolUpdateFn>,
    ) -> Result<ToolOutput, ToolError> {
        let limits = self.component.grant.limits.clone();
        let progress = on_update.map(|update| progress_fn(update, limits.clone()));
        let component = self.component.clone();
        let wit_call = wit::ToolCall {
            id: call_id.to_owned(),
            name: self.description.name.clone(),
            arguments: args.to_string(),
        };
        let session_id = self.session_id.clone();
        let on_write = self.on_write.clone();
        let services = self.services.as_ref().map(crate::hook::services_of);
        let abort = cancel.clone();
        let outcome = match watchdog::spawn(&self.component.extension, cancel, move |watch| {
            let loaded = component.get()?;
            let mut context = CallContext::new(loaded.grant.limits.timeout);
            context.abort = abort;
            context.progress = progress;
            context.session_id = session_id;
            context.on_write = on_write;
            if let Some(services) = services {
                context.services = services;
            }
            context.watch = watch;
            call(&loaded, &wit_call, context)
        }) {
            Ok(watchdog) => watchdog.wait().await,
            Err(error) => Err(error),
        };
        match outcome {
            Ok(result) => {
                let is_error = result.is_error;
                let output = bounds::tool_output(result, &limits);
                if is_error {
                    Err(error_of(output))
                } else {
                    Ok(output)
                }
            }
            Err(error) => {
                tracing::warn!("{error}");
                Err(ToolError::new(error.to_string()))
            }
        }
    }
}

impl AgentTool for ComponentTool {
    fn name(&self) -> &str {
        &self.description.name
    }

    fn label(&self) -> &str {
        &self.description.label
    }

    fn description(&self) -> &str {
        &self.description.description
    }

    fn parameters(&self) -> &pi_ai::Schema {
        &self.description.parameters
    }

    fn execution_mode(&self) -> ExecutionMode {
        if self.description.sequential {
            ExecutionMode::Sequential
        } else {
            ExecutionMode::Parallel
        }
    }

    fn execute<'a>(
        &'a self,
        call_id: &'a str,
        args: Value,
        cancel: CancellationToken,
        on_update: ToolUpdateFn,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move { self.run(call_id, &args, cancel, Some(on_update)).await })
    }
}
