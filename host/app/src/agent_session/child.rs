//! A child session (a subagent's run): what it takes from its parent session and what it does
//! not. It shares the credentials, the model registry, the stream function, the retry clock,
//! the compactors, the hooks and the approval rules; it has its own session file, messages,
//! tools, model, system prompt, queues and permission mode. Its events go to the sink its
//! caller gives it, never to the parent's subscribers directly.

use super::{AgentSession, AgentSessionOptions, EventSink, lock};
use crate::permissions::{ModeCell, PermissionMode};
use pi_agent::AgentTool;
use pi_ai::{Model, ThinkingLevel};
use pi_session::session::SessionManager;
use pi_session::system_prompt::PromptSection;
use std::sync::Arc;

/// What is the child's own.
pub(crate) struct ChildSpec {
    pub session: SessionManager,
    pub model: Model,
    pub thinking: ThinkingLevel,
    pub system_prompt: Vec<PromptSection>,
    pub tools: Vec<Arc<dyn AgentTool>>,
    pub mode: PermissionMode,
}

impl AgentSession {
    /// A new session for a child run, sharing what the parent shares with its children.
    pub(crate) fn child(&self, spec: ChildSpec, sink: EventSink) -> AgentSession {
        let inner = &self.inner;
        let settings = lock(&inner.settings).snapshot();
        let api_key = inner
            .api_key
            .as_ref()
            .filter(|key| key.provider == spec.model.provider)
            .map(|key| key.key.clone());
        let mut options = AgentSessionOptions::new(spec.session, settings, spec.model);
        options.model_images = Arc::new(std::sync::atomic::AtomicBool::new(
            options.model.supports_images(),
        ));
        options.thinking_level = spec.thinking;
        options.system_prompt = spec.system_prompt;
        options.tools = spec.tools;
        options.auth = Arc::clone(&inner.auth);
        options.api_key = api_key;
        options.registry = inner.registry.clone();
        options.stream_fn = Some(inner.stream_fn.clone());
        options.sleeper = Some(Arc::clone(&inner.sleeper));
        options.compactors = lock(&inner.compactors).clone();
        options.permission_mode = ModeCell::new(spec.mode);
        let pipeline = Arc::new(inner.hooks.child(options.permission_mode.clone()));
        AgentSession::new(options, sink, pipeline)
    }
}
