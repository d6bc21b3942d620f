//! Files the summarised work read and changed: collected from `read` / `write` / `edit` tool
//! calls and from the details of earlier summaries, appended to a summary as tag lists.

use crate::messages::AgentMessage;
use crate::session::FileOpsDetails;
use pi_ai::AssistantBlock;
use serde_json::Value;
use std::collections::BTreeSet;

/// Paths seen per operation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileOps {
    pub read: BTreeSet<String>,
    pub written: BTreeSet<String>,
    pub edited: BTreeSet<String>,
}

impl FileOps {
    /// Adds the paths of the `read`, `write` and `edit` calls in `messages`.
    pub fn collect_from(&mut self, messages: &[AgentMessage]) {
        for message in messages {
            let Some(assistant) = message.as_assistant() else {
                continue;
            };
            for block in &assistant.content {
                let AssistantBlock::ToolCall(call) = block else {
                    continue;
                };
                let Some(path) = call.arguments.get("path").and_then(Value::as_str) else {
                    continue;
                };
                let set = match call.name.as_str() {
                    "read" => &mut self.read,
                    "write" => &mut self.written,
                    "edit" => &mut self.edited,
                    _ => continue,
                };
                set.insert(path.to_owned());
            }
        }
    }

    /// Adds the lists stored in an earlier summary's `details` (ignored when not that shape).
    pub fn merge_details(&mut self, details: Option<&Value>) {
        let Some(details) = details else { return };
        let Ok(parsed) = serde_json::from_value::<FileOpsDetails>(details.clone()) else {
            return;
        };
        self.read.extend(parsed.read_files);
        self.edited.extend(parsed.modified_files);
    }

    /// `readFiles` = read − modified, `modifiedFiles` = edited ∪ written, both sorted.
    pub fn details(&self) -> FileOpsDetails {
        let modified: BTreeSet<String> = self.edited.union(&self.written).cloned().collect();
        let read_files = self
            .read
            .iter()
            .filter(|p| !modified.contains(*p))
            .cloned()
            .collect();
        FileOpsDetails {
            read_files,
            modified_files: modified.into_iter().collect(),
        }
    }
}

/// The summary with `<read-files>` / `<modified-files>` lists appended (empty lists omitted).
pub fn append_file_lists(summary: &str, details: &FileOpsDetails) -> String {
    let mut out = summary.to_owned();
    for (tag, files) in [
        ("read-files", &details.read_files),
        ("modified-files", &details.modified_files),
    ] {
        if !files.is_empty() {
            out.push_str(&format!("\n\n<{tag}>\n{}\n</{tag}>", files.join("\n")));
        }
    }
    out
}

pub fn details_value(details: &FileOpsDetails) -> Value {
    serde_json::to_value(details).unwrap_or(Value::Null)
}
