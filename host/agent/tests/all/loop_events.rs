//! Loop behaviour against the in-process scripted stream function.

use crate::support::*;
use pi_agent::{
    AgentError, AgentEvent, AgentMessage, BranchSummaryMessage, HostMessage, NextTurnUpdate,
    ToolError, ToolOutput,
};
use pi_ai::{Message, StopReason, UserBlock, UserContent, UserMessage};
use pi_mock_llm::{Reply, Turn};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

fn tool_result_texts(agent: &pi_agent::Agent) -> Vec<(String, String, bool)> {
    agent
        .messages()
        .iter()
        .filter_map(AgentMessage::as_tool_result)
        .map(|r| {
            let text = match r.content.first() {
                Some(UserBlock::Text(t)) => t.text.clone(),
                _ => String::new(),
            };
            (r.tool_call_id.clone(), text, r.is_error)
        })
        .collect()
}

#[tokio::test]
async fn text_only_run() {
    let rig = Rig::new_script(script![Turn::text("hello")]);
    rig.agent.set_tools(vec![]);
    let agent = &rig.agent;
    let rec = rig.rec.clone();
    agent.prompt("hi").await.unwrap();
    assert_eq!(
        squash(&rec.kinds()),
        strs(&[
            "agent_start",
            "turn_start",
            "message_start:user",
            "message_end:user",
            "message_start:assistant",
            "message_update*3",
            "message_end:assistant",
            "turn_end",
            "agent_end",
        ])
    );
    let messages = agent.messages();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[1].as_assistant().unwrap().text(), "hello");
    let Some(AgentEvent::AgentEnd { messages: run }) = rec.events().last().cloned() else {
        panic!("no agent_end")
    };
    assert_eq!(run, messages);
    assert!(!agent.state().is_streaming);
}

#[tokio::test]
async fn one_tool_then_answer() {
    let rig = Rig::new_script(script![
        Turn::new().tool_call("c1", "echo", json!({"x": 1})),
        Turn::text("done"),
    ]);
    rig.agent.set_tools(vec![echo_tool()]);
    let agent = &rig.agent;
    let rec = rig.rec.clone();
    agent.prompt("go").await.unwrap();
    assert_eq!(
        squash(&rec.kinds()),
        strs(&[
            "agent_start",
            "turn_start",
            "message_start:user",
            "message_end:user",
            "message_start:assistant",
            "message_update*3",
            "message_end:assistant",
            "tool_execution_start:c1",
            "tool_execution_end:c1",
            "message_start:toolResult",
            "message_end:toolResult",
            "turn_end",
            "turn_start",
            "message_start:assistant",
            "message_update*3",
            "message_end:assistant",
            "turn_end",
            "agent_end",
        ])
    );
    assert_eq!(
        tool_result_texts(agent),
        vec![("c1".into(), "echo: {\"x\":1}".into(), false)]
    );
    // The second request carries the call and its result.
    let second = &rig.contexts()[1];
    assert_eq!(second.messages.len(), 3);
    assert!(matches!(*second.messages[2], Message::ToolResult(_)));
    assert_eq!(second.tools.len(), 1);
}

#[tokio::test]
async fn replies_and_tool_results_record_their_durations_and_the_thinking_level() {
    let rig = Rig::new_script(script![
        Turn::new().tool_call("c1", "echo", json!({"x": 1})),
        Turn::text("done"),
    ]);
    rig.agent.set_tools(vec![echo_tool()]);
    rig.agent.prompt("go").await.unwrap();
    let events = rig.rec.events();
    let ends: Vec<&AgentEvent> = events
        .iter()
        .filter(|e| matches!(e, AgentEvent::ToolExecutionEnd { .. }))
        .collect();
    assert!(
        matches!(
            ends[..],
            [AgentEvent::ToolExecutionEnd {
                duration_ms: Some(_),
                ..
            }]
        ),
        "{ends:?}"
    );
    let messages = rig.agent.messages();
    let replies: Vec<_> = messages.iter().filter_map(|m| m.as_assistant()).collect();
    assert_eq!(replies.len(), 2);
    for reply in replies {
        assert!(reply.duration_ms.is_some(), "{reply:?}");
        assert_eq!(reply.thinking_level, Some(pi_ai::ThinkingLevel::Off));
    }
    let result = messages.iter().find_map(AgentMessage::as_tool_result);
    assert!(result.unwrap().duration_ms.is_some());
}

