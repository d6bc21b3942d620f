//! The session's MCP tools (`crate::mcp`): added to its own tools, brought up to date before
//! each prompt (after waiting for servers with `direct` tools, as pi 1.6 does) and between the
//! turns of a run (a server that connected, a tool `tool_search` loaded), each change recorded
//! in the conversation as a system patch like any change of the tools.

use super::{AgentSession, lock};
use crate::mcp::{McpTools, SECTION};
use pi_agent::{AgentMessage, AgentTool, NextTurnUpdate};
use pi_session::system_prompt::PromptSection;
use std::sync::Arc;

impl AgentSession {
    /// The MCP tools the session offers from now on.
    pub(crate) fn set_mcp(&self, tools: Arc<McpTools>) {
        *lock(&self.inner.mcp) = Some(tools);
        let base = lock(&self.inner.base_tools).clone();
        self.set_tools(base);
    }

    /// Offers the `subagent` tool from now on (`None`: no longer).
    pub(crate) fn set_subagent_tool(&self, tool: Option<Arc<dyn AgentTool>>) {
        *lock(&self.inner.subagent) = tool;
        let base = lock(&self.inner.base_tools).clone();
        self.set_tools(base);
    }

    pub(crate) fn mcp(&self) -> Option<Arc<McpTools>> {
        lock(&self.inner.mcp).clone()
    }

    /// Replaces the session's own tools (built-in and extension); the MCP tools it offers
    /// are added after them.
    pub(crate) fn set_tools(&self, tools: Vec<Arc<dyn AgentTool>>) {
        *lock(&self.inner.base_tools) = tools;
        let messages = self.inner.agent.messages();
        self.inner.agent.set_tools(self.tools_for(&messages));
    }

    /// The session's own tools, `subagent` when offered, and the MCP tools offered with
    /// `messages`.
    fn tools_for(&self, messages: &[AgentMessage]) -> Vec<Arc<dyn AgentTool>> {
        let mut tools = lock(&self.inner.base_tools).clone();
        tools.extend(lock(&self.inner.subagent).clone());
        if let Some(mcp) = self.mcp() {
            // A server is a process: what its tools change is snapshotted like `bash`'s.
            tools.extend(mcp.tools(messages).into_iter().map(
                |tool| match &self.inner.checkpoints {
                    Some(recorder) => crate::checkpoints::Checkpointed::wrap(tool, recorder, true),
                    None => tool,
                },
            ));
            self.inner.hooks.approvals.set_mcp_writers(mcp.writers());
        }
        tools
    }

    /// Before a prompt: waits for the servers with declared tools (at most 10 s), then takes
    /// the servers' tools and the `mcp_servers` section as they are now.
    pub(super) async fn refresh_mcp_before_prompt(&self) {
        let Some(mcp) = self.mcp().filter(|mcp| !mcp.is_empty()) else {
            return;
        };
        let messages = self.inner.agent.messages();
        mcp.wait_for_declared(&messages).await;
        self.inner.agent.set_tools(self.tools_for(&messages));
        let section = mcp.servers_section();
        let mut sections = lock(&self.inner.prompt_sections).clone();
        sections.retain(|s| s.name != SECTION);
        if let Some(text) = section {
            sections.push(PromptSection::tagged(SECTION, &text));
        }
        if sections != *lock(&self.inner.prompt_sections) {
            self.set_system_prompt(sections);
        }
    }

    /// Between turns: when the MCP tools offered changed, the next turn's tools, with the
    /// change recorded (its system patch joins the messages). `update` is what the turn's
    /// other checks (compaction) already changed.
    pub(super) fn mcp_next_turn(&self, update: Option<NextTurnUpdate>) -> Option<NextTurnUpdate> {
        if self.mcp().is_none_or(|mcp| mcp.is_empty()) {
            return update;
        }
        let messages = self.inner.agent.messages();
        let tools = self.tools_for(&messages);
        let unchanged = self.inner.agent.with_state(|state| {
            state.tools.len() == tools.len()
                && state
                    .tools
                    .iter()
                    .zip(&tools)
                    .all(|(a, b)| a.name() == b.name())
        });
        if unchanged {
            return update;
        }
        self.inner.agent.set_tools(tools.clone());
        self.record_system_prompt();
        let mut update = update.unwrap_or_default();
        update.messages = Some(self.inner.agent.messages());
        update.tools = Some(tools);
        Some(update)
    }
}
