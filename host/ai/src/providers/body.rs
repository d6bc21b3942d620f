//! Encoding a request body: the adapters describe their body as typed values that borrow from
//! the context, and it is serialised once, straight into the buffer that is sent. No JSON tree
//! of the history is built, so a request costs its own bytes and not several times them.

use crate::types::{AssistantBlock, Context, Message, UserBlock, UserContent};
use serde::Serialize;

/// What a block costs on the wire beyond its text: field names, quotes, type tags.
const PER_BLOCK: usize = 96;

/// `body` as JSON bytes, in a buffer sized from `context` so a long history is written without
/// regrowing it.
pub(crate) fn encode(body: &impl Serialize, context: &Context) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(estimate(context));
    serde_json::to_writer(&mut out, body)
        .map_err(|e| format!("could not encode the request: {e}"))?;
    Ok(out)
}

/// About the encoded size of a body carrying `context`: its text plus an allowance per block
/// and for escapes. Pages of the buffer that stay unwritten are never touched, so erring high
/// costs address space, not memory.
fn estimate(context: &Context) -> usize {
    let system = context.system_prompt.as_deref().map_or(0, str::len);
    let tools: usize = context
        .tools
        .iter()
        .map(|t| t.name.len() + t.description.len() + t.parameters.text().len() + PER_BLOCK)
        .sum();
    let messages: usize = context.messages.iter().map(|m| message_size(m)).sum();
    let text = system + tools + messages;
    text + text / 8 + PER_BLOCK
}

fn message_size(message: &Message) -> usize {
    PER_BLOCK
        + match message {
            Message::User(user) => match &user.content {
                UserContent::Text(text) => text.len(),
                UserContent::Blocks(blocks) => blocks.iter().map(user_block_size).sum(),
            },
            Message::Assistant(assistant) => {
                assistant.content.iter().map(assistant_block_size).sum()
            }
            Message::ToolResult(result) => result.content.iter().map(user_block_size).sum(),
        }
}

fn user_block_size(block: &UserBlock) -> usize {
    PER_BLOCK
        + match block {
            UserBlock::Text(t) => t.text.len(),
            UserBlock::Image(image) => image.data.len(),
        }
}

fn assistant_block_size(block: &AssistantBlock) -> usize {
    PER_BLOCK
        + match block {
            AssistantBlock::Text(t) => {
                t.text.len() + t.text_signature.as_deref().map_or(0, str::len)
            }
            AssistantBlock::Thinking(t) => {
                t.thinking.len() + t.thinking_signature.as_deref().map_or(0, str::len)
            }
            // Arguments are small next to the text around them; walking the tree to size
            // them would cost more than a regrow.
            AssistantBlock::ToolCall(call) => call.id.len() + call.name.len() + PER_BLOCK,
        }
}

/// A JSON array of what the closure's iterator yields, written while it is iterated: a list of
/// wire items that borrow from the context without being collected first.
pub(crate) struct Seq<F>(pub F);

impl<F, I> Serialize for Seq<F>
where
    F: Fn() -> I,
    I: Iterator,
    I::Item: Serialize,
{
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq((self.0)())
    }
}

/// `{}`: what a tool call's input is sent as when its arguments are not an object.
pub(crate) struct EmptyObject;

impl Serialize for EmptyObject {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        serializer.serialize_map(Some(0))?.end()
    }
}

/// Text pieces joined by `separator`, written into a JSON string as they come (through
/// `collect_str`), so a joined text is never assembled in memory.
pub(crate) struct Joined<F> {
    pub pieces: F,
    pub separator: &'static str,
}

impl<'a, F, I> std::fmt::Display for Joined<F>
where
    F: Fn() -> I,
    I: Iterator<Item = &'a str>,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, piece) in (self.pieces)().enumerate() {
            if i > 0 {
                f.write_str(self.separator)?;
            }
            f.write_str(piece)?;
        }
        Ok(())
    }
}

/// A tool result's text blocks (images left out), as [`ToolResultMessage::text`] joins them.
///
/// [`ToolResultMessage::text`]: crate::types::ToolResultMessage::text
pub(crate) fn result_texts(
    result: &crate::types::ToolResultMessage,
) -> impl Iterator<Item = &str> + Clone {
    result.content.iter().filter_map(|b| match b {
        UserBlock::Text(t) => Some(t.text.as_str()),
        UserBlock::Image(_) => None,
    })
}

/// Whether pieces joined by a separator make the empty string.
pub(crate) fn joined_is_empty<'a>(mut pieces: impl Iterator<Item = &'a str>) -> bool {
    match (pieces.next(), pieces.next()) {
        (None, _) => true,
        (Some(only), None) => only.is_empty(),
        _ => false,
    }
}

/// A value written as a JSON string through its `Display` (a joined text, a data URL, a JSON
/// text of tool arguments), without an intermediate `String`.
pub(crate) struct Display<'a, T>(pub &'a T);

impl<T: std::fmt::Display> Serialize for Display<'_, T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self.0)
    }
}
