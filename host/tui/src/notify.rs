//! An extension's request for the user's attention, as the terminal's desktop notification:
//! `OSC 777 ; notify ; title ; text` (urxvt, foot, Ghostty, WezTerm, kitty, VTE terminals that
//! carry the patch), or `OSC 9 ; text` where only that is understood (iTerm2, Windows Terminal,
//! ConEmu). Inside tmux the sequence is wrapped in tmux's passthrough (`allow-passthrough on`).
//!
//! It is sent only when the user is not looking: the terminal reports it lost the focus, or
//! nothing runs (a run's own output is what a watching user would see). Extensions never write
//! escape sequences themselves: the title and text are cleaned of control characters, and of
//! `;`, which would end a field of the sequence.

use crate::input::Attention;
use pi_ai::terminal_text::{Keep, terminal_safe};
use std::io::Write;

/// The most characters of a title or text sent; notifications are short.
const MAX_FIELD: usize = 200;

/// Which notification sequence the terminal understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// `ESC ] 777 ; notify ; title ; text BEL`.
    Osc777,
    /// `ESC ] 9 ; text BEL`.
    Osc9,
}

/// Whether to alert: the terminal is not focused, or the UI is idle.
pub fn should_send(focused: bool, idle: bool) -> bool {
    !focused || idle
}

/// The terminal's flavour from its environment (`var` reads a variable).
pub fn flavor(var: impl Fn(&str) -> Option<String>) -> Flavor {
    let program = var("TERM_PROGRAM").unwrap_or_default();
    let osc9_only = program == "iTerm.app"
        || var("LC_TERMINAL").is_some_and(|t| t == "iTerm2")
        || var("WT_SESSION").is_some()
        || var("ConEmuPID").is_some();
    if osc9_only {
        Flavor::Osc9
    } else {
        Flavor::Osc777
    }
}

/// One field: printable, without `;`, at most [`MAX_FIELD`] characters.
fn field(text: &str) -> String {
    terminal_safe(text, Keep::Nothing)
        .replace(';', ",")
        .chars()
        .take(MAX_FIELD)
        .collect()
}

/// The bytes to write for `attention` (`tmux`: inside tmux, wrapped for its passthrough).
pub fn sequence(attention: &Attention, flavor: Flavor, tmux: bool) -> String {
    let (title, text) = (field(&attention.title), field(&attention.text));
    let osc = match flavor {
        Flavor::Osc777 => format!("\x1b]777;notify;{title};{text}\x07"),
        Flavor::Osc9 if text.is_empty() => format!("\x1b]9;{title}\x07"),
        Flavor::Osc9 => format!("\x1b]9;{title}: {text}\x07"),
    };
    if tmux {
        // tmux passes a DCS `tmux;` payload through, with each ESC in it doubled.
        format!("\x1bPtmux;{}\x1b\\", osc.replace('\x1b', "\x1b\x1b"))
    } else {
        osc
    }
}

/// Sends the notification when [`should_send`] says so.
pub fn attention(attention: &Attention, focused: bool, idle: bool) {
    if !should_send(focused, idle) {
        return;
    }
    let var = |name: &str| std::env::var(name).ok();
    let bytes = sequence(attention, flavor(var), var("TMUX").is_some());
    let mut out = std::io::stdout();
    if let Err(error) = out.write_all(bytes.as_bytes()).and_then(|()| out.flush()) {
        tracing::debug!("cannot send the notification: {error}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(title: &str, text: &str) -> Attention {
        Attention {
            title: title.into(),
            text: text.into(),
        }
    }

    #[test]
    fn sent_only_when_unfocused_or_idle() {
        assert!(should_send(false, false));
        assert!(should_send(false, true));
        assert!(should_send(true, true));
        assert!(!should_send(true, false));
    }

    #[test]
    fn osc_777_with_osc_9_where_only_that_is_understood() {
        let a = ask("pi", "Run finished");
        assert_eq!(
            sequence(&a, Flavor::Osc777, false),
            "\x1b]777;notify;pi;Run finished\x07"
        );
        assert_eq!(
            sequence(&a, Flavor::Osc9, false),
            "\x1b]9;pi: Run finished\x07"
        );
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        assert_eq!(flavor(env(&[("TERM_PROGRAM", "iTerm.app")])), Flavor::Osc9);
        assert_eq!(flavor(env(&[("WT_SESSION", "x")])), Flavor::Osc9);
        assert_eq!(flavor(env(&[("TERM_PROGRAM", "ghostty")])), Flavor::Osc777);
        assert_eq!(flavor(env(&[])), Flavor::Osc777);
    }

    #[test]
    fn an_extension_cannot_break_out_of_the_sequence() {
        let a = ask("t;itle\x07", "a;b\x1b]52;c;aGk=\x07\x1b\\ end");
        let seq = sequence(&a, Flavor::Osc777, false);
        assert_eq!(seq, "\x1b]777;notify;t,itle\u{2407};a,b end\x07");
        // One ESC (the start) and one BEL (the end): nothing of the extension's survives.
        assert_eq!(seq.matches('\x1b').count(), 1);
        assert_eq!(seq.matches('\x07').count(), 1);
        let long = sequence(&ask("t", &"x".repeat(500)), Flavor::Osc9, false);
        assert_eq!(long.matches('x').count(), MAX_FIELD);
    }

    #[test]
    fn inside_tmux_it_goes_through_the_passthrough() {
        let seq = sequence(&ask("pi", "done"), Flavor::Osc777, true);
        assert_eq!(seq, "\x1bPtmux;\x1b\x1b]777;notify;pi;done\x07\x1b\\");
    }
}
