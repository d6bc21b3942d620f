//! Taking the terminal over and giving it back. [`TerminalGuard`] enters raw mode, bracketed
//! paste and focus reports (an extension's attention request is sent while unfocused), and in the fullscreen layout the alternate screen and mouse wheel reports
//! (the regular layout leaves the mouse to the terminal, so its own scrolling and selection
//! work); dropping it (also while a panic unwinds, and from the panic hook when the panic
//! aborts) restores all of it and shows the cursor, so the user's shell is never left broken.
//!
//! Terminal input is read on a thread of its own ([`Input`]), which can be paused while
//! another program (an external editor) owns the terminal.

use pi_ai::lock;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::cursor::Show;
use ratatui::crossterm::event::{self, Event};
use ratatui::crossterm::event::{
    DisableBracketedPaste, DisableFocusChange, DisableMouseCapture, EnableBracketedPaste,
    EnableFocusChange, EnableMouseCapture,
};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::{TerminalOptions, Viewport};
use std::io::{Stdout, stdout};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, Once};
use std::time::Duration;
use tokio::sync::mpsc;

pub type Term = Terminal<CrosstermBackend<Stdout>>;

/// Whether the UI runs fullscreen: what taking the terminal over again enters.
static FULLSCREEN: AtomicBool = AtomicBool::new(true);

/// The terminal, in the UI's modes until dropped.
pub struct TerminalGuard {
    pub terminal: Term,
}

impl TerminalGuard {
    /// Fullscreen: the alternate screen. Regular: an inline viewport of `inline_rows` rows at
    /// the cursor, with everything above it left to the terminal's scrollback.
    pub fn enter(fullscreen: bool, inline_rows: impl FnOnce(u16) -> u16) -> std::io::Result<Self> {
        FULLSCREEN.store(fullscreen, Ordering::SeqCst);
        install_panic_hook();
        take_over()?;
        let viewport = if fullscreen {
            Viewport::Fullscreen
        } else {
            let rows = ratatui::crossterm::terminal::size().map_or(24, |(_, rows)| rows);
            Viewport::Inline(inline_rows(rows))
        };
        match Terminal::with_options(
            CrosstermBackend::new(stdout()),
            TerminalOptions { viewport },
        ) {
            Ok(terminal) => Ok(TerminalGuard { terminal }),
            Err(error) => {
                restore();
                Err(error)
            }
        }
    }
}

/// Raw mode, bracketed paste and focus reports; fullscreen also the alternate screen and
/// mouse reports.
fn take_over() -> std::io::Result<()> {
    enable_raw_mode()?;
    let entered = if FULLSCREEN.load(Ordering::SeqCst) {
        execute!(
            stdout(),
            EnterAlternateScreen,
            EnableBracketedPaste,
            EnableFocusChange,
            EnableMouseCapture
        )
    } else {
        execute!(stdout(), EnableBracketedPaste, EnableFocusChange)
    };
    if entered.is_err() {
        restore();
    }
    entered
}

/// Ctrl+Z: gives the terminal back and stops the process as the shell's job control expects;
/// when the shell resumes it, the UI takes the terminal again and redraws everything.
pub fn suspend(terminal: &mut Term) -> std::io::Result<()> {
    outside(terminal, || {
        let me = rustix::process::getpid();
        rustix::process::kill_process(me, rustix::process::Signal::TSTP)
    })?
    .map_err(std::io::Error::from)
}

/// Runs `f` with the terminal given back (for an external editor), then takes it again.
pub fn outside<R>(terminal: &mut Term, f: impl FnOnce() -> R) -> std::io::Result<R> {
    restore();
    let result = f();
    take_over()?;
    repaint(terminal)?;
    Ok(result)
}