#[tokio::test]
async fn a_call_answered_without_running_has_no_duration() {
    let rig = Rig::new_script(script![
        Turn::new().tool_call("c1", "missing", json!({})),
        Turn::text("done"),
    ]);
    rig.agent.prompt("go").await.unwrap();
    let events = rig.rec.events();
    assert!(events.iter().any(|e| matches!(
        e,
        AgentEvent::ToolExecutionEnd {
            is_error: true,
            duration_ms: None,
            ..
        }
    )));
}

#[tokio::test]
async fn unknown_tool_invalid_args_and_failing_tool_become_error_results() {
    let failing = FnTool::new("fail", |_, _, _| {
        Box::pin(async { Err(ToolError::new("disk on fire")) })
    })
    .arc();
    let detailed = FnTool::new("big", |_, _, _| {
        Box::pin(async {
            Err(ToolError::new("exit 2").with_details(json!({"fullOutputPath": "/tmp/x.log"})))
        })
    })
    .arc();
    let strict = FnTool::new("read", |_, _, _| {
        Box::pin(async { panic!("must not run with invalid arguments") })
    })
    .schema(json!({
        "type": "object",
        "properties": {"path": {"type": "string"}, "limit": {"type": "number"}},
        "required": ["path"]
    }))
    .arc();
    let rig = Rig::new_script(script![
        Turn::new()
            .tool_call("c1", "nope", json!({}))
            .tool_call("c2", "read", json!({"limit": "many"}))
            .tool_call("c3", "fail", json!({}))
            .tool_call("c4", "big", json!({})),
        Turn::text("ok"),
    ]);
    rig.agent.set_tools(vec![failing, strict, detailed]);
    let agent = &rig.agent;
    let rec = rig.rec.clone();
    agent.prompt("go").await.unwrap();
    let results = tool_result_texts(agent);
    assert_eq!(
        results[0],
        ("c1".into(), "Tool nope not found".into(), true)
    );
    assert_eq!(
        results[1].1,
        "Validation failed for tool \"read\":\n  - path: must have required property 'path'\n  - limit: must be number\n\nReceived arguments:\n{\n  \"limit\": \"many\"\n}"
    );
    assert!(results[1].2);
    assert_eq!(results[2], ("c3".into(), "disk on fire".into(), true));
    assert_eq!(results[3], ("c4".into(), "exit 2".into(), true));
    // Error results carry the tool's details, `{}` (as pi) when it gave none.
    let details: Vec<Option<Value>> = agent
        .messages()
        .iter()
        .filter_map(AgentMessage::as_tool_result)
        .map(|r| r.details.clone())
        .collect();
    assert_eq!(details[2], Some(json!({})));
    assert_eq!(details[3], Some(json!({"fullOutputPath": "/tmp/x.log"})));
    let ends: Vec<(String, bool)> = rec
        .events()
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolExecutionEnd {
                tool_call_id,
                is_error,
                ..
            } => Some((tool_call_id.clone(), *is_error)),
            _ => None,
        })
        .collect();
    assert_eq!(ends.len(), 4);
    assert!(ends.iter().all(|(_, e)| *e));
    // The run went on to the model's answer.
    assert_eq!(rig.contexts().len(), 2);
}

