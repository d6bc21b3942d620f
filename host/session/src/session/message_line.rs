//! A `message` line of a session file read straight into its message type, for the context.
//!
//! The full read of an entry goes through a JSON tree so that it can keep every field it does
//! not model; the context needs only the message, so this reads the `id` (to check the line
//! is still the entry the index saw) and the `message`, and skips everything else unread.

use crate::messages::{AgentMessage, parse_known};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// The message of `text`, a line whose entry is `id` with a message of `role`; `None` when the
/// line does not read this way (the caller then reads it in full, which keeps or reports it).
pub(crate) fn message_of_line(text: &[u8], role: &'static str, id: &str) -> Option<AgentMessage> {
    let mut de = serde_json::Deserializer::from_slice(text);
    let (line_id, mut message) = de.deserialize_map(LineVisitor { role }).ok()?;
    de.end().ok()?;
    if line_id != id {
        return None;
    }
    fit_content(&mut message);
    Some(message)
}

/// Moves content lists, tool call arguments and tool result details into allocations of their
/// length: a list read grows to four blocks for its first one and an object to room for three
/// entries, and a resumed history is held for the whole session. (Shrinking in place would
/// leave each cut-off tail as a fragment; the read's buffer freed whole is reused by the next
/// message's read.)
fn fit_content(message: &mut AgentMessage) {
    // Just read: the message is not shared yet.
    let AgentMessage::Llm(llm) = message else {
        return;
    };
    let Some(llm) = std::sync::Arc::get_mut(llm) else {
        return;
    };
    match llm {
        pi_ai::Message::User(user) => {
            if let pi_ai::UserContent::Blocks(blocks) = &mut user.content {
                fit(blocks);
            }
        }
        pi_ai::Message::Assistant(assistant) => {
            fit(&mut assistant.content);
            for block in &mut assistant.content {
                if let pi_ai::AssistantBlock::ToolCall(call) = block {
                    fit_value(&mut call.arguments);
                }
            }
        }
        pi_ai::Message::ToolResult(result) => {
            fit(&mut result.content);
            if let Some(details) = &mut result.details {
                fit_value(details);
            }
        }
    }
}

fn fit<T>(list: &mut Vec<T>) {
    if list.capacity() > list.len() {
        let mut exact = Vec::with_capacity(list.len());
        exact.append(list);
        *list = exact;
    }
}

/// Rebuilds the objects and arrays of `value` at their length. (The recursion is bounded: the
/// JSON reader refuses nesting past 128 levels.)
fn fit_value(value: &mut Value) {
    match value {
        Value::Object(map) => {
            let read = std::mem::take(map);
            let mut exact = Map::with_capacity(read.len());
            for (key, mut item) in read {
                fit_value(&mut item);
                exact.insert(key, item);
            }
            *map = exact;
        }
        Value::Array(items) => {
            items.iter_mut().for_each(fit_value);
            fit(items);
        }
        _ => {}
    }
}

/// The keys of an entry this read looks at.
enum Key {
    Id,
    Message,
    Other,
}

impl<'de> de::Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Key, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
                Ok(match key {
                    "id" => Key::Id,
                    "message" => Key::Message,
                    _ => Key::Other,
                })
            }
        }
        deserializer.deserialize_identifier(KeyVisitor)
    }
}

struct LineVisitor {
    role: &'static str,
}

impl<'de> Visitor<'de> for LineVisitor {
    type Value = (String, AgentMessage);

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a session entry")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut id = None;
        let mut message = None;
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Id if id.is_none() => id = Some(map.next_value::<String>()?),
                Key::Message if message.is_none() => {
                    message = Some(map.next_value_seed(MessageSeed { role: self.role })?);
                }
                // A repeated key is for the full read to report.
                Key::Id => return Err(de::Error::duplicate_field("id")),
                Key::Message => return Err(de::Error::duplicate_field("message")),
                Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        match (id, message) {
            (Some(id), Some(message)) => Ok((id, message)),
            (None, _) => Err(de::Error::missing_field("id")),
            (_, None) => Err(de::Error::missing_field("message")),
        }
    }
}

