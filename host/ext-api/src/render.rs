//! The renderer seam: custom messages and tool results drawn as styled lines by an extension.
//! Colours are theme colour names, so the user's theme decides the actual colours.

use crate::ExtensionFailure;
use pi_ai::UserBlock;
use serde_json::Value;

/// Text attributes of a span; colours are theme colour names (`accent`, `muted`, …).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Style {
    pub fg: Option<String>,
    pub bg: Option<String>,
    pub bold: bool,
    pub italic: bool,
    pub dim: bool,
    pub underline: bool,
}

/// A run of text with one style.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub text: String,
    pub style: Style,
}

/// One terminal line.
pub type StyledLine = Vec<Span>;

/// What to render.
#[derive(Debug, Clone)]
pub enum RenderTarget<'a> {
    CustomMessage {
        custom_type: &'a str,
        payload: &'a Value,
    },
    ToolResult {
        tool_name: &'a str,
        arguments: &'a Value,
        /// The result's blocks and `details` (by reference: a stored result is drawn from the
        /// message the agent holds, not a copy).
        content: &'a [UserBlock],
        details: &'a Value,
        is_error: bool,
        expanded: bool,
    },
}

/// Draws some custom messages or tool results.
pub trait MessageRenderer: Send + Sync {
    /// Whether this renderer draws `target`.
    fn handles(&self, target: &RenderTarget<'_>) -> bool;

    /// Renders `target` at most `width` cells wide; `Ok(None)` lets pi draw it.
    fn render(
        &self,
        target: &RenderTarget<'_>,
        width: u32,
    ) -> Result<Option<Vec<StyledLine>>, ExtensionFailure>;
}