#[tokio::test]
async fn tool_arguments_are_coerced_before_execution() {
    let seen = Arc::new(std::sync::Mutex::new(None));
    let sink = seen.clone();
    let tool = FnTool::new("count", move |args, _, _| {
        *sink.lock().unwrap() = Some(args);
        Box::pin(async { Ok(ToolOutput::text("ok")) })
    })
    .schema(json!({"type": "object", "properties": {"n": {"type": "integer"}}}))
    .arc();
    let rig = Rig::new_script(script![
        Turn::new().tool_call("c1", "count", json!({"n": "42"})),
        Turn::text("ok"),
    ]);
    rig.agent.set_tools(vec![tool]);
    let agent = &rig.agent;
    agent.prompt("go").await.unwrap();
    assert_eq!(seen.lock().unwrap().clone(), Some(json!({"n": 42})));
}

#[tokio::test]
async fn error_stop_reason_ends_the_run_without_running_tools() {
    let rig = Rig::new_script(script![Reply::server_error(API, 500)]);
    rig.agent.set_tools(vec![echo_tool()]);
    let agent = &rig.agent;
    let rec = rig.rec.clone();
    agent.prompt("hi").await.unwrap();
    assert_eq!(
        squash(&rec.kinds()),
        strs(&[
            "agent_start",
            "turn_start",
            "message_start:user",
            "message_end:user",
            "message_start:assistant",
            "message_end:assistant",
            "turn_end",
            "agent_end",
        ])
    );
    let state = agent.state();
    let error = state.error_message.clone().unwrap();
    assert!(error.starts_with("500 Internal Server Error: "), "{error}");
    assert!(
        error.contains(pi_mock_llm::errors::server_error_message(API, 500)),
        "{error}"
    );
    let last = state
        .messages
        .last()
        .unwrap()
        .as_assistant()
        .unwrap()
        .clone();
    assert_eq!(last.stop_reason, StopReason::Error);
}

#[tokio::test]
async fn a_stream_that_breaks_after_a_tool_call_runs_no_tool() {
    let runs = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = runs.clone();
    let tool = FnTool::new("echo", move |_, _, _| {
        counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Box::pin(async { Ok(ToolOutput::text("ran")) })
    })
    .arc();
    let turn = Turn::text("Calling.")
        .tool_call("c1", "echo", json!({"a": 1}))
        .tool_call("c2", "echo", json!({"b": 2}));
    // Anthropic: message_start, text block (3 events), first tool block (3), then the cut.
    let rig = Rig::new_script(script![Reply::drop_mid_stream(turn, 8)]);
    rig.agent.set_tools(vec![tool]);
    rig.prompt("go").await;
    let kinds = rig.kinds();
    assert!(
        !kinds.iter().any(|k| k.starts_with("tool_execution")),
        "{kinds:?}"
    );
    assert_eq!(
        kinds[kinds.len() - 3..],
        strs(&["message_end:assistant", "turn_end", "agent_end"])[..]
    );
    let last = rig.last_assistant();
    assert_eq!(last.stop_reason, StopReason::Error);
    assert!(last.tool_calls().count() >= 1, "{last:?}");
    assert_eq!(runs.load(std::sync::atomic::Ordering::SeqCst), 0);
}

#[tokio::test]
async fn length_stop_fails_every_tool_call() {
    let rig = Rig::new_script(script![
        Turn::new()
            .tool_call("c1", "echo", json!({"a": 1}))
            .length(),
        Turn::text("retry"),
    ]);
    rig.agent.set_tools(vec![echo_tool()]);
    let agent = &rig.agent;
    agent.prompt("go").await.unwrap();
    assert_eq!(
        tool_result_texts(agent),
        vec![(
            "c1".into(),
            "Tool call \"echo\" was not executed: the response hit the output token limit, so its arguments may be truncated. Re-issue the tool call with complete arguments.".into(),
            true
        )]
    );
}

