//! The summarization prompts. The section headings, the closing line and the system prompt's
//! role, refusal and output phrases are pi's own (other tools parse the headings; a model
//! behaves as it does under pi); the guidance under the headings is our own wording.

/// System prompt of every summary request.
pub const SUMMARIZATION_SYSTEM_PROMPT: &str = "You are a context summarization assistant. You read a conversation between a user and an AI coding assistant and write a structured summary of it in exactly the requested format.

Do NOT continue the conversation, and do not answer the questions asked in it. ONLY output the structured summary.";

const SECTIONS_FIRST: &str = "## Goal
[What the user is trying to achieve. List several goals if the session covers several tasks.]

## Constraints & Preferences
- [Requirements, constraints or preferences the user stated]
- [\"(none)\" if there are none]

## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [Work that has started but is not finished]

### Blocked
- [What stands in the way, if anything]

## Key Decisions
- **[Decision]**: [Why it was made, briefly]

## Next Steps
1. [What to do next, in order]

## Critical Context
- [Data, examples or references needed to carry on]
- [\"(none)\" if there are none]";

const SECTIONS_UPDATE: &str = "## Goal
[Keep the goals already listed; add new ones if the work has grown.]

## Constraints & Preferences
- [Keep the known requirements; add any new ones.]

## Progress
### Done
- [x] [Items done before and items done since.]

### In Progress
- [ ] [Current work, updated to where it stands now.]

### Blocked
- [Current blockers; drop the ones that are resolved.]

## Key Decisions
- **[Decision]**: [Why, briefly] (keep earlier decisions, add new ones)

## Next Steps
1. [Updated to the current state.]

## Critical Context
- [Keep what still matters; add new information.]";

const CLOSING: &str =
    "Keep each section concise. Preserve exact file paths, function names, and error messages.";

/// Task of a first history summary.
pub const SUMMARIZATION_PROMPT: &str = "The messages above are a conversation to summarize. Write a structured checkpoint of it that another language model will use to carry on the work.

Use exactly this format:

";

/// Task of an update of an existing summary.
pub const UPDATE_SUMMARIZATION_PROMPT: &str = "The messages above are new conversation that has to be merged into the existing summary in <previous-summary>.

Update that structured summary with the new information:
- Keep everything from the previous summary that still holds.
- Add the new progress, decisions and context.
- In Progress: move items that are now finished to Done.
- Next Steps: bring them in line with what has been completed.
- Preserve exact file paths, function names, and error messages.
- Information that no longer matters may be dropped.

Use exactly this format:

";

/// Task of the summary of a turn's cut-off first part.
pub const TURN_PREFIX_SUMMARIZATION_PROMPT: &str = "This is the first part of a turn that was too long to keep whole. The second part, the most recent work, is kept word for word.

Summarize the first part so that the kept second part can be understood:

## Original Request
[What the user asked for in this turn]

## Early Progress
- [Decisions made and work done in the first part]

## Context for Suffix
- [What is needed to understand the kept recent work]

Be concise. Focus on what the second part needs.";

/// Instructions of a branch summary (the history sections without Critical Context).
pub const BRANCH_SUMMARY_PROMPT: &str = "The messages above are a conversation branch the user is leaving. Summarize it so the work can be picked up again from another branch.

Use exactly this format:

## Goal
[What the user was trying to achieve on this branch.]

## Constraints & Preferences
- [Requirements or preferences stated, or \"(none)\"]

## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [Work that was started]

### Blocked
- [Blockers, if any]

## Key Decisions
- **[Decision]**: [Why, briefly]

## Next Steps
1. [What would come next]

Keep each section concise. Preserve exact file paths, function names, and error messages.";

/// Text put before a branch summary.
pub const BRANCH_SUMMARY_PREFIX: &str = "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n";

/// Summary used for the history part of a split turn when there is no earlier history.
pub const NO_PRIOR_HISTORY: &str = "No prior history.";

fn conversation_block(conversation: &str) -> String {
    format!("<conversation>\n{conversation}\n</conversation>\n\n")
}

/// The user message of a history summary (first or update), with an optional focus.
pub fn history_prompt(conversation: &str, previous: Option<&str>, focus: Option<&str>) -> String {
    let mut text = conversation_block(conversation);
    match previous {
        Some(previous) => {
            text.push_str(&format!(
                "<previous-summary>\n{previous}\n</previous-summary>\n\n"
            ));
            text.push_str(UPDATE_SUMMARIZATION_PROMPT);
            text.push_str(SECTIONS_UPDATE);
        }
        None => {
            text.push_str(SUMMARIZATION_PROMPT);
            text.push_str(SECTIONS_FIRST);
        }
    }
    text.push_str("\n\n");
    text.push_str(CLOSING);
    if let Some(focus) = focus.map(str::trim).filter(|f| !f.is_empty()) {
        text.push_str(&format!("\n\nAdditional focus: {focus}"));
    }
    text
}

/// The user message of a split turn's first-part summary.
pub fn turn_prefix_prompt(conversation: &str) -> String {
    conversation_block(conversation) + TURN_PREFIX_SUMMARIZATION_PROMPT
}

/// The user message of a branch summary. `replace` swaps the default instructions for
/// `custom`; otherwise `custom` is added as a focus.
pub fn branch_prompt(conversation: &str, custom: Option<&str>, replace: bool) -> String {
    let custom = custom.map(str::trim).filter(|c| !c.is_empty());
    let mut text = conversation_block(conversation);
    match custom {
        Some(custom) if replace => text.push_str(custom),
        Some(custom) => {
            text.push_str(BRANCH_SUMMARY_PROMPT);
            text.push_str(&format!("\n\nAdditional focus: {custom}"));
        }
        None => text.push_str(BRANCH_SUMMARY_PROMPT),
    }
    text
}

/// How a split turn's two summaries are joined.
pub fn merge_split_turn(history: &str, prefix: &str) -> String {
    format!("{history}\n\n---\n\n**Turn Context (split turn):**\n\n{prefix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words pi's summarizer is known by (`pi-facts.md` §7.3) are there as pi has them:
    /// the role, the refusal, the output rule, the headings and the closing line.
    #[test]
    fn the_summary_request_uses_pis_phrases_and_headings() {
        assert!(
            SUMMARIZATION_SYSTEM_PROMPT.starts_with("You are a context summarization assistant.")
        );
        assert!(SUMMARIZATION_SYSTEM_PROMPT.contains("Do NOT continue the conversation"));
        assert!(SUMMARIZATION_SYSTEM_PROMPT.ends_with("ONLY output the structured summary."));
        let first = history_prompt("[User]: hi", None, Some("the parser"));
        let update = history_prompt("[User]: more", Some("## Goal\nold"), None);
        for prompt in [&first, &update] {
            // The instructions: after the conversation and the previous summary.
            let tail = prompt
                .rsplit("</previous-summary>")
                .next()
                .unwrap_or_default();
            let headings: Vec<&str> = tail.lines().filter(|l| l.starts_with('#')).collect();
            assert_eq!(
                headings,
                [
                    "## Goal",
                    "## Constraints & Preferences",
                    "## Progress",
                    "### Done",
                    "### In Progress",
                    "### Blocked",
                    "## Key Decisions",
                    "## Next Steps",
                    "## Critical Context"
                ]
            );
        }
        assert!(first.ends_with(&format!("{CLOSING}\n\nAdditional focus: the parser")));
        assert!(update.ends_with(CLOSING));
        // The whole first request, as a golden.
        let golden = format!("system:\n{SUMMARIZATION_SYSTEM_PROMPT}\n\nuser:\n{first}\n");
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/golden/summary_request.txt");
        if std::env::var_os("PI_UPDATE_GOLDEN").is_some() {
            std::fs::write(&path, &golden).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        let expected = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{} (PI_UPDATE_GOLDEN=1 writes it): {e}", path.display()));
        assert_eq!(golden, expected);
    }
}
