//! Live control of the servers (`/mcp`): adding one, reconnecting, enabling or disabling,
//! changing the exposure, and the pinned and current definitions of changed tools. Each
//! connection attempt has its own task and stop token (a child of the manager's); a new
//! attempt stops the old one and starts once its task has ended, so one server never runs
//! twice.

use super::{McpManager, ServerState, Shared, Slot, identity, lock, run_server};
use crate::spec::{Exposure, ServerSpec};
use serde_json::Value;
use std::sync::Arc;

/// A tool whose definition changed since it was pinned: both sides of the diff.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangedDefinition {
    /// The tool's name on its server.
    pub tool: String,
    /// What was pinned (name, description, inputSchema, annotations); `None` for a tool added
    /// since, or a pins file that predates kept definitions.
    pub pinned: Option<Value>,
    /// What the server lists now, in the same shape.
    pub current: Value,
}

impl McpManager {
    /// Adds a server the run did not start with (enabled from `/mcp`); `enabled` starts it
    /// connecting at once. A name already known is left as it is.
    pub fn add(&self, spec: ServerSpec, enabled: bool) {
        let shared = &self.inner.shared;
        if shared.slot(&spec.name).is_some() {
            return;
        }
        let state = if enabled {
            ServerState::Connecting
        } else {
            ServerState::Disabled
        };
        let slot = Arc::new(Slot::new(spec, state, shared.stop.child_token()));
        shared
            .slots
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(slot.clone());
        if enabled {
            shared.start_attempt(&slot);
        }
        shared.bump();
    }

    /// Stops the server `name` and connects it again (its tools are listed afresh).
    pub fn reconnect(&self, name: &str) -> Result<(), String> {
        let slot = self.known(name)?;
        if lock(&slot.data).state == ServerState::Disabled {
            return Err(format!(r#"MCP server "{name}" is disabled."#));
        }
        self.inner.shared.log.line(name, "reconnecting");
        self.inner.shared.start_attempt(&slot);
        self.inner.shared.bump();
        Ok(())
    }

    /// Connects (`true`) or stops (`false`) the server `name` at once; a stopped server offers
    /// no tools. Whether anything changed.
    pub fn set_enabled(&self, name: &str, enabled: bool) -> Result<bool, String> {
        let slot = self.known(name)?;
        let disabled = lock(&slot.data).state == ServerState::Disabled;
        if disabled != enabled {
            return Ok(false);
        }
        let shared = &self.inner.shared;
        if enabled {
            shared.log.line(name, "enabled");
            shared.start_attempt(&slot);
        } else {
            shared.log.line(name, "disabled");
            shared.stop_attempt(&slot);
        }
        shared.bump();
        Ok(true)
    }

    /// Changes the exposure of the server `name` at once: its tools are offered by the new one
    /// from the next request (`toolExposure` entries still win for their tools).
    pub fn set_exposure(&self, name: &str, exposure: Exposure) -> Result<(), String> {
        let slot = self.known(name)?;
        let mut data = lock(&slot.data);
        data.exposure = exposure;
        let mut spec = slot.spec.clone();
        spec.exposure = exposure;
        data.tools = data
            .tools
            .iter()
            .map(|tool| Arc::new(tool.with_exposure(spec.exposure_of(tool.remote_name()))))
            .collect();
        drop(data);
        self.inner
            .shared
            .log
            .line(name, &format!("exposure set to {}", exposure.as_str()));
        self.inner.shared.bump();
        Ok(())
    }

    /// The pinned and the current definition of each tool of `name` that changed since it was
    /// pinned (what `trust` would accept).
    pub fn changed_definitions(&self, name: &str) -> Result<Vec<ChangedDefinition>, String> {
        let slot = self.known(name)?;
        let (changed, current) = {
            let data = lock(&slot.data);
            (data.changed.clone(), data.definitions.clone())
        };
        if changed.is_empty() {
            return Ok(Vec::new());
        }
        let mut pinned = self
            .inner
            .shared
            .pins
            .definitions(name, &identity(&slot.spec))
            .map_err(|e| e.to_string())?;
        Ok(changed
            .into_iter()
            .filter_map(|tool| {
                let current = crate::pins::pinned_definition(current.get(&tool)?);
                Some(ChangedDefinition {
                    pinned: pinned.remove(&tool),
                    current,
                    tool,
                })
            })
            .collect())
    }

    fn known(&self, name: &str) -> Result<Arc<Slot>, String> {
        self.slot(name)
            .ok_or_else(|| format!(r#"No MCP server named "{name}"."#))
    }
}

impl Shared {
    /// Stops the slot's current attempt (if any) and starts a new one after it has ended.
    fn start_attempt(self: &Arc<Self>, slot: &Arc<Slot>) {
        let Some(runtime) = self.runtime.clone() else {
            lock(&slot.data).state =
                ServerState::Failed("no async runtime to connect on".to_owned());
            return;
        };
        let stop = self.stop.child_token();
        let mut data = lock(&slot.data);
        data.stop.cancel();
        let previous = data.task.take();
        data.stop = stop.clone();
        data.state = ServerState::Connecting;
        data.tools.clear();
        data.changed.clear();
        data.link = None;
        let (shared, slot2) = (self.clone(), slot.clone());
        data.task = Some(runtime.spawn(async move {
            if let Some(previous) = previous {
                let _ = previous.await;
            }
            if !stop.is_cancelled() {
                run_server(shared, slot2, stop).await;
            }
        }));
    }

    /// Stops the slot's attempt and marks it disabled; its task ends in the background.
    fn stop_attempt(&self, slot: &Slot) {
        let mut data = lock(&slot.data);
        data.stop.cancel();
        data.state = ServerState::Disabled;
        data.tools.clear();
        data.changed.clear();
        data.link = None;
    }
}