/// Clears the screen so the next frame paints every cell. Fullscreen does it without
/// `Terminal::clear`, which asks the terminal where its cursor is and fails where nothing
/// answers (a pseudo-terminal without an emulator, a terminal under load); the inline
/// viewport has to ask, to find itself again.
pub fn repaint(terminal: &mut Term) -> std::io::Result<()> {
    if FULLSCREEN.load(Ordering::SeqCst) {
        let size = terminal.size()?;
        terminal.resize(ratatui::layout::Rect::new(0, 0, size.width, size.height))
    } else {
        terminal.clear()
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Leaves every mode the UI entered; safe to call more than once.
pub fn restore() {
    let _ = disable_raw_mode();
    let _ = if FULLSCREEN.load(Ordering::SeqCst) {
        execute!(
            stdout(),
            DisableMouseCapture,
            DisableFocusChange,
            DisableBracketedPaste,
            LeaveAlternateScreen,
            Show
        )
    } else {
        execute!(stdout(), DisableFocusChange, DisableBracketedPaste, Show)
    };
}

/// Puts `text` on the clipboard: the system's (`wl-copy`, `xclip`, `xsel`, `pbcopy`) where one
/// is installed and a display is there, and through the terminal (OSC 52) always, which
/// works over ssh and, with `set-clipboard on`, inside tmux.
pub fn copy_to_clipboard(text: &str) {
    let display = std::env::var_os("WAYLAND_DISPLAY").is_some()
        || std::env::var_os("DISPLAY").is_some()
        || cfg!(target_os = "macos");
    let native: [(&str, &[&str]); 4] = [
        ("wl-copy", &[]),
        ("xclip", &["-selection", "clipboard"]),
        ("xsel", &["--clipboard", "--input"]),
        ("pbcopy", &[]),
    ];
    for (program, args) in native.iter().filter(|_| display) {
        let child = std::process::Command::new(program)
            .args(*args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        if let Ok(mut child) = child {
            use std::io::Write as _;
            if let Some(mut stdin) = child.stdin.take() {
                let _ = stdin.write_all(text.as_bytes());
            }
            if child.wait().is_ok_and(|s| s.success()) {
                break;
            }
        }
    }
    osc52(text);
}

fn osc52(text: &str) {
    use base64::Engine as _;
    use std::io::Write as _;
    let encoded = base64::engine::general_purpose::STANDARD.encode(text);
    let mut out = stdout();
    let _ = write!(out, "\x1b]52;c;{encoded}\x07");
    let _ = out.flush();
}

/// Whether the terminal's background is light, from its answer to OSC 11 (waiting at most
/// `wait`); `None` when it does not answer. Called in raw mode, before the input thread starts,
/// so the answer is not taken for keys.
pub fn background_is_light(wait: Duration) -> Option<bool> {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    use std::io::Write as _;
    use std::os::fd::AsFd;
    let mut out = stdout();
    write!(out, "\x1b]11;?\x1b\\").ok()?;
    out.flush().ok()?;
    let stdin = std::io::stdin();
    let fd = stdin.as_fd();
    let deadline = std::time::Instant::now() + wait;
    let mut answer = Vec::new();
    while !(answer.ends_with(b"\x07") || answer.ends_with(b"\x1b\\")) {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return None;
        }
        let timeout = Timespec {
            tv_sec: i64::try_from(left.as_secs()).unwrap_or(i64::MAX),
            tv_nsec: i64::from(left.subsec_nanos()),
        };
        let mut fds = [PollFd::new(&fd, PollFlags::IN)];
        if poll(&mut fds, Some(&timeout)).ok()? == 0 {
            return None;
        }
        let mut buf = [0u8; 64];
        let n = rustix::io::read(fd, &mut buf).ok()?;
        if n == 0 {
            return None;
        }
        answer.extend_from_slice(&buf[..n]);
    }
    light_from_answer(&String::from_utf8_lossy(&answer))
}

/// `ESC ] 11 ; rgb:RRRR/GGGG/BBBB` → whether that colour is light (relative luminance).
fn light_from_answer(answer: &str) -> Option<bool> {
    let rgb = answer.split("rgb:").nth(1)?;
    let mut parts = rgb
        .split(['/', '\x07', '\x1b'])
        .take(3)
        .map(|p| u32::from_str_radix(p, 16).ok().map(|v| (v, p.len())));
    let mut channel = || -> Option<f64> {
        let (value, digits) = parts.next()??;
        let max = (16u32.pow(digits as u32) - 1) as f64;
        Some(value as f64 / max)
    };
    let (r, g, b) = (channel()?, channel()?, channel()?);
    Some(0.2126 * r + 0.7152 * g + 0.0722 * b > 0.5)
}

/// Terminal events, read on their own thread (crossterm's read blocks) and handed over.
pub struct Input {
    pub events: mpsc::UnboundedReceiver<Event>,
    gate: Arc<Gate>,
}

/// Lets the loop stop the reader while another program reads the terminal.
#[derive(Default)]
struct Gate {
    paused: Mutex<(bool, bool)>,
    changed: Condvar,
}

/// How often the reader looks at the gate while no input comes.
const INPUT_POLL: Duration = Duration::from_millis(40);

impl Input {
    pub fn spawn() -> Input {
        let (tx, events) = mpsc::unbounded_channel();
        let gate = Arc::new(Gate::default());
        let reader_gate = Arc::clone(&gate);
        std::thread::spawn(move || {
            loop {
                reader_gate.wait_while_paused();
                match event::poll(INPUT_POLL) {
                    Ok(false) => continue,
                    Ok(true) => {}
                    Err(_) => break,
                }
                let Ok(event) = event::read() else { break };
                if tx.send(event).is_err() {
                    break;
                }
            }
        });
        Input { events, gate }
    }

    /// Stops reading and waits (briefly) until the reader has noticed.
    pub fn pause(&self) {
        let mut state = lock(&self.gate.paused);
        state.0 = true;
        let deadline = std::time::Instant::now() + INPUT_POLL * 5;
        while !state.1 && std::time::Instant::now() < deadline {
            state = match self.gate.changed.wait_timeout(state, INPUT_POLL) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }

    pub fn resume(&self) {
        lock(&self.gate.paused).0 = false;
        self.gate.changed.notify_all();
    }
}

impl Gate {
    /// Blocks the reader while a pause is asked for, saying it has stopped.
    fn wait_while_paused(&self) {
        let mut state = lock(&self.paused);
        while state.0 {
            state.1 = true;
            self.changed.notify_all();
            state = match self.changed.wait(state) {
                Ok(guard) => guard,
                Err(poisoned) => poisoned.into_inner(),
            };
        }
        state.1 = false;
    }
}

fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::light_from_answer;

    #[test]
    fn reads_the_background_from_the_answer() {
        assert_eq!(
            light_from_answer("\x1b]11;rgb:ffff/ffff/ffff\x1b\\"),
            Some(true)
        );
        assert_eq!(
            light_from_answer("\x1b]11;rgb:1e1e/1e1e/2e2e\x07"),
            Some(false)
        );
        assert_eq!(light_from_answer("\x1b]11;rgb:fd/f6/e3\x07"), Some(true));
        assert_eq!(light_from_answer("garbage"), None);
    }
}
