//! JSON mode (`--mode json`): the session header as the first line, then every session event
//! as one JSON line, in pi's wire form. RPC mode writes its events with the same writer.
//!
//! The events' serde derives give pi 1.6's shapes; [`Protocol::V0_73`] (`--rpc-protocol 0.73`)
//! takes the fields pi 0.73 did not have back out here, at the edge, so the core keeps one form.

use pi_app::AppEvent;
use serde_json::{Map, Value};
use std::io::Write;
use std::sync::{Arc, Mutex};

/// Which pi's RPC and JSON dialect to speak (`--rpc-protocol`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Protocol {
    /// pi 1.6: dispositions, `toolName`, durations, `usage` beside each delta, `aborted`.
    #[default]
    #[value(name = "1.6")]
    V1_6,
    /// pi 0.73: no `data` on prompt/steer/follow_up responses, and its event fields.
    #[value(name = "0.73")]
    V0_73,
}

/// Message fields pi 1.6 added, left out of pi 0.73's events.
const NEW_MESSAGE_FIELDS: [&str; 3] = ["durationMs", "thinkingLevel", "endTurn"];

/// pi's wire form of an event (`toJsonEvent`): `message_update` carries only the delta, so the
/// cumulative `message` and the event's `partial` snapshot are dropped; pi 1.6 keeps the
/// message's cumulative `usage` at the top level.
pub fn to_wire(mut event: Value, protocol: Protocol) -> Value {
    let Some(map) = event.as_object_mut() else {
        return event;
    };
    // A child's event is nested as it would be written on its own.
    if map.get("type").and_then(Value::as_str) == Some("subagent") {
        if let Some(inner) = map.remove("event") {
            map.insert("event".into(), to_wire(inner, protocol));
        }
        return event;
    }
    if map.get("type").and_then(Value::as_str) == Some("message_update") {
        let message = map.remove("message");
        if let Some(Value::Object(inner)) = map.get_mut("assistantMessageEvent") {
            inner.remove("partial");
        }
        if protocol == Protocol::V1_6
            && let Some(usage) = message.and_then(|mut m| m.get_mut("usage").map(Value::take))
        {
            map.insert("usage".into(), usage);
        }
    }
    if protocol == Protocol::V0_73 {
        to_0_73(map);
    }
    event
}

/// pi 0.73's fields of an event (or of a `compact` response's data).
pub fn to_0_73(map: &mut Map<String, Value>) {
    match map.get("type").and_then(Value::as_str) {
        Some("agent_settled") => {
            map.remove("aborted");
        }
        Some("tool_execution_end") => {
            map.remove("durationMs");
            if let Some(Value::Object(result)) = map.get_mut("result") {
                result.remove("structuredContent");
            }
        }
        Some("compaction_end") => {
            if let Some(Value::Object(result)) = map.get_mut("result") {
                old_compaction_result(result);
            }
        }
        _ => {}
    }
    if let Some(Value::Object(inner)) = map.get_mut("assistantMessageEvent") {
        if let Some(name) = inner.remove("toolName") {
            inner.insert("name".into(), name);
        }
        for key in ["message", "error", "partial"] {
            inner.get_mut(key).into_iter().for_each(old_message);
        }
    }
    map.get_mut("message").into_iter().for_each(old_message);
    for key in ["messages", "toolResults"] {
        if let Some(Value::Array(messages)) = map.get_mut(key) {
            messages.iter_mut().for_each(old_message);
        }
    }
}

/// A compaction result without pi 1.6's `estimatedTokensAfter` and `usage`.
pub fn old_compaction_result(result: &mut Map<String, Value>) {
    result.remove("estimatedTokensAfter");
    result.remove("usage");
}

fn old_message(message: &mut Value) {
    if let Some(map) = message.as_object_mut() {
        for key in NEW_MESSAGE_FIELDS {
            map.remove(key);
        }
    }
}

/// Writes JSON values as LF-terminated lines, flushing after each one so a reader sees every
/// event as soon as it happens. Cheap to clone; clones share the output.
#[derive(Clone)]
pub struct JsonLines {
    out: Arc<Mutex<Box<dyn Write + Send>>>,
    protocol: Protocol,
}

impl JsonLines {
    pub fn new(out: Box<dyn Write + Send>, protocol: Protocol) -> Self {
        JsonLines {
            out: Arc::new(Mutex::new(out)),
            protocol,
        }
    }

    /// Standard output.
    pub fn stdout(protocol: Protocol) -> Self {
        JsonLines::new(Box::new(std::io::stdout()), protocol)
    }

    /// The dialect events and responses are written in.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// Writes one value. A closed output (reader gone) is ignored: there is nobody to tell.
    pub fn write_value(&self, value: &Value) {
        let mut line = value.to_string();
        line.push('\n');
        let mut out = pi_ai::lock(&self.out);
        let _ = out.write_all(line.as_bytes());
        let _ = out.flush();
    }

