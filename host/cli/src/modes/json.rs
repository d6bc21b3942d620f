//! JSON mode (`--mode json`): the session header as the first line, then every session event
//! as one JSON line, in pi's wire form. RPC mode writes its events with the same writer.

use pi_app::AppEvent;
use serde_json::Value;
use std::io::Write;
use std::sync::{Arc, Mutex};

/// pi's wire form of an event (`toJsonEvent`): `message_update` carries only the delta, so the
/// cumulative `message` and the event's `partial` snapshot are dropped.
pub fn to_wire(mut event: Value) -> Value {
    if event.get("type").and_then(Value::as_str) == Some("message_update")
        && let Some(map) = event.as_object_mut()
    {
        map.remove("message");
        if let Some(Value::Object(inner)) = map.get_mut("assistantMessageEvent") {
            inner.remove("partial");
        }
    }
    event
}

/// Writes JSON values as LF-terminated lines, flushing after each one so a reader sees every
/// event as soon as it happens. Cheap to clone; clones share the output.
#[derive(Clone)]
pub struct JsonLines {
    out: Arc<Mutex<Box<dyn Write + Send>>>,
}

impl JsonLines {
    pub fn new(out: Box<dyn Write + Send>) -> Self {
        JsonLines {
            out: Arc::new(Mutex::new(out)),
        }
    }

    /// Standard output.
    pub fn stdout() -> Self {
        JsonLines::new(Box::new(std::io::stdout()))
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
            Ok(value) => self.write_value(&to_wire(value)),
            Err(error) => tracing::warn!("event not serializable: {error}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn message_update_is_delta_only() {
        let wire = to_wire(json!({
            "type": "message_update",
            "message": {"role": "assistant"},
            "assistantMessageEvent": {"type": "text_delta", "delta": "hi", "partial": {}}
        }));
        assert_eq!(
            wire,
            json!({"type": "message_update",
                   "assistantMessageEvent": {"type": "text_delta", "delta": "hi"}})
        );
        let other = json!({"type": "message_end", "message": {"role": "assistant"}});
        assert_eq!(to_wire(other.clone()), other);
    }
}
