//! pi-tui: the interactive terminal UI, a face over pi-app's typed [`App`].
//!
//! The UI owns the terminal (alternate screen, raw mode, bracketed paste) for as long as it
//! runs and gives it back whatever happens. Events from the App and keys from the terminal are
//! taken as they come; the screen is drawn at most every 30 ms and only when something changed,
//! inside a synchronized update, and ratatui sends only the cells that changed, so streaming
//! never redraws the whole screen per token. On exit the transcript is printed to the normal
//! screen, so the conversation stays in the terminal's scrollback.

mod editor;
mod input;
mod markdown;
mod terminal;
mod transcript;
pub mod view;
mod wrap;

pub use editor::Editor;
pub use transcript::{Item, ToolCall, Transcript};
pub use wrap::wrap;

use input::{Action, Ui};
use pi_app::App;
use ratatui::crossterm::event::{self, Event};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// How the UI starts.
#[derive(Debug, Clone, Default)]
pub struct TuiOptions {
    /// Messages given on the command line, sent one after another.
    pub initial_prompts: Vec<String>,
    /// Thinking blocks start expanded (`hideThinkingBlock: false`).
    pub show_thinking: bool,
    /// `NO_COLOR` is set.
    pub no_color: bool,
    /// Printed above the transcript when it starts (what was loaded, warnings).
    pub header: Vec<String>,
    /// Where the editor's unsent text is kept between runs (offered again on the next start).
    pub draft_path: Option<std::path::PathBuf>,
}

/// Why the UI could not run.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    #[error("Cannot use the terminal: {0}")]
    Terminal(#[from] std::io::Error),
}

/// Frames are drawn at most this often.
const FRAME: Duration = Duration::from_millis(30);

/// Runs the UI until the user exits or `shutdown` fires; returns the exit code.
pub async fn run(
    app: Arc<App>,
    options: TuiOptions,
    shutdown: CancellationToken,
) -> Result<i32, TuiError> {
    let mut events = app.subscribe();
    let mut ui = Ui::new(&app, &options);
    if let Some(draft) = options.draft_path.as_deref().and_then(read_draft) {
        ui.editor.insert(&draft);
        ui.transcript.items.push(Item::Notice {
            text: "Restored the text you had not sent last time.".to_owned(),
            error: false,
        });
    }
    let mut guard = terminal::TerminalGuard::enter()?;
    let mut keys = spawn_input_thread();
    let (errors_tx, mut errors) = mpsc::unbounded_channel::<String>();
    if !options.initial_prompts.is_empty() {
        let (app, tx) = (Arc::clone(&app), errors_tx.clone());
        let prompts = options.initial_prompts.clone();
        tokio::spawn(async move {
            for prompt in prompts {
                if let Err(error) = app.prompt(prompt, Vec::new()).await {
                    let _ = tx.send(error.to_string());
                    break;
                }
            }
        });
    }
    let mut frames = tokio::time::interval(FRAME);
    let mut dirty = true;
    let code = loop {
        tokio::select! {
            () = shutdown.cancelled() => break 0,
            Some(event) = events.recv() => {
                ui.transcript.apply(&event);
                dirty = true;
            }
            Some(error) = errors.recv() => {
                ui.notice(error);
                dirty = true;
            }
            key = keys.recv() => {
                let Some(key) = key else { break 0 };
                match ui.handle(&key, &app) {
                    Action::None => {}
                    Action::Exit => break 0,
                    Action::Prompt(text) => spawn_prompt(&app, text, errors_tx.clone()),
                    Action::Suspend => terminal::suspend(&mut guard.terminal)?,
                }
                dirty = true;
            }
            _ = frames.tick() => {
                if dirty || ui.transcript.working {
                    ui.refresh_footer(&app);
                    draw(&mut guard.terminal, &mut ui)?;
                    dirty = false;
                }
            }
        }
    };
    app.abort();
    app.wait_for_idle().await;
    let width = guard.terminal.size().map_or(80, |s| s.width) as usize;
    drop(guard);
    if let Some(path) = &options.draft_path {
        save_draft(path, ui.editor.text());
    }
    print_transcript(&ui, width);
    Ok(code)
}

fn read_draft(path: &std::path::Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    (!text.trim().is_empty()).then_some(text)
}

/// Keeps `text` for the next start, or forgets the old draft when there is none.
fn save_draft(path: &std::path::Path, text: &str) {
    let result = if text.trim().is_empty() {
        match std::fs::remove_file(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    } else {
        path.parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| pi_session::paths::write_atomic(path, text.as_bytes()))
    };
    if let Err(error) = result {
        tracing::warn!("cannot keep the unsent text in {}: {error}", path.display());
    }
}

fn draw(terminal: &mut terminal::Term, ui: &mut Ui) -> std::io::Result<()> {
    let mut out = std::io::stdout();
    execute!(out, BeginSynchronizedUpdate)?;
    let drawn = terminal.draw(|frame| view::draw(frame, &ui.screen()));
    execute!(out, EndSynchronizedUpdate)?;
    ui.tick += 1;
    drawn.map(|_| ())
}

fn spawn_prompt(app: &Arc<App>, text: String, errors: mpsc::UnboundedSender<String>) {
    let app = Arc::clone(app);
    tokio::spawn(async move {
        if let Err(error) = app.prompt(text, Vec::new()).await {
            let _ = errors.send(error.to_string());
        }
    });
}

/// Terminal input is read on its own thread (crossterm's read blocks) and handed over.
fn spawn_input_thread() -> mpsc::UnboundedReceiver<Event> {
    let (tx, rx) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        while let Ok(event) = event::read() {
            if tx.send(event).is_err() {
                break;
            }
        }
    });
    rx
}

/// The conversation on the normal screen, so it stays in the scrollback after exit.
fn print_transcript(ui: &Ui, width: usize) {
    let lines = view::plain_transcript(&ui.screen(), width);
    let mut out = std::io::stdout().lock();
    for line in lines {
        let _ = writeln!(out, "{}", line.trim_end());
    }
    let _ = out.flush();
}
