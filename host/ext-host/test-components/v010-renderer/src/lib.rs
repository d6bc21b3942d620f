//! A renderer built against `pi:extension@0.1.0` (the host's snapshot in
//! `host/ext-host/wit/since_v0.1.0`), straight from wit-bindgen: it draws `legacy-note` custom
//! messages and the `legacy` tool's results as one line, `0.1.0: <text>`, at most `width`
//! characters wide.

// The glue wit-bindgen generates is unsafe; nothing this crate writes itself is.
#[allow(unsafe_code)]
mod bindings {
    wit_bindgen::generate!({
        path: "../../wit/since_v0.1.0",
        world: "pi:extension/renderer",
    });
}

use bindings::exports::pi::extension::renderer_guest::Guest;
use bindings::pi::extension::types::{ContentBlock, RenderSubject, Span, Style, StyledLine};

struct Legacy;

fn line(text: &str, width: u32) -> StyledLine {
    let text: String = format!("0.1.0: {text}")
        .chars()
        .take(width as usize)
        .collect();
    vec![Span {
        text,
        style: Style {
            fg: Some("accent".into()),
            bg: None,
            bold: false,
            italic: false,
            dim: false,
            underline: false,
        },
    }]
}

impl Guest for Legacy {
    fn custom_types() -> Vec<String> {
        vec!["legacy-note".into()]
    }

    fn tool_names() -> Vec<String> {
        vec!["legacy".into()]
    }

    fn render(subject: RenderSubject, width: u32) -> Option<Vec<StyledLine>> {
        let text = match subject {
            RenderSubject::CustomMessage(m) => m.payload,
            RenderSubject::ToolResult(r) => r
                .result
                .content
                .into_iter()
                .filter_map(|block| match block {
                    ContentBlock::Text(text) => Some(text),
                    ContentBlock::Image(_) => None,
                })
                .collect::<Vec<_>>()
                .join(" "),
        };
        Some(vec![line(&text, width)])
    }
}

#[allow(unsafe_code)]
mod export {
    use super::Legacy;
    crate::bindings::export!(Legacy with_types_in crate::bindings);
}
