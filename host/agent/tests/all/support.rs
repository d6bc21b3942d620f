//! Shared test helpers: an in-process scripted stream function, test tools, event recording.

use pi_agent::{
    Agent, AgentEvent, AgentOptions, AgentTool, BoxFuture, ExecutionMode, StreamFn, ToolError,
    ToolOutput, ToolUpdateFn,
};
use pi_ai::{Context, Model};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

type ToolFn = dyn Fn(Value, CancellationToken, ToolUpdateFn) -> BoxFuture<'static, Result<ToolOutput, ToolError>>
    + Send
    + Sync;

/// A tool whose behaviour is a closure.
pub struct FnTool {
    name: String,
    schema: pi_ai::Schema,
    mode: ExecutionMode,
    run: Box<ToolFn>,
}

impl FnTool {
    pub fn new(
        name: &str,
        run: impl Fn(
            Value,
            CancellationToken,
            ToolUpdateFn,
        ) -> BoxFuture<'static, Result<ToolOutput, ToolError>>
        + Send
        + Sync
        + 'static,
    ) -> Self {
        FnTool {
            name: name.to_owned(),
            schema: json!({"type": "object"}).into(),
            mode: ExecutionMode::Parallel,
            run: Box::new(run),
        }
    }

    pub fn schema(mut self, schema: Value) -> Self {
        self.schema = schema.into();
        self
    }

    pub fn sequential(mut self) -> Self {
        self.mode = ExecutionMode::Sequential;
        self
    }

    pub fn arc(self) -> Arc<dyn AgentTool> {
        Arc::new(self)
    }
}

impl AgentTool for FnTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        "a test tool"
    }

    fn parameters(&self) -> &pi_ai::Schema {
        &self.schema
    }

    fn execution_mode(&self) -> ExecutionMode {
        self.mode
    }

    fn execute<'a>(
        &'a self,
        _call_id: &'a str,
        args: Value,
        cancel: CancellationToken,
        on_update: ToolUpdateFn,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        (self.run)(args, cancel, on_update)
    }
}

/// A tool that answers `echo: <args>` at once.
pub fn echo_tool() -> Arc<dyn AgentTool> {
    FnTool::new("echo", |args, _, _| {
        Box::pin(async move { Ok(ToolOutput::text(format!("echo: {args}"))) })
    })
    .arc()
}

/// Records every event of an agent.
#[derive(Clone, Default)]
pub struct Recorder {
    pub events: Arc<Mutex<Vec<AgentEvent>>>,
}

impl Recorder {
    pub fn attach(agent: &Agent) -> Self {
        let recorder = Recorder::default();
        let events = recorder.events.clone();
        agent.on_event(move |event| events.lock().unwrap().push(event.clone()));
        recorder
    }

    pub fn events(&self) -> Vec<AgentEvent> {
        self.events.lock().unwrap().clone()
    }

    /// Event types, with the role of messages and the tool call id of tool events:
    /// `message_start:user`, `tool_execution_end:c1`, `message_update` (update kinds omitted).
    pub fn kinds(&self) -> Vec<String> {
        self.events().iter().map(describe).collect()
    }

