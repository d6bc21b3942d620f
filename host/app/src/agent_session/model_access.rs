//! Model requests made for extensions (a compactor granted `llm`): outside the agent loop, but
//! through the same registry, credentials, stream function, retry policy and abort as the
//! session's own summary requests.

use super::{AgentSession, AgentSessionError, Inner};
use crate::model_select::{ScopedModel, cli_model};
use pi_ai::{AssistantMessage, Context, Model, StopReason};
use pi_session::compaction::SummaryError;
use std::sync::Weak;

/// A handle on a session that does not keep it alive (held by the session's own compactors).
#[derive(Clone)]
pub(crate) struct WeakAgentSession(Weak<Inner>);

impl WeakAgentSession {
    /// The session, while it exists.
    pub fn upgrade(&self) -> Option<AgentSession> {
        AgentSession::from_weak(&self.0)
    }
}

impl AgentSession {
    pub fn downgrade(&self) -> WeakAgentSession {
        WeakAgentSession(std::sync::Arc::downgrade(&self.inner))
    }

    /// The model an extension asked for: `None` is the current model, anything else is
    /// resolved like `--model` (`provider/id`, a bare id, or part of a name).
    pub fn resolve_model(&self, reference: Option<&str>) -> Result<Model, String> {
        match reference.map(str::trim).filter(|r| !r.is_empty()) {
            None => Ok(self.model()),
            Some(reference) => self.resolve_scoped(reference).map(|scoped| scoped.model),
        }
    }

    /// A model reference resolved like `--model`, with the thinking level a `:level` suffix
    /// names.
    pub fn resolve_scoped(&self, reference: &str) -> Result<ScopedModel, String> {
        let Some(registry) = self.inner.registry.as_ref() else {
            let current = self.model();
            let matches = [
                current.id.clone(),
                format!("{}/{}", current.provider, current.id),
            ];
            return if matches.iter().any(|m| m.eq_ignore_ascii_case(reference)) {
                Ok(ScopedModel {
                    model: current,
                    thinking: None,
                })
            } else {
                Err(format!("Unknown model \"{reference}\""))
            };
        };
        match cli_model(registry, None, Some(reference)) {
            Ok(Some(chosen)) => Ok(chosen.scoped),
            Ok(None) => Err(format!("Unknown model \"{reference}\"")),
            Err(error) => Err(error.to_string()),
        }
    }

    /// One request for an extension: `model` (see [`resolve_model`](Self::resolve_model))
    /// with its credential, transient failures retried, `abort` honoured. A missing model or
    /// credential, a failed request or an abort is an `Err` with a message for the extension.
    pub async fn complete_for_extension(
        &self,
        model: Option<&str>,
        context: Context,
    ) -> Result<AssistantMessage, String> {
        let model = self.resolve_model(model)?;
        let provider = model.provider.clone();
        let requester = self.requester_for(model, None).await?;
        if requester.api_key.is_none() {
            return Err(AgentSessionError::NoApiKey(provider).to_string());
        }
        let message = requester
            .send(&context, None)
            .await
            .map_err(|error| match error {
                SummaryError::Cancelled => "Request was aborted".to_owned(),
                other => other.to_string(),
            })?;
        if message.stop_reason == StopReason::Error {
            return Err(message
                .error_message
                .unwrap_or_else(|| "the model request failed".to_owned()));
        }
        Ok(message)
    }
}
