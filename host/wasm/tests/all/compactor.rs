use crate::*;
use pi_ai::{AssistantBlock, AssistantMessage, Message, TextContent, UserContent, UserMessage};
use pi_wasm::{CompactionDecision, CompactionOverride, CompactionPreparation, ComponentCompactor};
use serde_json::json;

fn compactor() -> ComponentCompactor {
    let ws = Workspace::create();
    let component = component(
        pi_wasm_test_artifacts::COMPACTOR,
        World::Compactor,
        ws.grant(),
        "counter",
    );
    ComponentCompactor::new(component.get().expect("load"))
}

fn user(text: &str) -> Message {
    Message::User(UserMessage {
        content: UserContent::Text(text.into()),
        timestamp: 0,
    })
}

fn assistant(text: &str) -> Message {
    Message::Assistant(AssistantMessage {
        content: vec![AssistantBlock::Text(TextContent {
            text: text.into(),
            text_signature: None,
        })],
        ..AssistantMessage::default()
    })
}

#[tokio::test]
async fn a_compactor_writes_a_custom_summary() {
    let prep = CompactionPreparation {
        messages_to_summarize: vec![
            user("fix the parser please"),
            assistant("done with the fix"),
        ],
        tokens_before: 5000,
        first_kept_entry_id: "e7".into(),
        ..CompactionPreparation::default()
    };
    let decision = compactor()
        .compact(&prep, CancellationToken::new())
        .await
        .expect("decision");
    assert_eq!(
        decision,
        CompactionDecision::Custom {
            summary: "2 messages (8 words) summarized; it began with: fix the parser please".into(),
            details: Some(json!({"tokensBefore": 5000})),
        }
    );
}

#[tokio::test]
async fn a_compactor_can_cancel_or_use_the_default() {
    let c = compactor();
    let cancel = CompactionPreparation {
        messages_to_summarize: vec![user("a"), user("b")],
        custom_instructions: Some("cancel".into()),
        ..CompactionPreparation::default()
    };
    assert_eq!(
        c.compact(&cancel, CancellationToken::new())
            .await
            .expect("decision"),
        CompactionDecision::Cancel("the user asked to keep everything".into())
    );
    let short = CompactionPreparation {
        messages_to_summarize: vec![user("a")],
        ..CompactionPreparation::default()
    };
    assert_eq!(
        c.compact(&short, CancellationToken::new())
            .await
            .expect("decision"),
        CompactionDecision::UseDefault
    );
}
