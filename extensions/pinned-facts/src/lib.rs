//! pinned-facts: a compaction override that keeps what the user pinned. Every compaction's
//! summary starts with a `## Pinned facts` section: the facts of the previous summary's
//! section, plus the lines of the user's messages (and of `/compact` instructions) that start
//! with `FACT:` or `remember:`, minus the facts a `forget:` line names. The rest of the
//! summary is written by a model through the granted `llm` import: the one
//! `PINNED_FACTS_MODEL` names (`provider/id` or an id), else the session's.
//!
//! When the model cannot be asked (no grant, no credential, an error answer), pi compacts its
//! own way and the log says why: losing the compaction would be worse than losing its format.

mod facts;
mod prompt;

use pi_guest_sdk::host::{LogLevel, log};
use pi_guest_sdk::{
    AssistantBlock, CompactionDecision, CompactionPreparation, Compactor, ContentBlock,
    CustomSummary, Message, StopReason,
};
use serde_json::json;

/// The variable naming the summarising model.
const MODEL_ENV: &str = "PINNED_FACTS_MODEL";

struct PinnedFacts;

impl Compactor for PinnedFacts {
    fn compact(prep: CompactionPreparation) -> CompactionDecision {
        match compact(&prep) {
            Ok(custom) => CompactionDecision::Custom(custom),
            Err(error) => {
                log(
                    LogLevel::Warn,
                    &format!("no summary from the model, pi compacts instead: {error}"),
                );
                CompactionDecision::UseDefault
            }
        }
    }
}

fn compact(prep: &CompactionPreparation) -> Result<CustomSummary, String> {
    let previous = facts::previous(prep.previous_summary.as_deref().unwrap_or(""));
    let messages: Vec<Message> = prep
        .messages_to_summarize
        .iter()
        .chain(&prep.turn_prefix_messages)
        .cloned()
        .collect();
    let instructions = prep.custom_instructions.as_deref().unwrap_or("");
    let marked = user_texts(&messages).chain([instructions]);
    let (pinned, dropped) = facts::update(previous.facts, marked);
    if !dropped.is_empty() {
        log(
            LogLevel::Warn,
            &format!(
                "more than {} pinned facts: the oldest {} are no longer kept: {}",
                facts::MAX_FACTS,
                dropped.len(),
                dropped.join(" | ")
            ),
        );
    }
    let model = std::env::var(MODEL_ENV)
        .ok()
        .map(|m| m.trim().to_owned())
        .filter(|m| !m.is_empty());
    let focus = facts::unmarked(instructions);
    let context = prompt::context(&prompt::Request {
        previous: &previous.summary,
        facts: &pinned,
        messages: &messages,
        focus: &focus,
    });
    let asked = model.as_deref().unwrap_or("the session's model");
    let answer = pi_guest_sdk::llm::complete(model.as_deref(), &context)
        .map_err(|e| format!("asking {asked}: {e}"))?;
    if answer.stop_reason == StopReason::Error {
        let error = answer.error_message.unwrap_or_default();
        return Err(format!("{} answered with an error: {error}", answer.model));
    }
    let text = answer_text(&answer.content);
    if text.trim().is_empty() {
        return Err(format!("{} answered with no text", answer.model));
    }
    log(
        LogLevel::Debug,
        &format!(
            "summary by {} with {} pinned facts",
            answer.model,
            pinned.len()
        ),
    );
    Ok(CustomSummary {
        summary: facts::summary(&pinned, &text),
        details: Some(json!({"facts": pinned, "model": answer.model}).to_string()),
    })
}

/// The text the user wrote in `messages`, block by block, in order.
fn user_texts(messages: &[Message]) -> impl Iterator<Item = &str> {
    messages
        .iter()
        .filter_map(|m| match m {
            Message::User(blocks) => Some(blocks),
            _ => None,
        })
        .flatten()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.as_str()),
            ContentBlock::Image(_) => None,
        })
}

fn answer_text(blocks: &[AssistantBlock]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            AssistantBlock::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("")
}

pi_guest_sdk::export_compactor!(PinnedFacts);
