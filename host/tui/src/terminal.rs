//! Taking the terminal over and giving it back. [`TerminalGuard`] enters raw mode, the
//! alternate screen, bracketed paste and mouse wheel reports; dropping it (also while a panic unwinds, and from the
//! panic hook when the panic aborts) restores all of it and shows the cursor, so the user's
//! shell is never left broken.

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::cursor::Show;
use ratatui::crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use std::io::{Stdout, stdout};
use std::sync::Once;

pub type Term = Terminal<CrosstermBackend<Stdout>>;

/// The terminal, in the UI's modes until dropped.
pub struct TerminalGuard {
    pub terminal: Term,
}

impl TerminalGuard {
    pub fn enter() -> std::io::Result<Self> {
        install_panic_hook();
        take_over()?;
        match Terminal::new(CrosstermBackend::new(stdout())) {
            Ok(terminal) => Ok(TerminalGuard { terminal }),
            Err(error) => {
                restore();
                Err(error)
            }
        }
    }
}

/// Raw mode, the alternate screen, bracketed paste and mouse wheel reports.
fn take_over() -> std::io::Result<()> {
    enable_raw_mode()?;
    let entered = execute!(
        stdout(),
        EnterAlternateScreen,
        EnableBracketedPaste,
        EnableMouseCapture
    );
    if entered.is_err() {
        restore();
    }
    entered
}

/// Ctrl+Z: gives the terminal back and stops the process as the shell's job control expects;
/// when the shell resumes it, the UI takes the terminal again and redraws everything.
pub fn suspend(terminal: &mut Term) -> std::io::Result<()> {
    restore();
    let me = rustix::process::getpid();
    rustix::process::kill_process(me, rustix::process::Signal::TSTP)?;
    take_over()?;
    terminal.clear()
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Leaves every mode the UI entered; safe to call more than once.
pub fn restore() {
    let _ = disable_raw_mode();
    let _ = execute!(
        stdout(),
        DisableMouseCapture,
        DisableBracketedPaste,
        LeaveAlternateScreen,
        Show
    );
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
