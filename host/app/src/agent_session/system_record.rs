//! The session's record of the system prompt (pi 1.6's `role: "system"` messages): before a
//! prompt's request, the full prompt and tools when the conversation records none (a new
//! session, an older one, or a branch compacted past them), a patch when they changed since.
//! The message joins the agent's history, where `convert_to_llm` leaves it out of requests.

use super::{AgentSession, lock};
use pi_agent::{AgentMessage, DeclaredTool};
use pi_session::system_message::system_message_update;
use pi_session::system_prompt::{self, PromptSection};

impl AgentSession {
    /// Replaces the system prompt (e.g. after `/reload`); the next prompt records what changed.
    pub fn set_system_prompt(&self, sections: Vec<PromptSection>) {
        self.inner
            .agent
            .set_system_prompt(system_prompt::join(&sections));
        *lock(&self.inner.prompt_sections) = sections;
    }

    /// Records the prompt and tools the next request is made with, when the conversation does
    /// not already say them.
    pub(super) fn record_system_prompt(&self) {
        let (tools, messages) = self.inner.agent.with_state(|state| {
            let tools: Vec<DeclaredTool> = state
                .tools
                .iter()
                .map(|tool| DeclaredTool {
                    name: tool.name().to_owned(),
                    description: tool.description().to_owned(),
                    parameters: tool.parameters().value().clone(),
                })
                .collect();
            (tools, state.messages.clone())
        });
        let sections = lock(&self.inner.prompt_sections).clone();
        let Some(update) = system_message_update(&messages, &sections, &tools, pi_ai::now_ms())
        else {
            return;
        };
        let message = AgentMessage::from(update);
        self.persist(&message);
        self.inner.agent.append_message(message);
    }
}
