//! Print mode (`-p`, piped input, `--mode text`) and JSON mode (`--mode json`): send the
//! prompts one after another, then report. Text mode prints the final answer's text; JSON mode
//! streams the session header and every event as JSON lines.
//!
//! What text mode prints, and the errors both modes print on stderr, are a model's or a
//! provider's words: they pass `pi_ai::terminal_text` on the way out, so no escape sequence in
//! them reaches the terminal. JSON lines are written as they are (JSON escapes every control
//! character).

use crate::modes::json::JsonLines;
use pi_ai::terminal_text::{Keep, terminal_safe};
use pi_ai::{AssistantBlock, ImageContent, StopReason};
use pi_app::hooks::UiRequest;
use pi_app::{App, AppError, AppEvent, Disposition, SessionEvent};
use std::io::Write;
use std::pin::pin;

/// One prompt: text plus attached images.
pub type Prompt = (String, Vec<ImageContent>);

/// Runs `prompts` and returns the exit code (0, or 1 when the last answer failed or was
/// aborted). `json`: stream events instead of printing the answer.
pub async fn run(session: &App, prompts: Vec<Prompt>, json: Option<JsonLines>) -> i32 {
    session.subscribe_fn(|event| {
        if let Some(line) = notice_line(event) {
            eprintln!("{line}");
        }
    });
    // Text mode never looks at events: no subscription, so nothing is serialized per token.
    let mut events = json.as_ref().map(|out| {
        out.write_value(&session.with_session(|s| s.header().to_json()));
        session.subscribe()
    });
    for (text, images) in prompts {
        let result = match (&mut events, &json) {
            (Some(events), Some(out)) => stream_events(session, text, images, events, out).await,
            _ => session.prompt(text, images).await,
        };
        if let Err(message) = result {
            eprintln!("{}", terminal_safe(&message.to_string(), Keep::Lines));
            return 1;
        }
        if last_failed(session) {
            break;
        }
    }
    report(session, json.is_some())
}

/// Runs one prompt while writing its events as they arrive.
async fn stream_events(
    session: &App,
    text: String,
    images: Vec<ImageContent>,
    events: &mut tokio::sync::mpsc::UnboundedReceiver<AppEvent>,
    out: &JsonLines,
) -> Result<Disposition, AppError> {
    let mut run = pin!(session.prompt(text, images));
    let result = loop {
        tokio::select! {
            biased;
            Some(event) = events.recv() => out.write_event(&event, false),
            result = &mut run => break result,
        }
    };
    while let Ok(event) = events.try_recv() {
        out.write_event(&event, false);
    }
    result
}

/// An extension's notice (or request for attention: there is no terminal UI to flash) as its
/// line on stderr: `<from>: <text>`, one line, cleaned.
fn notice_line(event: &AppEvent) -> Option<String> {
    let (from, text) = match event {
        AppEvent::Session(SessionEvent::ExtensionUiRequest {
            request: UiRequest::Notify { message, .. },
            from,
            ..
        }) => (from, message.clone()),
        AppEvent::Session(SessionEvent::Attention { from, title, text }) => {
            (from, format!("{title}: {text}"))
        }
        _ => return None,
    };
    Some(format!(
        "{}: {}",
        terminal_safe(from, Keep::Line),
        terminal_safe(&text, Keep::Line)
    ))
}

fn last_failed(session: &App) -> bool {
    session
        .last_assistant()
        .is_some_and(|m| matches!(m.stop_reason, StopReason::Error | StopReason::Aborted))
}

/// Text mode: the text blocks of the final answer, each on its own line; a failed or aborted
/// answer goes to stderr with exit code 1 (in both modes).
fn report(session: &App, json: bool) -> i32 {
    let Some(last) = session.last_assistant() else {
        return 0;
    };
    match last.stop_reason {
        StopReason::Error | StopReason::Aborted => {
            let message = last.error_message.clone().unwrap_or_else(|| {
                let reason = if last.stop_reason == StopReason::Aborted {
                    "aborted"
                } else {
                    "error"
                };
                format!("Request {reason}")
            });
            eprintln!("{}", terminal_safe(&message, Keep::Lines));
            1
        }
        _ => {
            if !json {
                let mut out = std::io::stdout().lock();
                for block in &last.content {
                    if let AssistantBlock::Text(t) = block {
                        let _ = writeln!(out, "{}", terminal_safe(&t.text, Keep::Lines));
                    }
                }
                let _ = out.flush();
            }
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_app::hooks::NotifyType;

    fn request(request: UiRequest) -> AppEvent {
        AppEvent::Session(SessionEvent::ExtensionUiRequest {
            id: "ui-1".into(),
            request,
            from: "probe@1.0.0".into(),
        })
    }

    #[test]
    fn a_notice_is_one_clean_line_naming_the_extension() {
        let notice = request(UiRequest::Notify {
            message: "done\n\x1b]52;c;aGk=\x07ok".into(),
            notify_type: NotifyType::Warning,
        });
        assert_eq!(
            notice_line(&notice).as_deref(),
            Some("probe@1.0.0: done\u{240a}ok")
        );
        let status = request(UiRequest::SetStatus {
            status_key: "k".into(),
            status_text: Some("x".into()),
        });
        assert_eq!(notice_line(&status), None);
    }
}