#[tokio::test]
async fn abort_during_streaming() {
    let rig = Rig::new_script(script![Reply::hang_after_headers(
        Turn::text("partial answer"),
        4
    )]);
    rig.agent.set_tools(vec![]);
    let agent = &rig.agent;
    let rec = rig.rec.clone();
    let runner = agent.clone();
    let run = tokio::spawn(async move { runner.prompt("hi").await });
    rec.wait_for(|e| matches!(e, AgentEvent::MessageUpdate { .. }))
        .await;
    assert!(agent.state().streaming_message.is_some());
    agent.abort();
    run.await.unwrap().unwrap();
    // The HTTP request itself was cancelled.
    assert!(
        rig.mock
            .wait_for_client_gone(0, Duration::from_secs(5))
            .await
    );
    let kinds = squash(&rec.kinds());
    assert_eq!(
        kinds[kinds.len() - 3..],
        strs(&["message_end:assistant", "turn_end", "agent_end"])[..]
    );
    let last = agent
        .messages()
        .last()
        .unwrap()
        .as_assistant()
        .unwrap()
        .clone();
    assert_eq!(last.stop_reason, StopReason::Aborted);
    assert_eq!(last.text(), "partial answer");
    assert!(!agent.state().is_streaming);
}

#[tokio::test]
async fn abort_during_slow_tool_records_aborted_result() {
    let slow = FnTool::new("slow", |_, cancel, _| {
        Box::pin(async move {
            cancel.cancelled().await;
            Err(ToolError::new("Operation aborted"))
        })
    })
    .arc();
    let rig = Rig::new_script(script![
        Turn::new().tool_call("c1", "slow", json!({})),
        Turn::text("never requested"),
    ]);
    rig.agent.set_tools(vec![slow]);
    let agent = &rig.agent;
    let rec = rig.rec.clone();
    let runner = agent.clone();
    let run = tokio::spawn(async move { runner.prompt("go").await });
    rec.wait_for(|e| matches!(e, AgentEvent::ToolExecutionStart { .. }))
        .await;
    assert_eq!(agent.state().pending_tool_calls.len(), 1);
    agent.abort();
    run.await.unwrap().unwrap();
    assert_eq!(
        tool_result_texts(agent),
        vec![("c1".into(), "Operation aborted".into(), true)]
    );
    // No second request: the next turn ends as aborted at once.
    assert_eq!(rig.contexts().len(), 1);
    let last = agent
        .messages()
        .last()
        .unwrap()
        .as_assistant()
        .unwrap()
        .clone();
    assert_eq!(last.stop_reason, StopReason::Aborted);
    assert!(agent.state().pending_tool_calls.is_empty());
}

#[tokio::test]
async fn steering_is_delivered_after_the_tool_calls_finish() {
    let gate = Arc::new(tokio::sync::Notify::new());
    let opened = gate.clone();
    let tool = FnTool::new("wait", move |_, _, _| {
        let gate = opened.clone();
        Box::pin(async move {
            gate.notified().await;
            Ok(ToolOutput::text("waited"))
        })
    })
    .arc();
    let rig = Rig::new_script(script![
        Turn::new().tool_call("c1", "wait", json!({})),
        Turn::text("steered"),
    ]);
    rig.agent.set_tools(vec![tool]);
    let agent = &rig.agent;
    let rec = rig.rec.clone();
    let runner = agent.clone();
    let run = tokio::spawn(async move { runner.prompt("go").await });
    rec.wait_for(|e| matches!(e, AgentEvent::ToolExecutionStart { .. }))
        .await;
    agent.steer(AgentMessage::user_text("change of plan"));
    gate.notify_one();
    run.await.unwrap().unwrap();
    let kinds = squash(&rec.kinds());
    let tail = &kinds[kinds
        .iter()
        .position(|k| k == "tool_execution_end:c1")
        .unwrap()..];
    assert_eq!(
        tail,
        strs(&[
            "tool_execution_end:c1",
            "message_start:toolResult",
            "message_end:toolResult",
            "turn_end",
            "turn_start",
            // Published by the delivery, before the delivered message starts.
            "queue_changed:0+0",
            "message_start:user",
            "message_end:user",
            "message_start:assistant",
            "message_update*3",
            "message_end:assistant",
            "turn_end",
            "agent_end",
        ])
    );
    assert!(
        kinds.contains(&"queue_changed:1+0".to_owned()),
        "queueing is published: {kinds:?}"
    );
    let second = &rig.contexts()[1];
    let roles: Vec<&str> = second
        .messages
        .iter()
        .map(|m| match &**m {
            Message::User(_) => "user",
            Message::Assistant(_) => "assistant",
            Message::ToolResult(_) => "toolResult",
        })
        .collect();
    assert_eq!(roles, ["user", "assistant", "toolResult", "user"]);
}

