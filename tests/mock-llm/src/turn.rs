//! A scripted assistant turn, independent of any wire protocol.

use serde_json::Value;
use std::time::Duration;

/// Why the scripted turn ends. Each protocol renders it in its own words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The model finished (`end_turn`, `stop`, `completed`, `STOP`).
    End,
    /// The output limit was hit (`max_tokens`, `length`, `incomplete`, `MAX_TOKENS`).
    Length,
    /// The model asks for tools (`tool_use`, `tool_calls`; Responses and Gemini have no such
    /// reason and say `completed` / `STOP`).
    ToolUse,
}

/// One content block of a turn.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Thinking {
        text: String,
        signature: String,
    },
    Text(String),
    ToolCall {
        id: String,
        name: String,
        arguments: Value,
    },
}

/// Token counts in pi's convention: `input` excludes cache reads and writes. Renderers convert
/// them to each provider's own convention (OpenAI and Gemini count cached tokens in the input).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TurnUsage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
}

/// A scripted model answer, built fluently and rendered in the wire format of whichever protocol
/// the request arrives on.
///
/// ```
/// use pi_mock_llm::Turn;
/// let turn = Turn::text("Let me look.")
///     .thinking("The user wants a file listing.")
///     .tool_call("call_1", "ls", serde_json::json!({"path": "."}))
///     .usage(120, 40, 0, 0)
///     .chunk(4);
/// ```
///
/// Thinking blocks are always streamed first (as reasoning models do); text and tool-call blocks
/// follow in the order they were added.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub(crate) thinking: Vec<Block>,
    pub(crate) blocks: Vec<Block>,
    pub(crate) stop: Option<Stop>,
    pub(crate) usage: TurnUsage,
    pub(crate) chunk: usize,
    pub(crate) delay: Duration,
}

impl Default for Turn {
    fn default() -> Self {
        Turn {
            thinking: Vec::new(),
            blocks: Vec::new(),
            stop: None,
            usage: TurnUsage {
                input: 10,
                output: 5,
                cache_read: 0,
                cache_write: 0,
            },
            chunk: 0,
            delay: Duration::ZERO,
        }
    }
}

impl Turn {
    /// A turn with no content yet (add blocks with the methods below).
    pub fn new() -> Self {
        Turn::default()
    }

    /// A turn answering `text`.
    pub fn text(text: impl Into<String>) -> Self {
        Turn::new().and_text(text)
    }

    /// Adds another text block after the blocks added so far.
    pub fn and_text(mut self, text: impl Into<String>) -> Self {
        self.blocks.push(Block::Text(text.into()));
        self
    }

    /// Adds a thinking block, streamed before all text and tool calls. It carries a made-up
    /// signature (`sig_mock_N`; the Responses encrypted reasoning is `enc_mock_N`).
    pub fn thinking(mut self, text: impl Into<String>) -> Self {
        let signature = format!("sig_mock_{}", self.thinking.len() + 1);
        self.thinking.push(Block::Thinking {
            text: text.into(),
            signature,
        });
        self
    }

    /// Adds a tool call. `arguments` should be a JSON object; it is streamed as compact JSON text
    /// (Gemini sends it whole, as Gemini does). Several calls are allowed.
    pub fn tool_call(
        mut self,
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: Value,
    ) -> Self {
        self.blocks.push(Block::ToolCall {
            id: id.into(),
            name: name.into(),
            arguments,
        });
        self
    }

    /// Sets the stop reason. Default: [`Stop::ToolUse`] when the turn has tool calls, else
    /// [`Stop::End`].
    pub fn stop(mut self, stop: Stop) -> Self {
        self.stop = Some(stop);
        self
    }

    /// Shorthand for `.stop(Stop::Length)`: the output limit was hit.
    pub fn length(self) -> Self {
        self.stop(Stop::Length)
    }

    /// Token usage reported at the end (pi's convention: `input` excludes cache reads/writes).
    /// Default: 10 input, 5 output, no cache.
    pub fn usage(mut self, input: u64, output: u64, cache_read: u64, cache_write: u64) -> Self {
        self.usage = TurnUsage {
            input,
            output,
            cache_read,
            cache_write,
        };
        self
    }

    /// Splits every text, thinking and argument string into deltas of `chars` characters (so JSON
    /// arguments are cut mid-string). 0, the default, sends each string as one delta.
    pub fn chunk(mut self, chars: usize) -> Self {
        self.chunk = chars;
        self
    }

    /// Waits this long before each SSE event after the first. Default: no wait.
    pub fn delay_between_events(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    /// The effective stop reason.
    pub fn stop_reason(&self) -> Stop {
        match self.stop {
            Some(stop) => stop,
            None if self.tool_calls().next().is_some() => Stop::ToolUse,
            None => Stop::End,
        }
    }

    /// Thinking blocks first, then the rest in insertion order.
    pub fn blocks(&self) -> impl Iterator<Item = &Block> {
        self.thinking.iter().chain(self.blocks.iter())
    }

    fn tool_calls(&self) -> impl Iterator<Item = &Block> {
        self.blocks
            .iter()
            .filter(|b| matches!(b, Block::ToolCall { .. }))
    }

    /// `text` cut into this turn's delta size (whole when chunking is off). Empty text gives no
    /// pieces.
    pub(crate) fn pieces(&self, text: &str) -> Vec<String> {
        split_chars(text, self.chunk)
    }
}

/// Cuts `text` into pieces of `n` characters (one piece when `n` is 0).
pub(crate) fn split_chars(text: &str, n: usize) -> Vec<String> {
    if text.is_empty() {
        return Vec::new();
    }
    if n == 0 {
        return vec![text.to_owned()];
    }
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(n).map(|c| c.iter().collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_by_characters() {
        assert_eq!(split_chars("héllo", 2), vec!["hé", "ll", "o"]);
        assert_eq!(split_chars("abc", 0), vec!["abc"]);
        assert!(split_chars("", 3).is_empty());
    }

    #[test]
    fn thinking_goes_first_and_stop_defaults() {
        let turn = Turn::text("a")
            .thinking("t")
            .tool_call("c", "n", serde_json::json!({}));
        let kinds: Vec<_> = turn
            .blocks()
            .map(|b| match b {
                Block::Thinking { .. } => "thinking",
                Block::Text(_) => "text",
                Block::ToolCall { .. } => "tool",
            })
            .collect();
        assert_eq!(kinds, ["thinking", "text", "tool"]);
        assert_eq!(turn.stop_reason(), Stop::ToolUse);
        assert_eq!(Turn::text("x").stop_reason(), Stop::End);
        assert_eq!(Turn::text("x").length().stop_reason(), Stop::Length);
    }
}
