//! The `subagent` call's block: three children running (one pending), done with answers and
//! one failure, the footer counting the children's tokens and cost, the expanded child
//! transcript from live `subagent` events, and a continued session's children read from (or
//! missing) their session files.

use super::screens::{Shot, agent, answer, text, transcript, user};
use pi_agent::{AgentEvent, AgentMessage, ToolOutput};
use pi_ai::{AssistantBlock, Message, ToolResultMessage};
use pi_app::subagents::{ChildResult, ChildStatus, ChildUsage, SubagentDetails, SubagentForm};
use pi_app::{AppEvent, SessionEvent};
use pi_tui::Transcript;
use serde_json::{Value, json};

fn child(id: &str, agent: &str, task: &str, status: ChildStatus) -> ChildResult {
    ChildResult {
        id: id.into(),
        agent: agent.into(),
        agent_source: "user".into(),
        task: task.into(),
        status,
        ..ChildResult::default()
    }
}

fn usage(input: u64, output: u64, cost: f64) -> ChildUsage {
    ChildUsage {
        input,
        output,
        cost,
        turns: 1,
        ..ChildUsage::default()
    }
}

fn details(results: Vec<ChildResult>) -> Value {
    let details = SubagentDetails {
        mode: SubagentForm::Parallel,
        results,
        is_error: false,
    };
    serde_json::to_value(details).unwrap()
}

fn args() -> Value {
    json!({"tasks": [
        {"agent": "scout", "task": "Find where the parser reads numbers"},
        {"agent": "planner", "task": "Plan the fix for negative exponents"},
        {"agent": "reviewer", "task": "Review the lexer"},
    ]})
}

fn running() -> Vec<ChildResult> {
    let mut scout = child(
        "c-scout",
        "scout",
        "Find where the parser reads numbers\nand list the callers",
        ChildStatus::Running,
    );
    scout.current_tool = Some("grep".into());
    scout.usage = usage(1200, 300, 0.01);
    let mut planner = child(
        "c-planner",
        "planner",
        "Plan the fix for negative exponents in every number format the parser accepts",
        ChildStatus::Running,
    );
    planner.usage = usage(800, 0, 0.0);
    let reviewer = child(
        "c-reviewer",
        "reviewer",
        "Review the lexer",
        ChildStatus::Pending,
    );
    vec![scout, planner, reviewer]
}

fn done() -> Vec<ChildResult> {
    let [mut scout, mut planner, mut reviewer]: [ChildResult; 3] = running().try_into().unwrap();
    scout.status = ChildStatus::Completed;
    scout.current_tool = None;
    scout.usage = usage(2000, 500, 0.02);
    scout.output = "Numbers are read in src/number.rs:\n- parse_number (line 40)\n- \
                    parse_exponent (line 88)\n- called from lexer.rs only"
        .into();
    planner.status = ChildStatus::Completed;
    planner.usage = usage(1500, 400, 0.015);
    planner.output = "Handle the sign before the digits.".into();
    reviewer.status = ChildStatus::Failed;
    reviewer.usage = usage(300, 0, 0.003);
    reviewer.error_message = Some("model not found: local/missing".into());
    vec![scout, planner, reviewer]
}

fn start() -> AppEvent {
    agent(AgentEvent::ToolExecutionStart {
        tool_call_id: "call-1".into(),
        tool_name: "subagent".into(),
        args: args(),
    })
}

fn update(results: Vec<ChildResult>) -> AppEvent {
    agent(AgentEvent::ToolExecutionUpdate {
        tool_call_id: "call-1".into(),
        tool_name: "subagent".into(),
        args: args(),
        partial_result: ToolOutput::text("").with_details(details(results)),
    })
}

/// The end and the result message, as a run sends them.
fn end(results: Vec<ChildResult>) -> Vec<AppEvent> {
    let details = details(results);
    vec![
        agent(AgentEvent::ToolExecutionEnd {
            tool_call_id: "call-1".into(),
            tool_name: "subagent".into(),
            result: ToolOutput::text("3 children: 2 done, 1 failed").with_details(details.clone()),
            is_error: false,
            duration_ms: None,
        }),
        agent(AgentEvent::MessageStart {
            message: result_message(details),
        }),
    ]
}

fn result_message(details: Value) -> AgentMessage {
    AgentMessage::from(Message::ToolResult(ToolResultMessage {
        tool_call_id: "call-1".into(),
        tool_name: "subagent".into(),
        content: Vec::new(),
        details: Some(details),
        is_error: false,
        timestamp: 0,
        duration_ms: None,
    }))
}

fn asking() -> AgentMessage {
    AgentMessage::from(answer(
        vec![AssistantBlock::ToolCall(pi_ai::ToolCall {
            id: "call-1".into(),
            name: "subagent".into(),
            arguments: args(),
            thought_signature: None,
        })],
        100,
    ))
}

/// The child's own events, wrapped as the parent's stream carries them.
fn from_child(id: &str, event: AgentEvent) -> AppEvent {
    AppEvent::Session(SessionEvent::Subagent {
        tool_call_id: "call-1".into(),
        id: id.into(),
        agent: "scout".into(),
        event: Box::new(AppEvent::Agent(event)),
    })
}

