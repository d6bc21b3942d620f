//! Encoding a request body: the adapters describe their body as typed values that borrow from
//! the context, and it is serialised straight from them (no JSON tree of the history). A small
//! body is kept as bytes; a large one is not held at all: it is written again from the context
//! each time it is sent, into the connection (see `upload`), so a long history costs a request
//! no more than its messages already cost.

use crate::options::StreamOptions;
use crate::protocol::RequestBody;
use crate::types::{Context, Model, UserBlock};
use serde::Serialize;
use std::io::{self, Write};
use std::sync::Arc;

/// Bodies up to this size are kept as bytes (sent as they are, shared by retries); larger ones
/// are written from the context as they are sent.
const KEEP_UP_TO: usize = 1 << 20;

/// The body `write` makes from the request's model, context and options. It is written once
/// here, to learn its length (and kept when it is small); a large one is written again from
/// shared copies of the three (the history is shared, not copied) whenever it is sent.
pub(crate) fn body<F>(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
    write: F,
) -> Result<RequestBody, String>
where
    F: Fn(&Model, &Context, &StreamOptions, &mut dyn Write) -> serde_json::Result<()>
        + Send
        + Sync
        + 'static,
{
    let failed = |e: serde_json::Error| format!("could not encode the request: {e}");
    let mut first = Prefix::default();
    write(model, context, options, &mut first).map_err(failed)?;
    let len = first.len;
    Ok(match first.kept {
        Some(bytes) => RequestBody::of_bytes(len, bytes.into()),
        None => {
            let parts = (model.clone(), context.clone(), options.clone());
            RequestBody::written(
                len,
                Arc::new(move |out: &mut dyn Write| {
                    write(&parts.0, &parts.1, &parts.2, out).map_err(io::Error::other)
                }),
            )
        }
    })
}

/// A sink that counts what is written and keeps it while it is at most [`KEEP_UP_TO`] bytes.
struct Prefix {
    len: u64,
    kept: Option<Vec<u8>>,
}

impl Default for Prefix {
    fn default() -> Self {
        Prefix {
            len: 0,
            kept: Some(Vec::new()),
        }
    }
}

impl Write for Prefix {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.len += buf.len() as u64;
        if self.len > KEEP_UP_TO as u64 {
            self.kept = None;
        } else if let Some(kept) = &mut self.kept {
            kept.extend_from_slice(buf);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
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
