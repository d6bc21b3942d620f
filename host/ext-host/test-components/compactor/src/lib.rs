//! A compaction override: cancels when asked to, defers to pi for short histories, and writes
//! its own summary otherwise. Asked to `sleep`, it sleeps ten minutes (the watchdog suite).

use pi_guest_sdk::{
    AssistantBlock, CompactionDecision, CompactionPreparation, Compactor, ContentBlock,
    CustomSummary, Message,
};

struct CountingCompactor;

impl Compactor for CountingCompactor {
    fn compact(prep: CompactionPreparation) -> CompactionDecision {
        if prep.custom_instructions.as_deref() == Some("sleep") {
            std::thread::sleep(std::time::Duration::from_secs(600));
        }
        if prep.custom_instructions.as_deref() == Some("cancel") {
            return CompactionDecision::Cancel("the user asked to keep everything".into());
        }
        if prep.messages_to_summarize.len() < 2 {
            return CompactionDecision::UseDefault;
        }
        let mut words = 0usize;
        let mut first_user = String::new();
        for m in &prep.messages_to_summarize {
            match m {
                Message::User(blocks) => {
                    for b in blocks {
                        if let ContentBlock::Text(t) = b {
                            words += t.split_whitespace().count();
                            if first_user.is_empty() {
                                first_user = t.clone();
                            }
                        }
                    }
                }
                Message::Assistant(a) => {
                    for b in &a.content {
                        if let AssistantBlock::Text(t) = b {
                            words += t.split_whitespace().count();
                        }
                    }
                }
                Message::ToolResult(_) => {}
            }
        }
        CompactionDecision::Custom(CustomSummary {
            summary: format!(
                "{} messages ({words} words) summarized; it began with: {first_user}",
                prep.messages_to_summarize.len()
            ),
            details: Some(format!(r#"{{"tokensBefore":{}}}"#, prep.tokens_before)),
        })
    }
}

pi_guest_sdk::export_compactor!(CountingCompactor);
