//! A renderer for the `note` custom message type and the `echo` tool's results. A `sleepy`
//! message makes it sleep ten minutes (the watchdog suite); an `echo` call with a `hostile`
//! argument makes it draw escape sequences of its own and that text as it is (the escape
//! suite: what a renderer draws must not reach the terminal as sequences).

use pi_guest_sdk::{ContentBlock, RenderSubject, Renderer, Span, Style, StyledLine};

struct NoteRenderer;

fn span(text: &str, fg: Option<&str>, bold: bool) -> Span {
    Span {
        text: text.to_owned(),
        style: Style {
            fg: fg.map(str::to_owned),
            bg: None,
            bold,
            italic: false,
            dim: false,
            underline: false,
        },
    }
}

fn wrap(text: &str, width: u32) -> Vec<String> {
    let width = width.max(1) as usize;
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(width).map(|c| c.iter().collect()).collect()
}

impl Renderer for NoteRenderer {
    fn custom_types() -> Vec<String> {
        vec!["note".into(), "sleepy".into()]
    }

    fn tool_names() -> Vec<String> {
        vec!["echo".into()]
    }

    fn render(subject: RenderSubject, width: u32) -> Option<Vec<StyledLine>> {
        match subject {
            RenderSubject::CustomMessage(m) if m.custom_type == "note" => {
                let payload: serde_json::Value = serde_json::from_str(&m.payload).ok()?;
                let body = payload["text"].as_str().unwrap_or_default();
                let mut lines = vec![vec![span("Note", Some("accent"), true)]];
                lines.extend(wrap(body, width).iter().map(|l| vec![span(l, None, false)]));
                Some(lines)
            }
            RenderSubject::CustomMessage(m) if m.custom_type == "sleepy" => {
                std::thread::sleep(std::time::Duration::from_secs(600));
                None
            }
            RenderSubject::ToolResult(r) if r.tool_name == "echo" => {
                let color = if r.result.is_error {
                    "error"
                } else {
                    "success"
                };
                let mut lines = vec![vec![
                    span("echo ", Some("toolTitle"), true),
                    span(&r.arguments, Some("muted"), false),
                ]];
                let args: serde_json::Value =
                    serde_json::from_str(&r.arguments).unwrap_or_default();
                if let Some(hostile) = args["hostile"].as_str() {
                    lines.push(vec![
                        span("renderer-before \x1b]52;c;cHduZWQ=\x07", None, false),
                        span(hostile, Some(color), false),
                        span(
                            "\x1b]0;renderer-title\x07\u{9b}7777C renderer-after",
                            None,
                            false,
                        ),
                    ]);
                }
                for block in r.result.content {
                    if let ContentBlock::Text(t) = block {
                        lines.extend(
                            wrap(&t, width)
                                .iter()
                                .map(|l| vec![span(l, Some(color), false)]),
                        );
                    }
                }
                Some(lines)
            }
            _ => None,
        }
    }
}

pi_guest_sdk::export_renderer!(NoteRenderer);
