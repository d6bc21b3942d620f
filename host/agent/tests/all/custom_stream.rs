//! The stream function is pluggable: an in-process provider (as an extension provider or a
//! test double would be) replaces pi-ai's HTTP stream. Scripted with
//! `AssistantMessageEventStream::channel`.

use crate::support::*;
use pi_agent::{Agent, AgentEvent, AgentOptions, AgentTool, StreamFn};
use pi_ai::{
    AssistantMessage, AssistantMessageEventStream, Context, MessageBuilder, Modality, Model,
    StopReason, StreamOptions,
};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

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

    pub fn tool_call(mut self, id: &str, name: &str, args: Value) -> Self {
        self.calls.push((id.to_owned(), name.to_owned(), args));
        self
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
                    } else {
                        builder.finish(StopReason::Stop);
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

/// An agent answering from `llm`'s script.
pub fn fake_agent(llm: &FakeLlm, tools: Vec<Arc<dyn AgentTool>>) -> Agent {
    let mut options = AgentOptions::default();
    options.hooks.stream_fn = llm.stream_fn();
    let agent = Agent::new(fake_model(), options);
    agent.set_tools(tools);
    agent
}

#[tokio::test]
async fn a_substituted_stream_function_answers_instead_of_pi_ai() {
    let llm = FakeLlm::new(vec![
        FakeTurn::text("calling").tool_call("c1", "echo", json!({"q": "x"})),
        FakeTurn::text("in process"),
    ]);
    let agent = fake_agent(&llm, vec![echo_tool()]);
    let rec = Recorder::attach(&agent);
    agent.prompt("hi").await.unwrap();
    assert_eq!(
        squash(&rec.kinds()),
        strs(&[
            "agent_start",
            "turn_start",
            "message_start:user",
            "message_end:user",
            "message_start:assistant",
            "message_update*6",
            "message_end:assistant",
            "tool_execution_start:c1",
            "tool_execution_end:c1",
            "message_start:toolResult",
            "message_end:toolResult",
            "turn_end",
            "turn_start",
            "message_start:assistant",
            "message_update*4",
            "message_end:assistant",
            "turn_end",
            "agent_end",
        ])
    );
    assert_eq!(llm.requests().len(), 2);
    assert_eq!(
        agent
            .messages()
            .last()
            .unwrap()
            .as_assistant()
            .unwrap()
            .text(),
        "in process"
    );
}

#[tokio::test]
async fn an_in_process_stream_is_cancelled_by_abort() {
    let llm = FakeLlm::new(vec![FakeTurn::hang("thinking about it")]);
    let agent = fake_agent(&llm, vec![]);
    let rec = Recorder::attach(&agent);
    let runner = agent.clone();
    let run = tokio::spawn(async move { runner.prompt("hi").await });
    rec.wait_for(|e| matches!(e, AgentEvent::MessageUpdate { .. }))
        .await;
    agent.abort();
    run.await.unwrap().unwrap();
    let last = agent
        .messages()
        .last()
        .unwrap()
        .as_assistant()
        .unwrap()
        .clone();
    assert_eq!(last.stop_reason, StopReason::Aborted);
    assert_eq!(last.text(), "thinking about it");
}
