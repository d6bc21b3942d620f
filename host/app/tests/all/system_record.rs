//! pi 1.6's recorded system prompt, over the loopback model: the first request of a session
//! (new or older) records the full prompt and tools before the user message, a change of the
//! tools records a patch, and none of it reaches the model as a message.

use crate::session_support::*;
use pi_mock_llm::{Api, Turn};
use pi_session::messages::{AgentMessage, HostMessage, SystemMessage};
use pi_session::system_prompt::{SystemPromptOptions, sections};

fn system_messages(rig: &Rig) -> Vec<SystemMessage> {
    rig.app.with_session(|s| {
        s.entries()
            .iter()
            .filter_map(|e| match e.message().and_then(AgentMessage::as_host) {
                Some(HostMessage::System(system)) => Some(system.clone()),
                _ => None,
            })
            .collect()
    })
}

#[tokio::test]
async fn the_first_request_records_the_prompt_and_tools_then_a_tools_change_a_patch() {
    let prompt = sections(
        &SystemPromptOptions::new("/w", "/nonexistent-agent"),
        &Default::default(),
    );
    let rig = RigBuilder::new(Api::OpenAiCompletions)
        .tool(OkTool::arc())
        .system_prompt(prompt)
        .build();
    rig.mock.push(Turn::text("one"));
    rig.app.ask("first").await.unwrap();
    assert_eq!(
        rig.file_entries(),
        strs(&["message:system", "message:user", "message:assistant"])
    );
    let full = &system_messages(&rig)[0];
    let names: Vec<&str> = full.sections.0.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["preamble", "tools", "rules", "docs", "cwd"]);
    assert_eq!(full.tools_added.len(), 1);
    assert_eq!(full.tools_added[0].name, "echo");
    assert_eq!(full.tools_added[0].description, "answers ok");
    // Sent as the request's system prompt, never as a message.
    let request = rig.request_text(0);
    assert!(
        !request.contains("\"role\":\"system\",\"content\":\"\""),
        "{request}"
    );

    // The same prompt and tools: nothing new is recorded.
    rig.mock.push(Turn::text("two"));
    rig.app.ask("second").await.unwrap();
    assert_eq!(system_messages(&rig).len(), 1);

    // The tool is gone: the next request records a patch removing it.
    rig.app.set_tools(Vec::new());
    rig.mock.push(Turn::text("three"));
    rig.app.ask("third").await.unwrap();
    let recorded = system_messages(&rig);
    assert_eq!(recorded.len(), 2);
    assert!(recorded[1].sections.is_empty());
    assert!(recorded[1].tools_added.is_empty());
    assert_eq!(recorded[1].tools_removed[0].name, "echo");
    assert_eq!(
        rig.file_entries()[5..],
        strs(&["message:system", "message:user", "message:assistant"])
    );
    // The conversation holds them too; the TUI and the model leave them out.
    assert_eq!(rig.roles()[0], "system");
}

#[tokio::test]
async fn an_older_session_gets_the_full_message_on_its_first_request() {
    let rig = RigBuilder::new(Api::OpenAiCompletions)
        .seed(seed_history)
        .build();
    rig.mock.push(Turn::text("resumed"));
    rig.app.ask("go on").await.unwrap();
    let entries = rig.file_entries();
    let first_system = entries.iter().position(|e| e == "message:system").unwrap();
    assert_eq!(
        entries[first_system..],
        strs(&["message:system", "message:user", "message:assistant"])
    );
    assert!(first_system >= 4, "{entries:?}");
    assert_eq!(system_messages(&rig).len(), 1);
}