#[tokio::test]
async fn follow_up_runs_after_the_final_answer() {
    let rig = Rig::new_script(script![Turn::text("first"), Turn::text("second")]);
    rig.agent.set_tools(vec![]);
    let agent = &rig.agent;
    let rec = rig.rec.clone();
    agent.follow_up(AgentMessage::user_text("and then?"));
    agent.prompt("start").await.unwrap();
    assert_eq!(
        squash(&rec.kinds()),
        strs(&[
            "queue_changed:0+1",
            "agent_start",
            "turn_start",
            "message_start:user",
            "message_end:user",
            "message_start:assistant",
            "message_update*3",
            "message_end:assistant",
            "turn_end",
            "turn_start",
            "queue_changed:0+0",
            "message_start:user",
            "message_end:user",
            "message_start:assistant",
            "message_update*3",
            "message_end:assistant",
            "turn_end",
            "agent_end",
        ])
    );
    assert_eq!(agent.messages().len(), 4);
    assert!(!agent.has_queued_messages());
}

#[tokio::test]
async fn clearing_the_queues_returns_and_publishes_what_they_held() {
    let rig = Rig::new_script(script![]);
    let agent = &rig.agent;
    agent.steer(AgentMessage::user_text("s1"));
    agent.follow_up(AgentMessage::user_text("f1"));
    agent.follow_up(AgentMessage::user_text("f2"));
    let queued = agent.queued_messages();
    assert_eq!((queued.steering.len(), queued.follow_up.len()), (1, 2));
    let removed = agent.clear_all_queues();
    assert_eq!(removed, queued);
    assert!(!agent.has_queued_messages());
    assert_eq!(
        rig.rec.kinds(),
        strs(&[
            "queue_changed:1+0",
            "queue_changed:1+1",
            "queue_changed:1+2",
            "queue_changed:0+0",
        ])
    );
}

#[tokio::test]
async fn queue_modes_deliver_one_or_all() {
    let rig = Rig::new_script(script![Turn::text("a"), Turn::text("b"), Turn::text("c"),]);
    rig.agent.set_tools(vec![]);
    let agent = &rig.agent;
    agent.follow_up(AgentMessage::user_text("f1"));
    agent.follow_up(AgentMessage::user_text("f2"));
    agent.prompt("start").await.unwrap();
    // one-at-a-time: two extra turns
    assert_eq!(rig.contexts().len(), 3);

    let rig = Rig::new_script(script![Turn::text("a"), Turn::text("b")]);
    rig.agent.set_tools(vec![]);
    let agent = &rig.agent;
    agent.set_queue_modes(pi_agent::QueueMode::All, pi_agent::QueueMode::All);
    agent.follow_up(AgentMessage::user_text("f1"));
    agent.follow_up(AgentMessage::user_text("f2"));
    agent.prompt("start").await.unwrap();
    assert_eq!(rig.contexts().len(), 2);
    assert_eq!(rig.contexts()[1].messages.len(), 4);
}

