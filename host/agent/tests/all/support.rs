//! Shared test helpers: an in-process scripted stream function, test tools, event recording.

use pi_agent::{
    Agent, AgentEvent, AgentOptions, AgentTool, BoxFuture, ExecutionMode, StreamFn, ToolError,
    ToolOutput, ToolUpdateFn,
};
use pi_ai::{
    AssistantMessage, AssistantMessageEventStream, Context, MessageBuilder, Modality, Model,
    StopReason, StreamOptions,
};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

pub fn fake_model() -> Model {
    Model {
        id: "fake-1".into(),
        name: "Fake".into(),
        api: "fake".into(),
        provider: "fake".into(),
        base_url: "http://127.0.0.1:9".into(),
        reasoning: false,
        input: vec![Modality::Text],
        cost: Default::default(),
        context_window: 100_000,
        max_tokens: 4_096,
        headers: None,
        compat: None,
    }
}

/// One scripted model response.
#[derive(Debug, Clone, Default)]
pub struct FakeTurn {
    text: Option<String>,
    calls: Vec<(String, String, Value)>,
    stop: Option<StopReason>,
    error: Option<String>,
    /// Stream the text, then wait for cancellation.
    hang: bool,
}

impl FakeTurn {
    pub fn text(text: &str) -> Self {
        FakeTurn {
            text: Some(text.to_owned()),
            ..Default::default()
        }
    }

    pub fn calls() -> Self {
        FakeTurn::default()
    }

    pub fn tool_call(mut self, id: &str, name: &str, args: Value) -> Self {
        self.calls.push((id.to_owned(), name.to_owned(), args));
        self
    }

    pub fn stop(mut self, reason: StopReason) -> Self {
        self.stop = Some(reason);
        self
    }

    pub fn error(message: &str) -> Self {
        FakeTurn {
            error: Some(message.to_owned()),
            ..Default::default()
        }
    }

    pub fn hang(text: &str) -> Self {
        FakeTurn {
            text: Some(text.to_owned()),
            hang: true,
            ..Default::default()
        }
    }
}

/// A stream function answering from a script and recording each request context.
#[derive(Clone, Default)]
pub struct FakeLlm {
    turns: Arc<Mutex<VecDeque<FakeTurn>>>,
    pub requests: Arc<Mutex<Vec<Context>>>,
}

impl FakeLlm {
    pub fn new(turns: Vec<FakeTurn>) -> Self {
        FakeLlm {
            turns: Arc::new(Mutex::new(turns.into())),
            requests: Arc::default(),
        }
    }

    pub fn requests(&self) -> Vec<Context> {
        self.requests.lock().unwrap().clone()
    }

    pub fn stream_fn(&self) -> StreamFn {
        let this = self.clone();
        Arc::new(
            move |model: &Model, context: &Context, options: StreamOptions| {
                this.requests.lock().unwrap().push(context.clone());
                let turn = this.turns.lock().unwrap().pop_front();
                let (tx, stream) = AssistantMessageEventStream::channel(model);
                let model = model.clone();
                tokio::spawn(async move {
                    let Some(turn) = turn else {
                        let events = failing(&model, "script exhausted");
                        events.into_iter().for_each(|e| tx.send(e));
                        return;
                    };
                    let mut builder = MessageBuilder::new(AssistantMessage::empty_for(&model));
                    builder.start();
                    if let Some(text) = &turn.text {
                        let index = builder.start_text();
                        for piece in text.split_inclusive(' ') {
                            builder.push_text(index, piece);
                        }
                        if !turn.hang {
                            builder.end_block(index);
                        }
                    }
                    for (id, name, args) in &turn.calls {
                        let index = builder.start_tool_call(id, name);
                        builder.push_tool_args(index, &args.to_string());
                        builder.end_block(index);
                    }
                    if turn.hang {
                        builder.take_events().into_iter().for_each(|e| tx.send(e));
                        options.cancel.cancelled().await;
                        builder.fail(StopReason::Aborted, "Request was aborted".into());
                    } else if let Some(error) = &turn.error {
                        builder.fail(StopReason::Error, error.clone());
                    } else {
                        builder.finish(turn.stop.unwrap_or(StopReason::Stop));
                    }
                    builder.take_events().into_iter().for_each(|e| tx.send(e));
                });
                stream
            },
        )
    }
}

fn failing(model: &Model, message: &str) -> Vec<pi_ai::AssistantMessageEvent> {
    let mut builder = MessageBuilder::new(AssistantMessage::empty_for(model));
    builder.fail(StopReason::Error, message.to_owned());
    builder.take_events()
}

type ToolFn = dyn Fn(Value, CancellationToken, ToolUpdateFn) -> BoxFuture<'static, Result<ToolOutput, ToolError>>
    + Send
    + Sync;

/// A tool whose behaviour is a closure.
pub struct FnTool {
    name: String,
    schema: Value,
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
            schema: json!({"type": "object"}),
            mode: ExecutionMode::Parallel,
            run: Box::new(run),
        }
    }

    pub fn schema(mut self, schema: Value) -> Self {
        self.schema = schema;
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

    fn parameters(&self) -> &Value {
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
        agent.subscribe(move |event| events.lock().unwrap().push(event.clone()));
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
            format!("{}:{tool_call_id}", event.kind())
        }
        other => other.kind().to_owned(),
    }
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

/// An agent answering from `llm`'s script.
pub fn fake_agent(llm: &FakeLlm, tools: Vec<Arc<dyn AgentTool>>) -> Agent {
    let mut options = AgentOptions::default();
    options.hooks.stream_fn = llm.stream_fn();
    let agent = Agent::new(fake_model(), options);
    agent.set_tools(tools);
    agent
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