fn scout_run() -> Vec<AppEvent> {
    let grep = pi_ai::ToolCall {
        id: "g1".into(),
        name: "grep".into(),
        arguments: json!({"pattern": "fn parse_number", "path": "src"}),
        thought_signature: None,
    };
    let looking = answer(
        vec![
            text("Looking for the number parser."),
            AssistantBlock::ToolCall(grep),
        ],
        0,
    );
    // A child's text is drawn, never obeyed: the escape sequence must not reach the screen.
    let found = answer(vec![text("Numbers are read in \x1b[2Jsrc/number.rs.")], 0);
    vec![
        from_child(
            "c-scout",
            AgentEvent::MessageEnd {
                message: AgentMessage::from(looking),
            },
        ),
        from_child(
            "c-scout",
            AgentEvent::ToolExecutionStart {
                tool_call_id: "g1".into(),
                tool_name: "grep".into(),
                args: json!({"pattern": "fn parse_number", "path": "src"}),
            },
        ),
        from_child(
            "c-scout",
            AgentEvent::ToolExecutionEnd {
                tool_call_id: "g1".into(),
                tool_name: "grep".into(),
                result: ToolOutput::text(
                    "src/number.rs:40: fn parse_number\nsrc/number.rs:88: fn parse_exponent\nsrc/lexer.rs:12: use number",
                ),
                is_error: false,
                duration_ms: None,
            },
        ),
        from_child(
            "c-scout",
            AgentEvent::MessageEnd {
                message: AgentMessage::from(found),
            },
        ),
    ]
}

#[test]
fn three_children_running_one_pending() {
    let t = transcript([user("Look at the parser"), start(), update(running())]);
    insta::assert_snapshot!(Shot::new(&t).render(80, 14));
}

#[test]
fn children_done_with_answers_and_one_failure() {
    let mut events = vec![user("Look at the parser"), start(), update(running())];
    events.extend(end(done()));
    let t = transcript(events);
    let shot = Shot::new(&t).render(110, 20);
    // The footer counts the children: 3800 in, 900 out, $0.038.
    assert!(
        shot.contains("↑3.8k ↓900") && shot.contains("$0.038"),
        "{shot}"
    );
    insta::assert_snapshot!(shot);
}

#[test]
fn ctrl_o_shows_a_childs_transcript() {
    let mut events = vec![user("Look at the parser"), start(), update(running())];
    events.extend(scout_run());
    events.extend(end(done()));
    let t = transcript(events);
    let mut shot = Shot::new(&t);
    let collapsed = shot.render(80, 30);
    assert!(!collapsed.contains("Looking for"), "{collapsed}");
    shot.expanded = true;
    let expanded = shot.render(80, 30);
    assert!(!expanded.contains('\x1b'), "{expanded:?}");
    insta::assert_snapshot!(expanded);
}

#[test]
fn a_continued_sessions_children_are_read_from_their_files_or_said_gone() {
    let dir = tempfile::tempdir().unwrap();
    let kept = dir.path().join("scout.jsonl");
    let mut session = pi_session::session::SessionManager::create_at(&kept, dir.path());
    session
        .append_message(AgentMessage::from(pi_ai::UserMessage {
            content: pi_ai::UserContent::Text("Task: Find where the parser reads numbers".into()),
            timestamp: 0,
        }))
        .unwrap();
    session
        .append_message(AgentMessage::from(answer(
            vec![text("From the file: src/number.rs.")],
            10,
        )))
        .unwrap();
    drop(session);
    let [mut scout, mut planner, reviewer]: [ChildResult; 3] = done().try_into().unwrap();
    scout.session_file = Some(kept.display().to_string());
    planner.session_file = Some(dir.path().join("planner.jsonl").display().to_string());
    let messages = [
        asking(),
        result_message(details(vec![scout, planner, reviewer])),
    ];
    let mut t = Transcript::from_messages(&messages);
    t.load_children();
    let mut shot = Shot::new(&t);
    shot.expanded = true;
    let screen = shot.render(100, 30);
    assert!(screen.contains("From the file: src/number.rs."), "{screen}");
    assert!(screen.contains("session file gone:"), "{screen}");
    assert!(screen.contains("(its transcript was not kept)"), "{screen}");
}

#[test]
fn chain_steps_show_their_number() {
    let [mut first, mut second, _]: [ChildResult; 3] = done().try_into().unwrap();
    first.step = Some(1);
    second.step = Some(2);
    second.status = ChildStatus::Running;
    second.current_tool = Some("read".into());
    let details = serde_json::to_value(SubagentDetails {
        mode: SubagentForm::Chain,
        results: vec![first, second],
        is_error: false,
    })
    .unwrap();
    let chain_args = json!({"chain": [
        {"agent": "scout", "task": "Find where the parser reads numbers"},
        {"agent": "planner", "task": "Plan from {previous}"},
    ]});
    let t = transcript([
        agent(AgentEvent::ToolExecutionStart {
            tool_call_id: "call-1".into(),
            tool_name: "subagent".into(),
            args: chain_args.clone(),
        }),
        agent(AgentEvent::ToolExecutionUpdate {
            tool_call_id: "call-1".into(),
            tool_name: "subagent".into(),
            args: chain_args,
            partial_result: ToolOutput::text("").with_details(details),
        }),
    ]);
    let screen = Shot::new(&t).render(80, 14);
    assert!(screen.contains("subagent chain of 2"), "{screen}");
    assert!(screen.contains("✓ 1. scout  Find where"), "{screen}");
    assert!(screen.contains("⠋ 2. planner  Plan the fix"), "{screen}");
    assert!(screen.contains("· read · 1.9k tokens"), "{screen}");
}
