//! Tool scheduling: parallel batches overlap, a sequential tool serialises the batch.

use crate::support::*;
use pi_agent::{AgentEvent, AgentMessage, AgentTool, ToolOutput};
use pi_ai::Message;
use pi_mock_llm::Turn;
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A tool that waits until all `parties` tools have started (fails after `timeout_ms` otherwise), then
/// finishes after `delay_ms`.
pub fn latch_tool(name: &str, latch: Latch, delay_ms: u64, timeout_ms: u64) -> Arc<dyn AgentTool> {
    FnTool::new(name, move |args, _, _| {
        let latch = latch.clone();
        Box::pin(async move {
            if !latch.meet(Duration::from_millis(timeout_ms)).await {
                return Err("the other tools never started: not parallel".into());
            }
            tokio::time::sleep(Duration::from_millis(delay_ms)).await;
            Ok(ToolOutput::text(format!("done {args}")))
        })
    })
    .arc()
}

pub fn three_call_turn() -> Turn {
    Turn::new()
        .tool_call("c1", "slow", json!({"n": 1}))
        .tool_call("c2", "medium", json!({"n": 2}))
        .tool_call("c3", "fast", json!({"n": 3}))
}

pub fn three_latch_tools() -> Vec<Arc<dyn AgentTool>> {
    let latch = Latch::new(3);
    vec![
        latch_tool("slow", latch.clone(), 120, 2000),
        latch_tool("medium", latch.clone(), 60, 2000),
        latch_tool("fast", latch, 0, 2000),
    ]
}

/// The expected events of a three-call parallel turn: starts in call order, ends in
/// completion order (c3, c2, c1), results in call order.
pub fn three_parallel_tool_events() -> Vec<String> {
    strs(&[
        "tool_execution_start:c1",
        "tool_execution_start:c2",
        "tool_execution_start:c3",
        "tool_execution_end:c3",
        "tool_execution_end:c2",
        "tool_execution_end:c1",
        "message_start:toolResult",
        "message_end:toolResult",
        "message_start:toolResult",
        "message_end:toolResult",
        "message_start:toolResult",
        "message_end:toolResult",
        "turn_end",
    ])
}

pub fn assert_parallel_results(messages: &[AgentMessage]) {
    let results: Vec<_> = messages
        .iter()
        .filter_map(AgentMessage::as_tool_result)
        .collect();
    let ids: Vec<&str> = results.iter().map(|r| call_id(&r.tool_call_id)).collect();
    assert_eq!(ids, ["c1", "c2", "c3"]);
    assert!(results.iter().all(|r| !r.is_error), "{results:?}");
}

#[tokio::test]
async fn three_tools_run_in_parallel() {
    let rig = Rig::new_script(script![three_call_turn(), Turn::text("all done")]);
    rig.agent.set_tools(three_latch_tools());
    let agent = &rig.agent;
    let rec = rig.rec.clone();
    agent.prompt("go").await.unwrap();
    let kinds = squash(&rec.kinds());
    let from = kinds
        .iter()
        .position(|k| k == "tool_execution_start:c1")
        .unwrap();
    assert_eq!(kinds[from..from + 13], three_parallel_tool_events()[..]);
    assert_parallel_results(&agent.messages());
    let second = &rig.contexts()[1];
    let result_ids: Vec<&str> = second
        .messages
        .iter()
        .filter_map(|m| match &**m {
            Message::ToolResult(r) => Some(r.tool_call_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(result_ids, ["c1", "c2", "c3"]);
}

#[tokio::test]
async fn a_sequential_tool_makes_the_batch_sequential() {
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let make = |name: &str, sequential: bool| {
        let log = log.clone();
        let label = name.to_owned();
        let tool = FnTool::new(name, move |_, _, _| {
            let log = log.clone();
            let label = label.clone();
            Box::pin(async move {
                log.lock().unwrap().push(format!("start {label}"));
                tokio::time::sleep(Duration::from_millis(20)).await;
                log.lock().unwrap().push(format!("end {label}"));
                Ok(ToolOutput::text(label))
            })
        });
        if sequential {
            tool.sequential().arc()
        } else {
            tool.arc()
        }
    };
    let tools = vec![make("a", false), make("b", true), make("c", false)];
    let rig = Rig::new_script(script![
        Turn::new()
            .tool_call("c1", "a", json!({}))
            .tool_call("c2", "b", json!({}))
            .tool_call("c3", "c", json!({})),
        Turn::text("ok"),
    ]);
    rig.agent.set_tools(tools);
    let agent = &rig.agent;
    let rec = rig.rec.clone();
    agent.prompt("go").await.unwrap();
    assert_eq!(
        *log.lock().unwrap(),
        strs(&["start a", "end a", "start b", "end b", "start c", "end c"])
    );
    let kinds = squash(&rec.kinds());
    let from = kinds
        .iter()
        .position(|k| k == "tool_execution_start:c1")
        .unwrap();
    let mut expected = Vec::new();
    for id in ["c1", "c2", "c3"] {
        expected.push(format!("tool_execution_start:{id}"));
        expected.push(format!("tool_execution_end:{id}"));
        expected.push("message_start:toolResult".to_owned());
        expected.push("message_end:toolResult".to_owned());
    }
    expected.push("turn_end".to_owned());
    assert_eq!(kinds[from..from + 13], expected[..]);
}

#[tokio::test]
async fn forced_sequential_execution_cannot_open_the_latch() {
    // Control for the latch proof: forced sequential execution cannot open the latch, so
    // each tool reports the timeout as its error.
    let rig = Rig::new_script(script![three_call_turn(), Turn::text("x")]);
    rig.agent
        .set_tool_execution(pi_agent::ToolExecution::Sequential);
    let agent = &rig.agent;
    let latch = Latch::new(3);
    agent.set_tools(vec![
        latch_tool("slow", latch.clone(), 0, 100),
        latch_tool("medium", latch.clone(), 0, 100),
        latch_tool("fast", latch, 0, 100),
    ]);
    let rec = rig.rec.clone();
    agent.prompt("go").await.unwrap();
    let errors = rec
        .events()
        .iter()
        .filter(|e| matches!(e, AgentEvent::ToolExecutionEnd { is_error: true, .. }))
        .count();
    assert_eq!(errors, 3);
}