#[tokio::test]
async fn continue_runs_from_current_messages() {
    let rig = Rig::new_script(script![Turn::text("continued"), Turn::text("again")]);
    rig.agent.set_tools(vec![]);
    let agent = &rig.agent;
    let rec = rig.rec.clone();
    assert_eq!(
        agent.continue_run().await,
        Err(AgentError::NothingToContinue)
    );
    agent.append_message(AgentMessage::user_text("pending question"));
    agent.continue_run().await.unwrap();
    assert_eq!(
        squash(&rec.kinds()),
        strs(&[
            "agent_start",
            "turn_start",
            "message_start:assistant",
            "message_update*3",
            "message_end:assistant",
            "turn_end",
            "agent_end",
        ])
    );
    assert_eq!(rig.contexts()[0].messages.len(), 1);
    // Last message is the assistant's: an error unless something is queued.
    let err = agent.continue_run().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "Cannot continue from message role: assistant"
    );
    agent.follow_up(AgentMessage::user_text("more"));
    let before = rec.kinds().len();
    agent.continue_run().await.unwrap();
    assert_eq!(rig.contexts().len(), 2);
    assert_eq!(agent.messages().len(), 4);
    // The queued message becomes the prompt: its queue is published right before it starts.
    assert_eq!(
        rec.kinds()[before - 1..before + 5],
        strs(&[
            "queue_changed:0+1",
            "agent_start",
            "turn_start",
            "queue_changed:0+0",
            "message_start:user",
            "message_end:user",
        ])
    );
}

#[tokio::test]
async fn prompt_while_running_is_refused() {
    let rig = Rig::new_script(script![Reply::hang_after_headers(Turn::text("slow"), 4)]);
    rig.agent.set_tools(vec![]);
    let agent = &rig.agent;
    let rec = rig.rec.clone();
    let runner = agent.clone();
    let run = tokio::spawn(async move { runner.prompt("one").await });
    rec.wait_for(|e| matches!(e, AgentEvent::MessageUpdate { .. }))
        .await;
    assert_eq!(agent.prompt("two").await, Err(AgentError::AlreadyRunning));
    agent.abort();
    agent.wait_for_idle().await;
    run.await.unwrap().unwrap();
    assert!(!agent.is_running());
}

#[tokio::test]
async fn transform_context_and_convert_to_llm_shape_the_request() {
    let rig = Rig::new_script(script![Turn::text("ok")]);
    let mut hooks = rig.hooks();
    hooks.transform_context = Some(Arc::new(|mut messages, _cancel| {
        Box::pin(async move {
            let note = BranchSummaryMessage {
                summary: "injected".into(),
                from_id: "e1".into(),
                timestamp: 7,
            };
            messages.insert(0, note.into());
            Ok(messages)
        })
    }));
    hooks.convert_to_llm = Arc::new(|messages| {
        messages
            .iter()
            .map(|m| match m {
                AgentMessage::Host(h) => {
                    let HostMessage::BranchSummary(note) = &**h else {
                        unreachable!("only the injected summary is a host message")
                    };
                    Arc::new(Message::User(UserMessage {
                        content: UserContent::Text(format!("[{}] {}", h.role(), note.summary)),
                        timestamp: h.timestamp(),
                    }))
                }
                AgentMessage::Llm(m) => m.clone(),
            })
            .collect()
    });
    rig.agent.set_hooks(hooks);
    let agent = &rig.agent;
    agent.set_system_prompt("be brief");
    agent.prompt("question").await.unwrap();
    let request = &rig.contexts()[0];
    assert_eq!(request.system_prompt.as_deref(), Some("be brief"));
    assert_eq!(request.messages.len(), 2);
    let Message::User(first) = &*request.messages[0] else {
        panic!("expected user")
    };
    assert_eq!(
        first.content,
        UserContent::Text("[branchSummary] injected".into())
    );
    // The transformation is for the request only.
    assert_eq!(agent.messages().len(), 2);
    assert!(agent.messages().iter().all(|m| m.as_llm().is_some()));
}

#[tokio::test]
async fn failing_transform_becomes_a_synthetic_error_message() {
    let rig = Rig::new_script(script![Turn::text("unused")]);
    let mut hooks = rig.hooks();
    hooks.transform_context = Some(Arc::new(|_, _| {
        Box::pin(async { Err("context store offline".to_owned()) })
    }));
    rig.agent.set_hooks(hooks);
    let agent = &rig.agent;
    let rec = rig.rec.clone();
    agent.prompt("q").await.unwrap();
    assert_eq!(rig.contexts().len(), 0);
    let kinds = rec.kinds();
    assert_eq!(kinds.last().map(String::as_str), Some("agent_end"));
    let last = agent
        .messages()
        .last()
        .unwrap()
        .as_assistant()
        .unwrap()
        .clone();
    assert_eq!(last.stop_reason, StopReason::Error);
    assert_eq!(last.error_message.as_deref(), Some("context store offline"));
    assert_eq!(
        agent.state().error_message.as_deref(),
        Some("context store offline")
    );
}

