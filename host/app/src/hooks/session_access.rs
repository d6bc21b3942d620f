//! The session as hooks granted `session` reach it: custom messages (pi's `sendMessage`),
//! custom entries (`appendEntry`, read back on resume), the session's name and labels.
//! Called on the extension's blocking thread; it holds the session only weakly and locks the
//! session file only for the one change.

use crate::agent_session::{SessionEvent, WeakAgentSession, custom_message};
use pi_agent::AgentMessage;
use pi_ai::lock;
use pi_ext_api::hooks::{DeliverAs, OutgoingMessage, SessionAccess};
use pi_session::session::EntryKind;
use serde_json::Value;
use std::sync::{Arc, Mutex};

type Emit = Arc<dyn Fn(SessionEvent) + Send + Sync>;

const CLOSED: &str = "the session is closed";

/// The [`SessionAccess`] of an [`App`](crate::App).
pub(crate) struct HookSession {
    session: WeakAgentSession,
    emit: Emit,
    /// Messages sent for the next prompt (`deliver-as: next-turn`).
    next_turn: Arc<Mutex<Vec<AgentMessage>>>,
    /// Where an idle session's steer/follow-up message starts its run.
    runtime: Option<tokio::runtime::Handle>,
}

impl HookSession {
    pub(crate) fn new(
        session: WeakAgentSession,
        emit: Emit,
        next_turn: Arc<Mutex<Vec<AgentMessage>>>,
    ) -> Self {
        HookSession {
            session,
            emit,
            next_turn,
            runtime: tokio::runtime::Handle::try_current().ok(),
        }
    }
}

impl SessionAccess for HookSession {
    fn send_message(
        &self,
        _from: &str,
        message: OutgoingMessage,
        deliver_as: DeliverAs,
    ) -> Result<(), String> {
        let session = self.session.upgrade().ok_or(CLOSED)?;
        let message = custom_message(message);
        let running = session.is_running();
        match (deliver_as, running, &self.runtime) {
            (DeliverAs::Steer, true, _) => session.agent().steer(message),
            (DeliverAs::FollowUp, true, _) => session.agent().follow_up(message),
            (DeliverAs::Steer | DeliverAs::FollowUp, false, Some(runtime)) => {
                runtime.spawn(async move {
                    if let Err(error) = session.prompt_messages(vec![message]).await {
                        tracing::warn!(%error, "an extension's message did not start a run");
                    }
                });
            }
            _ => lock(&self.next_turn).push(message),
        }
        Ok(())
    }

    fn append_entry(&self, _from: &str, custom_type: &str, data: Value) -> Result<(), String> {
        let session = self.session.upgrade().ok_or(CLOSED)?;
        session
            .with_session_mut(|s| s.append_custom(custom_type, Some(data)))
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn session_id(&self) -> Option<String> {
        // Asked by the caller of every hook call: it must never wait for the session file.
        let session = self.session.upgrade()?;
        session.try_with_session(|s| s.session_id().to_owned())
    }

    fn entries(&self, custom_type: &str) -> Result<Vec<Value>, String> {
        let session = self.session.upgrade().ok_or(CLOSED)?;
        Ok(session.with_session(|s| {
            s.get_branch(None)
                .into_iter()
                .filter_map(|entry| match &entry.kind {
                    EntryKind::Custom {
                        custom_type: kind,
                        data,
                    } if kind == custom_type => Some(data.clone().unwrap_or(Value::Null)),
                    _ => None,
                })
                .collect()
        }))
    }

    fn set_session_name(&self, name: &str) -> Result<(), String> {
        let session = self.session.upgrade().ok_or(CLOSED)?;
        let name = name.replace(['\n', '\r'], " ").trim().to_owned();
        if name.is_empty() {
            return Err("the name is empty".into());
        }
        session
            .with_session_mut(|s| s.append_session_info(Some(name.clone())))
            .map_err(|e| e.to_string())?;
        (self.emit)(SessionEvent::SessionInfoChanged { name });
        Ok(())
    }

    fn set_label(&self, entry_id: Option<&str>, label: Option<&str>) -> Result<(), String> {
        let session = self.session.upgrade().ok_or(CLOSED)?;
        session.with_session_mut(|s| {
            let target = match entry_id {
                Some(id) => id.to_owned(),
                None => s
                    .leaf_id()
                    .ok_or("the session has no entries yet")?
                    .to_owned(),
            };
            s.append_label(&target, label.map(str::to_owned))
                .map(|_| ())
                .map_err(|e| e.to_string())
        })
    }
}