    /// Waits until an event matching `pred` was recorded.
    pub async fn wait_for(&self, pred: impl Fn(&AgentEvent) -> bool) {
        for _ in 0..500 {
            if self.events().iter().any(&pred) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("event never arrived; got {:?}", self.kinds());
    }
}

pub fn describe(event: &AgentEvent) -> String {
    match event {
        AgentEvent::MessageStart { message } | AgentEvent::MessageEnd { message } => {
            format!("{}:{}", event.kind(), message.role())
        }
        AgentEvent::ToolExecutionStart { tool_call_id, .. }
        | AgentEvent::ToolExecutionEnd { tool_call_id, .. }
        | AgentEvent::ToolExecutionUpdate { tool_call_id, .. } => {
            format!("{}:{}", event.kind(), call_id(tool_call_id))
        }
        AgentEvent::QueueChanged {
            steering,
            follow_up,
        } => format!("queue_changed:{}+{}", steering.len(), follow_up.len()),
        other => other.kind().to_owned(),
    }
}

/// The call id without the Responses item id (`call_1|fc_1` → `call_1`).
pub fn call_id(id: &str) -> &str {
    id.split('|').next().unwrap_or(id)
}

/// Collapses runs of `message_update` into one `message_update*N` entry.
pub fn squash(kinds: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut count = 0;
    for kind in kinds {
        if kind == "message_update" {
            count += 1;
            continue;
        }
        if count > 0 {
            out.push(format!("message_update*{count}"));
            count = 0;
        }
        out.push(kind.clone());
    }
    if count > 0 {
        out.push(format!("message_update*{count}"));
    }
    out
}

pub fn strs(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

/// Opens when `parties` tasks are waiting on it at the same time. A waiter that gives up leaves
/// again, so tasks arriving one after another never open it.
#[derive(Clone)]
pub struct Latch {
    parties: usize,
    waiting: Arc<tokio::sync::watch::Sender<usize>>,
}

impl Latch {
    pub fn new(parties: usize) -> Self {
        Latch {
            parties,
            waiting: Arc::new(tokio::sync::watch::channel(0).0),
        }
    }

    /// True when all parties met within `timeout`.
    pub async fn meet(&self, timeout: Duration) -> bool {
        self.waiting.send_modify(|n| *n += 1);
        let mut rx = self.waiting.subscribe();
        let parties = self.parties;
        let met = tokio::time::timeout(timeout, rx.wait_for(|n| *n >= parties))
            .await
            .is_ok();
        if !met {
            self.waiting.send_modify(|n| *n -= 1);
        }
        met
    }
}

/// The protocol most loop tests speak (any of the four works; see `mock_protocols.rs`).
pub const API: pi_mock_llm::Api = pi_mock_llm::Api::AnthropicMessages;

/// An agent talking to a real loopback mock server through pi-ai's HTTP adapters. The stream
/// function records the `Context` of each request, then calls `pi_ai::stream`.
pub struct Rig {
    pub mock: pi_mock_llm::MockLlm,
    pub agent: Agent,
    pub rec: Recorder,
    contexts: Arc<Mutex<Vec<Context>>>,
    stream_fn: StreamFn,
}

impl Rig {
    pub fn new(tools: Vec<Arc<dyn AgentTool>>) -> Self {
        Rig::with_options(AgentOptions::default(), tools)
    }

    pub fn with_options(options: AgentOptions, tools: Vec<Arc<dyn AgentTool>>) -> Self {
        Rig::build(API, options, tools)
    }

    pub fn build(
        api: pi_mock_llm::Api,
        mut options: AgentOptions,
        tools: Vec<Arc<dyn AgentTool>>,
    ) -> Self {
        let mock = pi_mock_llm::MockLlm::start();
        let contexts: Arc<Mutex<Vec<Context>>> = Arc::default();
        let log = contexts.clone();
        let stream_fn: StreamFn = Arc::new(move |model: &Model, context: &Context, opts| {
            log.lock().unwrap().push(context.clone());
            pi_ai::stream(model, context, opts)
        });
        options.hooks.stream_fn = stream_fn.clone();
        options.stream_options.api_key = Some("mock-key".into());
        options.stream_options.header_timeout = Duration::from_secs(20);
        options.stream_options.idle_timeout = Duration::from_secs(20);
        let agent = Agent::new(mock.model(api), options);
        agent.set_tools(tools);
        let rec = Recorder::attach(&agent);
        Rig {
            mock,
            agent,
            rec,
            contexts,
            stream_fn,
        }
    }

    /// The agent's last message, which must be the assistant's.
    pub fn last_assistant(&self) -> pi_ai::AssistantMessage {
        self.agent
            .messages()
            .last()
            .and_then(|m| m.as_assistant())
            .expect("the last message is the assistant's")
            .clone()
    }

    /// A rig with default options, no tools, and `replies` queued.
    pub fn new_script(replies: Vec<pi_mock_llm::Reply>) -> Self {
        let rig = Rig::new(Vec::new());
        rig.mock.push_all(replies);
        rig
    }

    /// Default hooks with the rig's recording stream function.
    pub fn hooks(&self) -> pi_agent::Hooks {
        pi_agent::Hooks {
            stream_fn: self.stream_fn.clone(),
            ..Default::default()
        }
    }

    pub fn push(&self, reply: impl Into<pi_mock_llm::Reply>) {
        self.mock.push(reply);
    }

    /// The context of each model request, in order.
    pub fn contexts(&self) -> Vec<Context> {
        self.contexts.lock().unwrap().clone()
    }

    /// Event kinds with `message_update` runs collapsed.
    pub fn kinds(&self) -> Vec<String> {
        squash(&self.rec.kinds())
    }

    /// Runs `prompt` with a 30 s guard against hangs.
    pub async fn prompt(&self, text: &str) {
        tokio::time::timeout(Duration::from_secs(30), self.agent.prompt(text))
            .await
            .expect("the run hung")
            .expect("prompt refused");
    }
}