#[tokio::test]
async fn prepare_next_turn_can_replace_messages_and_should_stop_ends_the_run() {
    let rig = Rig::new_script(script![
        Turn::new().tool_call("c1", "echo", json!({})),
        Turn::text("after compaction"),
    ]);
    let mut hooks = rig.hooks();
    hooks.prepare_next_turn = Some(Arc::new(|info| {
        let keep = info.messages.len();
        Box::pin(async move {
            let summary = AgentMessage::user_text(format!("summary of {keep} messages"));
            Some(NextTurnUpdate {
                messages: Some(vec![summary]),
                ..Default::default()
            })
        })
    }));
    rig.agent.set_hooks(hooks);
    let agent = &rig.agent;
    agent.set_tools(vec![echo_tool()]);
    agent.prompt("go").await.unwrap();
    let second = &rig.contexts()[1];
    assert_eq!(second.messages.len(), 1);
    let Message::User(summary) = &*second.messages[0] else {
        panic!("expected the summary")
    };
    assert_eq!(
        summary.content,
        UserContent::Text("summary of 3 messages".into())
    );
    // The agent's state follows the replacement, then gets the new answer.
    assert_eq!(agent.messages().len(), 2);

    let rig = Rig::new_script(script![
        Turn::new().tool_call("c1", "echo", json!({})),
        Turn::text("unreached"),
    ]);
    let mut hooks = rig.hooks();
    hooks.should_stop_after_turn = Some(Arc::new(|info| !info.tool_results.is_empty()));
    rig.agent.set_hooks(hooks);
    let agent = &rig.agent;
    agent.set_tools(vec![echo_tool()]);
    let rec = rig.rec.clone();
    agent.prompt("go").await.unwrap();
    assert_eq!(rig.contexts().len(), 1);
    let kinds = rec.kinds();
    assert_eq!(
        kinds[kinds.len() - 2..],
        strs(&["turn_end", "agent_end"])[..]
    );
}

#[tokio::test]
async fn prepare_next_turn_can_offer_new_tools_from_the_next_request_on() {
    let rig = Rig::new_script(script![
        Turn::new().tool_call("c1", "echo", json!({})),
        Turn::new().tool_call("c2", "late", json!({})),
        Turn::text("done"),
    ]);
    let late = FnTool::new("late", |_, _, _| {
        Box::pin(async { Ok(ToolOutput::text("late answer")) })
    })
    .arc();
    let mut hooks = rig.hooks();
    hooks.prepare_next_turn = Some(Arc::new(move |_| {
        let tools = vec![echo_tool(), late.clone()];
        Box::pin(async move {
            Some(NextTurnUpdate {
                tools: Some(tools),
                ..Default::default()
            })
        })
    }));
    rig.agent.set_hooks(hooks);
    rig.agent.set_tools(vec![echo_tool()]);
    rig.agent.prompt("go").await.unwrap();
    let names = |i: usize| -> Vec<String> {
        rig.contexts()[i]
            .tools
            .iter()
            .map(|t| t.name.clone())
            .collect()
    };
    assert_eq!(names(0), ["echo"]);
    assert_eq!(names(1), ["echo", "late"]);
    // The new tool ran, and the agent keeps the set for the next prompt.
    let results: Vec<String> = rig
        .agent
        .messages()
        .iter()
        .filter_map(|m| m.as_tool_result())
        .map(|r| r.text())
        .collect();
    assert_eq!(results, ["echo: {}", "late answer"]);
    assert_eq!(rig.agent.state().tools.len(), 2);
}

