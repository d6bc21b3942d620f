//! A built-in tool as a `pi_agent::AgentTool`: its definition from `pi-builtin-tools`, its
//! execution in its own component (loaded on first call) through pi-ext-host's `ComponentTool`,
//! with the call envelope carrying the session context and file-mutating calls serialised
//! per path.

use crate::context::ToolContext;
use crate::locks::lock_key;
use crate::shard;
use crate::{BuiltinTool, builtin, component_source, description, grant};
use pi_agent::{AgentTool, BoxFuture, ExecutionMode, ToolError, ToolOutput, ToolUpdateFn};
use pi_builtin_tools::Invocation;
use pi_builtin_tools::tools::shard::Shard;
use pi_ext_host::{ComponentTool, ExtensionId, LazyComponent, WitVersion, World};
use serde_json::Value;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// One built-in tool backed by its component.
pub struct BuiltinComponentTool {
    tool: &'static BuiltinTool,
    inner: ComponentTool,
    ctx: ToolContext,
}

impl BuiltinComponentTool {
    /// The tool `name` for `ctx`; `None` when there is no such built-in.
    pub fn new(ctx: &ToolContext, name: &str) -> Option<Self> {
        let tool = builtin(name)?;
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
            WitVersion::LATEST,
            Arc::new(grant),
        );
        let mut inner = ComponentTool::new(Arc::new(component), description(name)?)
            .with_session_id(ctx.session_id.clone());
        if let Some(observer) = &ctx.on_write {
            inner = inner.with_write_observer(Arc::clone(observer));
        }
        Some(BuiltinComponentTool {
            tool,
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
            Some(path) if self.tool.mutates_files => {
                Some(self.ctx.locks.lock(lock_key(self.ctx.cwd(), path)).await)
            }
            _ => None,
        };
        let shards = self.ctx.shards.max(1);
        let worth = |args| {
            let (cwd, home) = (self.ctx.cwd(), self.ctx.home.clone());
            let policy = self.ctx.policy();
            shard::worth_sharding(cwd, home, policy, args, self.ctx.shard_min_entries)
        };
        if shards > 1 && self.tool.shards && worth(&args) {
            let envelopes = Shard::all(shards)
                .map(|s| self.envelope(args.clone(), Some(s)))
                .collect::<Result<Vec<_>, _>>()?;
            let name = self.tool.name;
            return shard::run_sharded(&self.inner, name, call_id, &args, envelopes, cancel).await;
        }
        let envelope = self.envelope(args, None)?;
        self.inner
            .run(call_id, &envelope, cancel, Some(on_update))
            .await
    }

    fn envelope(&self, arguments: Value, shard: Option<Shard>) -> Result<Value, ToolError> {
        let mut context = self.ctx.invocation_context(self.tool.name);
        context.shard = shard;
        serde_json::to_value(Invocation { arguments, context })
            .map_err(|e| ToolError::new(format!("cannot encode the call: {e}")))
    }
}

impl AgentTool for BuiltinComponentTool {
    fn name(&self) -> &str {
        self.tool.name
    }

    fn label(&self) -> &str {
        self.inner.label()
    }

    fn description(&self) -> &str {
        self.inner.description()
    }

    fn parameters(&self) -> &pi_ext_api::Schema {
        self.inner.parameters()
    }

    fn prepare_arguments(&self, args: Value) -> Value {
        // Only `edit` has a shim (legacy `oldText`/`newText` at the top level).
        if self.tool.name == "edit" {
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
        Box::pin(async move {
            let started = std::time::Instant::now();
            let result = self.run(call_id, args, cancel, on_update).await;
            crate::structured::attach(self.tool.name, result, started.elapsed())
        })
    }
}
