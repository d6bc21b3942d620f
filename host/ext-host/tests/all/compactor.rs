use crate::*;
use pi_ai::{AssistantBlock, AssistantMessage, Message, TextContent, UserContent, UserMessage};
use pi_ext_api::{CompactionDecision, CompactionPreparation, LlmBridge};
use pi_ext_host::ComponentCompactor;
use serde_json::json;
use std::sync::Arc;

fn compactor() -> ComponentCompactor {
    let ws = Workspace::create();
    let component = component(
        pi_ext_test_artifacts::COMPACTOR,
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
    Message::from(AssistantMessage {
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

/// Answers every `llm.complete` with a fixed text and remembers what it was asked.
#[derive(Default)]
struct FakeLlm {
    asked: std::sync::Mutex<Vec<(Option<String>, pi_ai::Context)>>,
}

impl LlmBridge for FakeLlm {
    fn complete(
        &self,
        model: Option<String>,
        context: pi_ai::Context,
    ) -> Result<AssistantMessage, String> {
        let known = model.is_none();
        self.asked.lock().expect("lock").push((model, context));
        if !known {
            return Err("no such model here".into());
        }
        let answer = pi_ai::AssistantMessage {
            content: vec![AssistantBlock::Text(TextContent {
                text: "a fake summary".into(),
                text_signature: None,
            })],
            model: "fake-model".into(),
            ..AssistantMessage::default()
        };
        Ok(answer)
    }
}

fn llm_compactor(llm: bool) -> ComponentCompactor {
    let ws = Workspace::create();
    let mut grant = ws.grant();
    grant.llm = llm;
    let component = component(
        pi_ext_test_artifacts::LLM_COMPACTOR,
        World::Compactor,
        grant,
        "llm-compactor",
    );
    ComponentCompactor::new(component.get().expect("load"))
}

/// A short conversation whose instructions ask the llm compactor for the session's model.
fn llm_prep() -> CompactionPreparation {
    CompactionPreparation {
        messages_to_summarize: vec![user("fix the parser"), assistant("fixed")],
        custom_instructions: Some("llm".into()),
        ..CompactionPreparation::default()
    }
}

#[tokio::test]
async fn a_compactor_granted_llm_asks_the_bridge() {
    let fake = Arc::new(FakeLlm::default());
    let compactor = llm_compactor(true).with_llm(fake.clone());
    let mut prep = llm_prep();
    let decision = compactor
        .compact(&prep, CancellationToken::new())
        .await
        .expect("decision");
    assert_eq!(
        decision,
        CompactionDecision::Custom {
            summary: "model summary (fake-model): a fake summary".into(),
            details: None,
        }
    );
    prep.custom_instructions = Some("llm:elsewhere/x".into());
    let decision = compactor
        .compact(&prep, CancellationToken::new())
        .await
        .expect("decision");
    assert_eq!(
        decision,
        CompactionDecision::Custom {
            summary: "model unavailable: no such model here".into(),
            details: None,
        }
    );
    let asked = fake.asked.lock().expect("lock");
    assert_eq!(asked.len(), 2);
    assert_eq!(asked[1].0.as_deref(), Some("elsewhere/x"));
    // The guest's context, as pi-ai would send it.
    let context = &asked[0].1;
    assert_eq!(
        context.system_prompt.as_deref(),
        Some("You are the test compactor's summarizer.")
    );
    let Message::User(question) = &*context.messages[0] else {
        panic!("not a user message: {:?}", context.messages);
    };
    let text = format!("{:?}", question.content);
    assert!(
        text.contains("user: fix the parser\\nassistant: fixed"),
        "{text}"
    );
}

#[tokio::test]
async fn a_compactor_importing_llm_loads_without_the_grant_and_its_call_is_refused() {
    let fake = Arc::new(FakeLlm::default());
    let compactor = llm_compactor(false).with_llm(fake.clone());
    let prep = llm_prep();
    let decision = compactor
        .compact(&prep, CancellationToken::new())
        .await
        .expect("decision");
    assert_eq!(
        decision,
        CompactionDecision::Custom {
            summary: "model unavailable: capability `llm` was not granted to llm-compactor@0.1.0"
                .into(),
            details: None,
        }
    );
    assert!(
        fake.asked.lock().expect("lock").is_empty(),
        "no model was asked"
    );
}