#[tokio::test]
async fn tool_updates_become_events_until_the_result() {
    let tool = FnTool::new("progress", |_, _, update| {
        Box::pin(async move {
            update(ToolOutput::text("10%"));
            tokio::time::sleep(Duration::from_millis(5)).await;
            update(ToolOutput::text("90%"));
            let late = update.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(30)).await;
                late(ToolOutput::text("stale"));
            });
            Ok(ToolOutput::text("done"))
        })
    })
    .arc();
    let rig = Rig::new_script(script![
        Turn::new().tool_call("c1", "progress", json!({})),
        Turn::text("ok"),
    ]);
    rig.agent.set_tools(vec![tool]);
    let agent = &rig.agent;
    let rec = rig.rec.clone();
    agent.prompt("go").await.unwrap();
    tokio::time::sleep(Duration::from_millis(60)).await;
    let updates = rec
        .kinds()
        .iter()
        .filter(|k| k.starts_with("tool_execution_update"))
        .count();
    assert_eq!(updates, 2);
}

#[tokio::test]
async fn get_api_key_supplies_the_key_of_each_request() {
    let rig = Rig::new_script(script![Turn::text("ok")]);
    let mut hooks = rig.hooks();
    hooks.get_api_key = Some(Arc::new(|provider| {
        let key = format!("key-for-{provider}");
        Box::pin(async move { Ok(Some(key)) })
    }));
    rig.agent.set_hooks(hooks);
    rig.prompt("hi").await;
    let request = &rig.mock.requests()[0];
    assert_eq!(request.header("x-api-key"), Some("key-for-mock"));
}

#[tokio::test]
async fn an_auth_error_ends_the_turn_without_sending_the_request() {
    let rig = Rig::new_script(script![Turn::text("never sent")]);
    let mut hooks = rig.hooks();
    hooks.get_api_key = Some(Arc::new(|provider| {
        let error = format!("no login for {provider}");
        Box::pin(async move { Err(error) })
    }));
    rig.agent.set_hooks(hooks);
    rig.prompt("hi").await;
    assert!(rig.mock.requests().is_empty());
    let last = rig.agent.messages().last().cloned().unwrap();
    let Some(message) = last.as_assistant().cloned() else {
        panic!("expected an assistant message, got {last:?}");
    };
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(message.error_message.as_deref(), Some("no login for mock"));
}

/// The tool gates: a block answers without running, a rewrite runs with the new (validated
/// again) arguments, and `after_tool_call` replaces what the model sees.
#[tokio::test]
async fn tool_gates_block_rewrite_and_replace() {
    use pi_agent::{ToolCallResult, ToolGate};
    let rig = Rig::new_script(script![
        Turn::new()
            .tool_call("c1", "echo", json!({"x": "block"}))
            .tool_call("c2", "echo", json!({"x": "rewrite"}))
            .tool_call("c3", "echo", json!({"x": "replace"})),
        Turn::text("done"),
    ]);
    rig.agent.set_tools(vec![echo_tool()]);
    let mut hooks = rig.hooks();
    hooks.before_tool_call = Some(Arc::new(|call, args, _cancel| {
        let gate = match args["x"].as_str() {
            Some("block") => ToolGate::Block(format!("no {}", call.id)),
            Some("rewrite") => ToolGate::Run(json!({"x": "rewritten"})),
            _ => ToolGate::Run(args),
        };
        Box::pin(async move { gate })
    }));
    hooks.after_tool_call = Some(Arc::new(|_call, args, result, _cancel| {
        let replaced = args["x"] == "replace";
        Box::pin(async move {
            if replaced {
                ToolCallResult {
                    output: ToolOutput::text("replaced"),
                    is_error: true,
                }
            } else {
                result
            }
        })
    }));
    rig.agent.set_hooks(hooks);
    rig.agent.prompt("go").await.unwrap();
    assert_eq!(
        tool_result_texts(&rig.agent),
        vec![
            ("c1".into(), "no c1".into(), true),
            ("c2".into(), "echo: {\"x\":\"rewritten\"}".into(), false),
            ("c3".into(), "replaced".into(), true),
        ]
    );
}
