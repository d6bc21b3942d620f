//! pi 1.6's recorded system prompt: the `role: "system"` messages a session holds before its
//! requests. The first request records every section and tool; later requests record a patch
//! when the prompt or the tools change. Replaying a branch's system messages gives the prompt
//! and tools in force, which is what the next patch is computed against.

use crate::messages::{
    AgentMessage, DeclaredTool, HostMessage, PromptSections, RemovedTool, SystemMessage,
};
use crate::system_prompt::PromptSection;

/// The prompt sections and tools the system messages of `messages` leave in force.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RecordedSystem {
    /// Section name and text, in the order they were first recorded.
    pub sections: Vec<(String, String)>,
    pub tools: Vec<DeclaredTool>,
}

/// Replays the system messages of `messages`; `None` when there is none.
pub fn recorded_system(messages: &[AgentMessage]) -> Option<RecordedSystem> {
    let mut recorded: Option<RecordedSystem> = None;
    for message in messages {
        let Some(HostMessage::System(system)) = message.as_host() else {
            continue;
        };
        let state = recorded.get_or_insert_with(RecordedSystem::default);
        for (name, text) in &system.sections.0 {
            let at = state.sections.iter().position(|(n, _)| n == name);
            match (at, text) {
                (Some(i), Some(text)) => state.sections[i].1.clone_from(text),
                (None, Some(text)) => state.sections.push((name.clone(), text.clone())),
                (Some(i), None) => {
                    state.sections.remove(i);
                }
                (None, None) => {}
            }
        }
        for removed in &system.tools_removed {
            state.tools.retain(|t| t.name != removed.name);
        }
        for added in &system.tools_added {
            match state.tools.iter_mut().find(|t| t.name == added.name) {
                Some(tool) => *tool = added.clone(),
                None => state.tools.push(added.clone()),
            }
        }
    }
    recorded
}

/// The system message to record before a request made with `sections` and `tools`: every
/// section and tool when `messages` record none, a patch when the prompt or the tools differ
/// from what they record (`None` for a section that is gone; a changed tool is added again),
/// and `None` when nothing changed.
pub fn system_message_update(
    messages: &[AgentMessage],
    sections: &[PromptSection],
    tools: &[DeclaredTool],
    timestamp: i64,
) -> Option<SystemMessage> {
    let Some(recorded) = recorded_system(messages) else {
        return Some(SystemMessage {
            sections: PromptSections(
                sections
                    .iter()
                    .map(|s| (s.name.to_owned(), Some(s.text.clone())))
                    .collect(),
            ),
            tools_added: tools.to_vec(),
            timestamp,
            ..SystemMessage::default()
        });
    };
    let mut patch: Vec<(String, Option<String>)> = sections
        .iter()
        .filter(|s| {
            !recorded
                .sections
                .iter()
                .any(|(n, t)| n == s.name && *t == s.text)
        })
        .map(|s| (s.name.to_owned(), Some(s.text.clone())))
        .collect();
    patch.extend(
        recorded
            .sections
            .iter()
            .filter(|(name, _)| !sections.iter().any(|s| s.name == name))
            .map(|(name, _)| (name.clone(), None)),
    );
    let tools_added: Vec<DeclaredTool> = tools
        .iter()
        .filter(|tool| !recorded.tools.contains(tool))
        .cloned()
        .collect();
    let tools_removed: Vec<RemovedTool> = recorded
        .tools
        .iter()
        .filter(|old| !tools.iter().any(|t| t.name == old.name))
        .map(|old| RemovedTool {
            name: old.name.clone(),
        })
        .collect();
    if patch.is_empty() && tools_added.is_empty() && tools_removed.is_empty() {
        return None;
    }
    Some(SystemMessage {
        sections: PromptSections(patch),
        tools_added,
        tools_removed,
        timestamp,
        ..SystemMessage::default()
    })
}