/// The message object, read as the type of its role (known from the index).
struct MessageSeed {
    role: &'static str,
}

impl<'de> DeserializeSeed<'de> for MessageSeed {
    type Value = AgentMessage;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<AgentMessage, D::Error> {
        parse_known(self.role, deserializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::entry::EntryKind;
    use crate::session::file::{LineInfo, parse_entry_line};

    fn full(text: &str) -> AgentMessage {
        let info = LineInfo {
            number: 1,
            start: 0,
            complete: true,
        };
        match parse_entry_line(text.as_bytes(), info)
            .entry
            .map(|e| e.kind)
        {
            Some(EntryKind::Message(message)) => message,
            other => panic!("not a message entry: {other:?}"),
        }
    }

    #[test]
    fn model_messages_read_as_the_full_read_reads_them() {
        let lines = [
            (
                "user",
                r#"{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":[{"type":"text","text":"fix \"it\"\n"},{"type":"image","mimeType":"image/png","data":"AAAA"}],"timestamp":5}}"#,
            ),
            (
                "user",
                r#"{"type":"message","id":"a","message":{"role":"user","content":"plain","timestamp":5,"newField":[1,2]},"extraTop":{"x":1}}"#,
            ),
            (
                "assistant",
                r#"{"type":"message","id":"a","parentId":"p","timestamp":"t","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"ok"},{"type":"toolCall","id":"c","name":"read","arguments":{"path":"a","z":{"b":[1,{"d":2,"c":[]}],"a":null}}}],"api":"openai-completions","provider":"p","model":"m","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"cacheWrite1h":7,"totalTokens":3,"cost":{"input":0.5,"output":0.25,"cacheRead":0,"cacheWrite":0,"total":0.75}},"stopReason":"toolUse","timestamp":6}}"#,
            ),
            (
                "toolResult",
                r#"{"type":"message","id":"a","parentId":"p","timestamp":"t","message":{"role":"toolResult","toolCallId":"c","toolName":"read","content":[{"type":"text","text":"x\u00e9"}],"details":{"k":[1],"diff":{"z":"-","a":"+"}},"isError":false,"timestamp":7}}"#,
            ),
        ];
        for (role, line) in lines {
            let typed = message_of_line(line.as_bytes(), role, "a").expect("typed read");
            let full = full(line);
            assert_eq!(typed, full, "{line}");
            // Objects compare without their order; what is sent and written keeps it.
            assert_eq!(
                serde_json::to_string(&crate::messages::to_json(&typed, &Map::new())).ok(),
                serde_json::to_string(&crate::messages::to_json(&full, &Map::new())).ok(),
                "{line}"
            );
        }
    }

    #[test]
    fn lines_the_typed_read_does_not_take_are_left_to_the_full_read() {
        let cases = [
            // Another entry than the index saw there.
            r#"{"type":"message","id":"b","message":{"role":"user","content":"x","timestamp":1}}"#,
            // A null content (the full read makes it empty).
            r#"{"type":"message","id":"a","message":{"role":"user","content":null,"timestamp":1}}"#,
            // A repeated key.
            r#"{"type":"message","id":"a","id":"a","message":{"role":"user","content":"x","timestamp":1}}"#,
            // Fields of the wrong type (the full read keeps the message verbatim).
            r#"{"type":"message","id":"a","message":{"role":"user","content":7,"timestamp":1}}"#,
            // Trailing bytes.
            r#"{"type":"message","id":"a","message":{"role":"user","content":"x","timestamp":1}} x"#,
        ];
        for line in cases {
            assert_eq!(
                message_of_line(line.as_bytes(), "user", "a"),
                None,
                "{line}"
            );
        }
    }
}
