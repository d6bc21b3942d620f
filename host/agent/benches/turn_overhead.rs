//! Loop overhead per turn: each turn streams a ready-made tool-call response from an in-process
//! stream function (no server, no network) and runs a tool that returns at once, so what is
//! measured is the Runtime itself: context conversion, event emission and state upkeep,
//! preflight with schema validation, result messages.
//!
//! Run: `cargo bench -p pi-agent --bench turn_overhead`. Prints µs/turn; the target is ≤ 1 ms.

use pi_agent::{Agent, AgentOptions, AgentTool, BoxFuture, ToolError, ToolOutput, ToolUpdateFn};
use pi_ai::{
    AssistantMessage, AssistantMessageEvent, AssistantMessageEventStream, Context, MessageBuilder,
    Modality, Model, StopReason, StreamOptions,
};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

const TURNS_PER_RUN: usize = 20;
const RUNS: usize = 300;

fn model() -> Model {
    Model {
        id: "bench".into(),
        name: "Bench".into(),
        api: "bench".into(),
        provider: "bench".into(),
        base_url: "http://127.0.0.1:9".into(),
        reasoning: false,
        input: vec![Modality::Text],
        cost: Default::default(),
        context_window: 200_000,
        max_tokens: 8_192,
        headers: None,
        compat: None,
    }
}

struct ReadTool;

impl AgentTool for ReadTool {
    fn name(&self) -> &str {
        "read"
    }
    fn description(&self) -> &str {
        "Read a file"
    }
    fn parameters(&self) -> &pi_ai::Schema {
        static SCHEMA: std::sync::OnceLock<pi_ai::Schema> = std::sync::OnceLock::new();
        SCHEMA.get_or_init(|| {
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "offset": {"type": "number"},
                    "limit": {"type": "number"}
                },
                "required": ["path"]
            })
            .into()
        })
    }
    fn execute<'a>(
        &'a self,
        _call_id: &'a str,
        _args: Value,
        _cancel: CancellationToken,
        _on_update: ToolUpdateFn,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async { Ok(ToolOutput::text("line 1\nline 2\n")) })
    }
}

/// The events of one response, built once and replayed.
fn response(model: &Model, tool_call: bool) -> Vec<AssistantMessageEvent> {
    let mut builder = MessageBuilder::new(AssistantMessage::empty_for(model));
    builder.start();
    let text = builder.start_text();
    builder.push_text(text, "Reading the file.");
    builder.end_block(text);
    if tool_call {
        let call = builder.start_tool_call("call_1", "read");
        builder.push_tool_args(call, r#"{"path": "src/main.rs", "limit": 40}"#);
        builder.end_block(call);
    }
    builder.finish(StopReason::Stop);
    builder.take_events()
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("runtime: {e}"));
    let model = model();
    let with_call = Arc::new(response(&model, true));
    let final_answer = Arc::new(response(&model, false));
    let requests = Arc::new(AtomicUsize::new(0));

    let mut options = AgentOptions::default();
    let counter = requests.clone();
    options.hooks.stream_fn = Arc::new(move |model: &Model, _: &Context, _: StreamOptions| {
        let n = counter.fetch_add(1, Ordering::Relaxed);
        let events = if (n + 1).is_multiple_of(TURNS_PER_RUN) {
            &final_answer
        } else {
            &with_call
        };
        let (tx, stream) = AssistantMessageEventStream::channel(model);
        for event in events.iter() {
            tx.send(event.clone());
        }
        stream
    });
    let agent = Agent::new(model, options);
    agent.set_tools(vec![Arc::new(ReadTool)]);
    let events = Arc::new(AtomicUsize::new(0));
    let seen = events.clone();
    agent.on_event(move |_| {
        seen.fetch_add(1, Ordering::Relaxed);
    });

    let run_once = |agent: &Agent| {
        agent.reset();
        runtime
            .block_on(agent.prompt("go"))
            .unwrap_or_else(|e| panic!("prompt: {e}"));
    };
    for _ in 0..20 {
        run_once(&agent);
    }
    events.store(0, Ordering::Relaxed);
    let mut best = Duration::MAX;
    let started = Instant::now();
    for _ in 0..RUNS {
        let t = Instant::now();
        run_once(&agent);
        best = best.min(t.elapsed());
    }
    let total = started.elapsed();
    let turns = (RUNS * TURNS_PER_RUN) as f64;
    let mean_us = total.as_secs_f64() * 1e6 / turns;
    let best_us = best.as_secs_f64() * 1e6 / TURNS_PER_RUN as f64;
    println!(
        "turn_overhead: {mean_us:.1} µs/turn mean, {best_us:.1} µs/turn best run \
         ({RUNS} runs × {TURNS_PER_RUN} turns, tool call + immediate tool per turn, \
         {:.1} events/turn)",
        events.load(Ordering::Relaxed) as f64 / turns
    );
    println!(
        "target ≤ 1000 µs/turn: {}",
        if mean_us <= 1000.0 { "met" } else { "MISSED" }
    );
}