    /// Writes one value straight from its `Serialize`, through a buffer into the output: a
    /// large answer (a whole history) is never held as a JSON tree or a string.
    pub fn write_serialized(&self, value: &impl serde::Serialize) {
        let mut out = pi_ai::lock(&self.out);
        let mut buffered = std::io::BufWriter::with_capacity(1 << 16, &mut **out);
        if let Err(error) = serde_json::to_writer(&mut buffered, value) {
            tracing::warn!("response not written: {error}");
        }
        let _ = buffered.write_all(b"\n");
        let _ = buffered.flush();
        drop(buffered);
        let _ = out.flush();
    }

    /// Writes an event in its wire form, when pi prints it in this mode (`rpc`: RPC mode).
    pub fn write_event(&self, event: &AppEvent, rpc: bool) {
        if !event.is_wire(rpc) {
            return;
        }
        match serde_json::to_value(event) {
            Ok(value) => self.write_value(&to_wire(value, self.protocol)),
            Err(error) => tracing::warn!("event not serializable: {error}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ui_event(request: pi_app::hooks::UiRequest) -> AppEvent {
        AppEvent::Session(pi_app::SessionEvent::ExtensionUiRequest {
            id: "ui-7".into(),
            request,
            from: "probe@1.0.0".into(),
        })
    }

    #[test]
    fn extension_ui_requests_are_written_as_pi_writes_them_in_rpc_mode_only() {
        use pi_app::hooks::UiRequest;
        let confirm = ui_event(UiRequest::Confirm {
            title: "Probe".into(),
            message: "Proceed?".into(),
            timeout: Some(5000),
        });
        assert!(confirm.is_wire(true) && !confirm.is_wire(false));
        let expected = json!({"type": "extension_ui_request", "id": "ui-7", "method": "confirm",
                              "title": "Probe", "message": "Proceed?", "timeout": 5000});
        for protocol in [Protocol::V1_6, Protocol::V0_73] {
            let value = serde_json::to_value(&confirm).unwrap_or_default();
            assert_eq!(to_wire(value, protocol), expected);
        }
        let cleared = ui_event(UiRequest::SetStatus {
            status_key: "todo".into(),
            status_text: None,
        });
        assert_eq!(
            serde_json::to_value(&cleared).unwrap_or_default(),
            json!({"type": "extension_ui_request", "id": "ui-7", "method": "setStatus",
                   "statusKey": "todo"})
        );
        let notice = ui_event(UiRequest::Notify {
            message: "hi".into(),
            notify_type: pi_app::hooks::NotifyType::Error,
        });
        assert_eq!(
            serde_json::to_value(&notice).unwrap_or_default(),
            json!({"type": "extension_ui_request", "id": "ui-7", "method": "notify",
                   "message": "hi", "notifyType": "error"})
        );
    }

    #[test]
    fn message_update_is_delta_only_with_the_cumulative_usage() {
        let event = json!({
            "type": "message_update",
            "message": {"role": "assistant", "usage": {"input": 3, "output": 1}},
            "assistantMessageEvent": {"type": "text_delta", "delta": "hi", "partial": {}}
        });
        assert_eq!(
            to_wire(event.clone(), Protocol::V1_6),
            json!({"type": "message_update",
                   "assistantMessageEvent": {"type": "text_delta", "delta": "hi"},
                   "usage": {"input": 3, "output": 1}})
        );
        assert_eq!(
            to_wire(event, Protocol::V0_73),
            json!({"type": "message_update",
                   "assistantMessageEvent": {"type": "text_delta", "delta": "hi"}})
        );
        let other = json!({"type": "message_end", "message": {"role": "assistant"}});
        assert_eq!(to_wire(other.clone(), Protocol::V1_6), other);
    }

    #[test]
    fn pi_0_73_events_lose_the_fields_pi_1_6_added() {
        let start = json!({"type": "message_update", "assistantMessageEvent":
            {"type": "toolcall_start", "contentIndex": 0, "id": "c1", "toolName": "bash"}});
        assert_eq!(
            to_wire(start.clone(), Protocol::V1_6)["assistantMessageEvent"]["toolName"],
            "bash"
        );
        let old = to_wire(start, Protocol::V0_73);
        assert_eq!(old["assistantMessageEvent"]["name"], "bash");
        assert!(old["assistantMessageEvent"].get("toolName").is_none());

        let end = json!({"type": "tool_execution_end", "durationMs": 5,
                         "result": {"content": [], "structuredContent": "x"}});
        assert_eq!(
            to_wire(end, Protocol::V0_73),
            json!({"type": "tool_execution_end", "result": {"content": []}})
        );
        let settled = json!({"type": "agent_settled", "aborted": true});
        assert_eq!(
            to_wire(settled, Protocol::V0_73),
            json!({"type": "agent_settled"})
        );
        let message = json!({"type": "message_end", "message":
            {"role": "assistant", "durationMs": 9, "thinkingLevel": "off", "endTurn": true}});
        assert_eq!(
            to_wire(message, Protocol::V0_73),
            json!({"type": "message_end", "message": {"role": "assistant"}})
        );
        let compaction = json!({"type": "compaction_end", "result":
            {"summary": "s", "estimatedTokensAfter": 10, "usage": {}}});
        assert_eq!(
            to_wire(compaction, Protocol::V0_73),
            json!({"type": "compaction_end", "result": {"summary": "s"}})
        );
    }
}
