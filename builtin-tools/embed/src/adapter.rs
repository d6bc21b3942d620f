//! A built-in tool as a `pi_agent::AgentTool`: its definition from `pi-builtin-tools`, its
//! execution in its own component (loaded on first call) through pi-wasm's `ComponentTool`,
//! with the call envelope carrying the session context and file-mutating calls serialised
//! per path.

use crate::context::ToolContext;
use crate::locks::lock_key;
use crate::split;
use crate::{component_source, definition, grant, mutates_files};
use pi_agent::{AgentTool, BoxFuture, ExecutionMode, ToolError, ToolOutput, ToolUpdateFn};
use pi_builtin_tools::Invocation;
use pi_builtin_tools::tools::shard::{self, Shard};
use pi_wasm::{ComponentTool, ExtensionId, LazyComponent, ToolDescription, World};
use serde_json::Value;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// One built-in tool backed by its component.
pub struct BuiltinComponentTool {
    name: &'static str,
    inner: ComponentTool,
    ctx: ToolContext,
}

fn description(def: &pi_builtin_tools::ToolDefinition) -> ToolDescription {
    ToolDescription {
        name: def.name.clone(),
        label: def.label.clone(),
        description: def.description.clone(),
        parameters: def.parameters.clone(),
        prompt_snippet: Some(def.prompt_snippet.clone()).filter(|s| !s.is_empty()),
        prompt_guidelines: def.prompt_guidelines.clone(),
        sequential: def.execution_mode == pi_builtin_tools::ExecutionMode::Sequential,
    }
}

impl BuiltinComponentTool {
    /// The tool `name` for `ctx`; `None` when there is no such built-in.
    pub fn new(ctx: &ToolContext, name: &str) -> Option<Self> {
        let def = definition(name)?;
        let grant = grant(name, ctx)?;
        let extension = Arc::new(ExtensionId {
            name: format!("builtin-{name}"),
            version: env!("CARGO_PKG_VERSION").to_owned(),
        });
        let component = LazyComponent::from_source(
            ctx.engine.clone(),
            ctx.cache.clone(),
            extension,
            component_source(name)?,
            World::Tool,
            Arc::new(grant),
        );
        let inner = ComponentTool::new(Arc::new(component), description(def))
            .with_session_id(ctx.session_id.clone());
        Some(BuiltinComponentTool {
            name: crate::TOOL_NAMES.into_iter().find(|n| *n == name)?,
            inner,
            ctx: ctx.clone(),
        })
    }

    /// The component behind the tool (tests check it stays unloaded until the first call).
    pub fn component(&self) -> &Arc<LazyComponent> {
        self.inner.component()
    }

    async fn run(
        &self,
        call_id: &str,
        args: Value,
        cancel: CancellationToken,
        on_update: ToolUpdateFn,
    ) -> Result<ToolOutput, ToolError> {
        let _guard = match args.get("path").and_then(Value::as_str) {
            Some(path) if mutates_files(self.name) => {
                Some(self.ctx.locks.lock(lock_key(self.ctx.cwd(), path)).await)
            }
            _ => None,
        };
        let instances = self.ctx.search_instances.max(1);
        if instances > 1 && shard::splits(self.name) && self.worth_splitting(&args) {
            return self.run_split(call_id, args, instances, cancel).await;
        }
        let envelope = self.envelope(args, None)?;
        self.inner
            .run(call_id, &envelope, cancel, Some(on_update))
            .await
    }

    /// Whether the call's search root holds enough to share out: a small tree is walked
    /// before a second instance is even ready, and each instance costs its own memory. The
    /// host only counts the entries of the root's first two levels (where the split happens),
    /// and only inside the workspace; the component still decides what the path may be.
    fn worth_splitting(&self, args: &Value) -> bool {
        let path = args.get("path").and_then(Value::as_str).unwrap_or(".");
        let root = pi_builtin_tools::Workspace::at(self.ctx.cwd())
            .map(|w| w.with_home(self.ctx.home.clone().unwrap_or_default()))
            .and_then(|w| w.resolve(path));
        root.is_ok_and(|root| split::has_entries(&root, self.ctx.split_min_entries))
    }

    fn envelope(&self, arguments: Value, shard: Option<Shard>) -> Result<Value, ToolError> {
        let mut context = self.ctx.invocation_context(self.name);
        context.shard = shard;
        serde_json::to_value(Invocation { arguments, context })
            .map_err(|e| ToolError::new(format!("cannot encode the call: {e}")))
    }

    /// Runs a `grep`/`find` call as `instances` instances of the component at once, each
    /// walking its share of the tree (a component has no threads), and merges their parts
    /// into the result one instance would give (see `pi_builtin_tools::tools::shard`).
    /// Neither tool reports progress, so no update callback is passed on.
    async fn run_split(
        &self,
        call_id: &str,
        args: Value,
        instances: usize,
        cancel: CancellationToken,
    ) -> Result<ToolOutput, ToolError> {
        let envelopes = Shard::all(instances)
            .map(|s| self.envelope(args.clone(), Some(s)))
            .collect::<Result<Vec<_>, _>>()?;
        let runs = envelopes
            .iter()
            .map(|envelope| self.inner.run(call_id, envelope, cancel.clone(), None));
        let mut parts = Vec::with_capacity(instances);
        // Every shard validates the same arguments, so the first failure is the call's.
        for result in futures::future::join_all(runs).await {
            parts.push(result?.details);
        }
        let output =
            shard::merge_shards(self.name, &args, parts).map_err(|e| ToolError::new(e.message))?;
        let mut merged = ToolOutput::text(output.joined_text());
        merged.details = output.details;
        Ok(merged)
    }
}

impl AgentTool for BuiltinComponentTool {
    fn name(&self) -> &str {
        self.name
    }

    fn label(&self) -> &str {
        self.inner.label()
    }

    fn description(&self) -> &str {
        self.inner.description()
    }

    fn parameters(&self) -> &Value {
        self.inner.parameters()
    }

    fn prepare_arguments(&self, args: Value) -> Value {
        // Only `edit` has a shim (legacy `oldText`/`newText` at the top level).
        if self.name == "edit" {
            pi_builtin_tools::tools::edit::prepare_arguments(args)
        } else {
            args
        }
    }

    fn execution_mode(&self) -> ExecutionMode {
        self.inner.execution_mode()
    }

    fn execute<'a>(
        &'a self,
        call_id: &'a str,
        args: Value,
        cancel: CancellationToken,
        on_update: ToolUpdateFn,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(self.run(call_id, args, cancel, on_update))
    }
}
