//! A compaction override that has a model write the summary (`llm.complete`, so it needs the
//! `llm` grant). The instructions name the model: `llm` asks for the session's current model,
//! `llm:<model>` for that one; anything else defers to pi. When the host refuses the request
//! the summary reports the error it got, so that tests can see it.

use pi_guest_sdk::{
    AssistantBlock, CompactionDecision, CompactionPreparation, Compactor, ContentBlock,
    CustomSummary, LlmContext, Message,
};

struct ModelCompactor;

impl Compactor for ModelCompactor {
    fn compact(prep: CompactionPreparation) -> CompactionDecision {
        let Some(rest) = prep
            .custom_instructions
            .as_deref()
            .and_then(|i| i.strip_prefix("llm"))
        else {
            return CompactionDecision::UseDefault;
        };
        let model = rest.strip_prefix(':').filter(|m| !m.is_empty());
        let context = LlmContext {
            system_prompt: Some("You are the test compactor's summarizer.".into()),
            messages: vec![Message::User(vec![ContentBlock::Text(format!(
                "Summarize this conversation:\n{}",
                transcript(&prep)
            ))])],
            tools: vec![],
        };
        let summary = match pi_guest_sdk::llm::complete(model, &context) {
            Ok(answer) => format!(
                "model summary ({}): {}",
                answer.model,
                assistant_text(&answer.content)
            ),
            Err(error) => format!("model unavailable: {error}"),
        };
        CompactionDecision::Custom(CustomSummary {
            summary,
            details: None,
        })
    }
}

/// Every message to summarize as `role: text`, one a line.
fn transcript(prep: &CompactionPreparation) -> String {
    prep.messages_to_summarize
        .iter()
        .map(|m| match m {
            Message::User(blocks) => format!("user: {}", user_text(blocks)),
            Message::Assistant(a) => format!("assistant: {}", assistant_text(&a.content)),
            Message::ToolResult(r) => format!("tool: {}", user_text(&r.content)),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn user_text(blocks: &[ContentBlock]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.as_str()),
            ContentBlock::Image(_) => None,
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn assistant_text(blocks: &[AssistantBlock]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            AssistantBlock::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pi_guest_sdk::export_compactor!(ModelCompactor);
