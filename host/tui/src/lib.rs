//! pi-tui: the interactive terminal UI, a face over pi-app's typed [`App`].
//!
//! The UI owns the terminal (alternate screen, raw mode, bracketed paste) for as long as it
//! runs and gives it back whatever happens. Events from the App and keys from the terminal are
//! taken as they come; the screen is drawn at most every 30 ms and only when something changed,
//! inside a synchronized update, and ratatui sends only the cells that changed, so streaming
//! never redraws the whole screen per token. On exit the transcript is printed to the normal
//! screen, so the conversation stays in the terminal's scrollback.
//!
//! Whatever text others wrote (a model, a tool, a renderer component, a file) is cleaned of
//! escape sequences and control characters before it becomes a screen line
//! (`wrap::screen_text`, `view::lines`): it is shown, never obeyed, in the UI, the scrollback
//! and the transcript printed at exit.

pub mod approval;
mod color;
mod commands;
mod complete;
pub mod dialog;
mod editor;
mod external;
mod files;
mod git;
mod highlight;
mod images;
mod input;
mod keys;
mod markdown;
mod notify;
mod picker;
mod search;
mod terminal;
mod theme;
mod transcript;
pub mod view;
mod wrap;

pub use color::ColorLevel;
pub use editor::Editor;
pub use images::ImageProtocol;
pub use keys::Keymap;
pub use theme::{Theme, Token};
pub use transcript::{Item, ToolCall, Transcript};
pub use view::LineCache;
pub use wrap::wrap;

use input::{Action, Ui};
use pi_app::App;
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
use ratatui::widgets::{Paragraph, Widget};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// How the UI starts.
#[derive(Debug, Clone, Default)]
pub struct TuiOptions {
    /// Messages given on the command line (with their attached images), sent one after
    /// another.
    pub initial_prompts: Vec<(String, Vec<pi_ai::ImageContent>)>,
    /// Thinking blocks start expanded (`hideThinkingBlock: false`).
    pub show_thinking: bool,
    /// The colours the terminal shows (`NO_COLOR`, `COLORTERM`, `TERM`).
    pub colors: ColorLevel,
    /// Printed above the transcript when it starts (what was loaded, warnings).
    pub header: Vec<String>,
    /// Where the editor's unsent text is kept between runs (offered again on the next start).
    pub draft_path: Option<PathBuf>,
    /// The fullscreen layout (alternate screen); else the regular one (scrollback).
    pub fullscreen: bool,
    /// `doubleEscapeAction`: `tree`, `fork` or `none`.
    pub double_escape_action: String,
    /// The command Ctrl+G runs (`externalEditor`, `$VISUAL`, `$EDITOR`).
    pub external_editor: Option<String>,
    /// `keybindings.json`.
    pub keybindings: Option<PathBuf>,
    /// How many completions the list above the editor shows.
    pub max_completions: usize,
    /// The working directory (`@` completion, the git branch).
    pub cwd: PathBuf,
    /// How the terminal draws pictures (`terminal.showImages` off: none).
    pub images: ImageProtocol,
    /// Where this directory's sessions are (`None`: `--no-session`).
    pub sessions_dir: Option<PathBuf>,
    /// `pi -r`: open the session picker at start.
    pub resume: bool,
    /// `~/.pi/agent` (trust.json).
    pub agent_dir: PathBuf,
    /// The theme to use (setting `theme`, `--use-theme`): a name or a file.
    pub theme: String,
    /// Where themes are found (`~/.pi/agent/themes`, `.pi/themes`) and extra theme files
    /// (`--theme`).
    pub theme_dirs: Vec<PathBuf>,
    pub theme_files: Vec<PathBuf>,
    /// Whether the themes extension packages ship are offered too (not with `--no-themes`);
    /// they are looked up again on `/reload`.
    pub package_themes: bool,
    /// No theme is set yet (the first run): choose dark or light by the terminal's background
    /// and remember the choice in settings.json.
    pub detect_theme: bool,
}

/// Why the UI could not run.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    #[error("Cannot use the terminal: {0}")]
    Terminal(#[from] std::io::Error),
}

/// Frames are drawn at most this often.
const FRAME: Duration = Duration::from_millis(30);
/// How long the first run waits for the terminal to say its background colour.
const THEME_QUERY_WAIT: Duration = Duration::from_millis(100);
/// Lines printed to the scrollback in one go (the regular layout).
const SCROLLBACK_CHUNK: usize = 200;

/// Runs the UI until the user exits or `shutdown` fires; returns the exit code.
pub async fn run(
    app: Arc<App>,
    options: TuiOptions,
    shutdown: CancellationToken,
) -> Result<i32, TuiError> {
    let mut events = app.subscribe();
    // Extensions' dialogs are drawn and answered here (`input::extensions`).
    app.enable_dialogs();
    let (keymap, warnings) = match &options.keybindings {
        Some(path) => Keymap::load(path),
        None => (Keymap::defaults(), Vec::new()),
    };
    let mut ui = Ui::new(&app, &options, keymap);
    for warning in warnings {
        ui.transcript.notice(warning, true);
    }
    if let Some(draft) = options.draft_path.as_deref().and_then(read_draft) {
        ui.editor.insert(&draft);
        ui.transcript.notice(
            "Restored the text you had not sent last time.".to_owned(),
            false,
        );
    }
    // Regular: the live region is half the screen (at least 10 rows), under the scrollback.
    if options.resume {
        ui.open_session_picker(&app);
    }
    let mut guard =
        terminal::TerminalGuard::enter(options.fullscreen, |rows| (rows / 2).max(10).min(rows))?;
    if options.detect_theme {
        // Asked before input is read, so the answer is not taken for keys.
        let light = terminal::background_is_light(THEME_QUERY_WAIT);
        let name = if light == Some(true) { "light" } else { "dark" };
        ui.use_theme(name);
        if let Err(error) = app.update_settings(|s| s.theme = Some(name.to_owned())) {
            tracing::warn!("cannot remember the theme: {error}");
        }
    }
    let mut input = terminal::Input::spawn();
    let (errors_tx, mut errors) = mpsc::unbounded_channel::<String>();
    let (bash_tx, mut bash_done) = mpsc::unbounded_channel::<Result<pi_app::BashOutcome, String>>();
    if !options.initial_prompts.is_empty() {
        let (app, tx) = (Arc::clone(&app), errors_tx.clone());
        let prompts = options.initial_prompts.clone();
        tokio::spawn(async move {
            for (prompt, images) in prompts {
                if let Err(error) = app.prompt(prompt, images).await {
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
                ui.plan_event(&event, &app);
                if let Some(attention) = ui.extension_event(&event) {
                    notify::attention(&attention, ui.focused, ui.idle());
                }
                dirty = true;
            }
            Some(error) = errors.recv() => {
                ui.notice(error);
                dirty = true;
            }
            Some(outcome) = bash_done.recv() => {
                match outcome {
                    Ok(outcome) => ui.transcript.finish_bash(Some(outcome)),
                    Err(error) => {
                        ui.transcript.finish_bash(None);
                        ui.notice(error);
                    }
                }
                dirty = true;
            }
            key = input.events.recv() => {
                let Some(key) = key else { break 0 };
                match ui.handle(&key, &app) {
                    Action::None => {}
                    Action::Exit => break 0,
                    Action::Prompt(text) => spawn_prompt(&app, text, errors_tx.clone()),
                    Action::Suspend => terminal::suspend(&mut guard.terminal)?,
                    Action::ExternalEditor => {
                        let text = ui.editor.expanded();
                        let command = ui.external_editor.clone();
                        input.pause();
                        let edited = terminal::outside(&mut guard.terminal, || {
                            external::edit(command.as_deref(), &text)
                        });
                        input.resume();
                        match edited? {
                            Ok(text) => ui.editor.set(&text),
                            Err(error) => ui.notice(error.to_string()),
                        }
                    }
                    Action::Compact(focus) => spawn_compact(&app, focus, errors_tx.clone()),
                    Action::McpLogin(server) => spawn_mcp_login(&app, server),
                    Action::SignIn(provider) => {
                        let pasted = ui.open_login_paste(&provider);
                        spawn_sign_in(&app, provider, pasted);
                    }
                    Action::SwitchSession(path) => match app.switch_session(&path) {
                        Ok(()) => {
                            reload(&app, &mut ui);
                            ui.transcript.notice(format!("Resumed {}", path.display()), false);
                        }
                        Err(error) => ui.notice(error.to_string()),
                    },
                    Action::Reload(done) => {
                        reload(&app, &mut ui);
                        ui.transcript.notice(done, false);
                    }
                    Action::Bash { command, exclude } => match app.claim_bash() {
                        Ok(()) => {
                            ui.transcript.start_bash(command.clone(), exclude);
                            spawn_bash(&app, command, exclude, bash_tx.clone());
                        }
                        Err(_) => ui.notice(
                            "A shell command is already running: press Esc to cancel it first."
                                .to_owned(),
                        ),
                    },
                    Action::BackTo { entry_id, fork } => {
                        back_to(&app, &mut ui, &entry_id, fork).await;
                    }
                    Action::Navigate { id, summary } => {
                        navigate(&app, &mut ui, &id, summary).await;
                    }
                    Action::Rewind {
                        entry_id,
                        mode,
                        overwrite,
                    } => {
                        rewind(&app, &mut ui, &entry_id, mode, overwrite);
                    }
                }
                dirty = true;
            }
            _ = frames.tick() => {
                dirty |= ui.refresh_completion();
                dirty |= ui.reload_theme();
                dirty |= ui.watch_mcp(&app);
                dirty |= ui.expire_dialogs() || ui.counting_down() || ui.close_finished_login();
                if dirty || ui.transcript.working || ui.transcript.bash_running() || ui.listing() {
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
    if ui.live_from.is_some() {
        // Everything left goes to the scrollback; the live region is cleared for the shell.
        flush_scrollback(&mut guard.terminal, &mut ui, true)?;
        guard.terminal.draw(|_| {})?;
        let area = guard.terminal.get_frame().area();
        guard.terminal.set_cursor_position((0, area.y))?;
    }
    drop(guard);
    if let Some(path) = &options.draft_path {
        save_draft(path, &ui.editor.expanded());
    }
    if ui.live_from.is_none() {
        print_transcript(&ui, width);
    }
    Ok(code)
}

/// Double Esc's choice: back to before an earlier prompt (in this session, or a fork of it),
/// with the prompt's text in the editor to edit and send again.
async fn back_to(app: &App, ui: &mut Ui, entry_id: &str, fork: bool) {
    if !fork {
        return navigate(app, ui, entry_id, None).await;
    }
    let text = app.fork(entry_id).map(Some);
    show_moved(app, ui, text);
}

/// `/tree`'s choice: continue from `entry_id`, with a summary of the branch left when
/// `summary` says so (`Some(focus)`: with that focus).
async fn navigate(app: &App, ui: &mut Ui, entry_id: &str, summary: Option<Option<String>>) {
    let options = pi_app::NavigateOptions {
        summarize: summary.is_some(),
        custom_instructions: summary.flatten(),
        ..Default::default()
    };
    let text = app
        .navigate_tree(entry_id, options)
        .await
        .map(|r| r.editor_text);
    show_moved(app, ui, text);
}

/// The session drawn again after a move, the editor holding the text it gave back.
fn show_moved(app: &App, ui: &mut Ui, text: Result<Option<String>, pi_app::AppError>) {
    match text {
        Ok(text) => {
            reload(app, ui);
            if let Some(text) = text {
                ui.editor.set(&text);
            }
        }
        Err(error) => ui.notice(error.to_string()),
    }
}

/// `/rewind`'s choice carried out: the session drawn again, the prompt's text in the editor
/// when the conversation went back, and a notice of what was put back.
fn rewind(app: &App, ui: &mut Ui, entry_id: &str, mode: pi_app::RewindMode, overwrite: bool) {
    match app.rewind(entry_id, mode, overwrite) {
        Ok(outcome) => {
            reload(app, ui);
            if let Some(text) = &outcome.editor_text {
                ui.editor.set(text);
            }
            ui.transcript
                .notice(rewound_text(&outcome), !outcome.failed.is_empty());
        }
        Err(error) => ui.notice(error.to_string()),
    }
}

fn rewound_text(outcome: &pi_app::RewindOutcome) -> String {
    use pi_ai::terminal_text::{Keep, terminal_safe};
    let path =
        |p: &std::path::Path| terminal_safe(&p.display().to_string(), Keep::Nothing).into_owned();
    let mut lines = Vec::new();
    if outcome.mode.restores_files() {
        lines.push(format!(
            "Rewound: {} file(s) put back.",
            outcome.restored.len()
        ));
    } else {
        lines.push("Rewound the conversation; the files are as they were.".to_owned());
    }
    for kept in &outcome.kept {
        lines.push(format!("  kept (changed outside pi): {}", path(kept)));
    }
    for failed in &outcome.failed {
        let error = terminal_safe(&failed.error, Keep::Nothing);
        lines.push(format!("  not put back: {}: {error}", path(&failed.path)));
    }
    if outcome.rewind_entry_id.is_some() {
        lines.push("/rewind lists this rewind: choose it to undo it.".to_owned());
    }
    lines.join("\n")
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
    let flushed = flush_scrollback(terminal, ui, false);
    let drawn = terminal
        .draw(|frame| view::draw(frame, &ui.screen()))
        .map(|_| ());
    let placed = drawn.and_then(|()| place_pictures(terminal, ui, &mut out));
    execute!(out, EndSynchronizedUpdate)?;
    ui.tick += 1;
    flushed.and(placed)
}

/// Places the pictures in view when they are not the ones already on screen.
fn place_pictures(
    terminal: &mut terminal::Term,
    ui: &mut Ui,
    out: &mut std::io::Stdout,
) -> std::io::Result<()> {
    if ui.images == ImageProtocol::None {
        return Ok(());
    }
    let visible = ui.lines.borrow().visible_pictures();
    if visible == ui.pictures {
        return Ok(());
    }
    // iTerm2 and sixel pictures are paint in the cells: moving one means repainting the screen.
    if ui.images != ImageProtocol::Kitty && !ui.pictures.is_empty() {
        terminal::repaint(terminal)?;
        terminal.draw(|frame| view::draw(frame, &ui.screen()))?;
    }
    images::place(out, ui.images, &visible)?;
    ui.pictures = visible;
    Ok(())
}

/// Regular layout: prints the items that will not change any more (all of them at `all`)
/// above the live region, into the terminal's scrollback.
fn flush_scrollback(terminal: &mut terminal::Term, ui: &mut Ui, all: bool) -> std::io::Result<()> {
    let Some(from) = ui.live_from else {
        return Ok(());
    };
    let to = if all {
        ui.transcript.items().len()
    } else {
        ui.transcript.settled()
    };
    if to <= from {
        return Ok(());
    }
    let width = terminal.size()?.width;
    let lines = view::scrollback_lines(&ui.screen(), width as usize, from, to);
    for chunk in lines.chunks(SCROLLBACK_CHUNK) {
        terminal.insert_before(chunk.len() as u16, |buf| {
            Paragraph::new(chunk.to_vec()).render(buf.area, buf);
        })?;
    }
    ui.live_from = Some(to);
    Ok(())
}

fn spawn_prompt(app: &Arc<App>, text: String, errors: mpsc::UnboundedSender<String>) {
    let app = Arc::clone(app);
    tokio::spawn(async move {
        if let Err(error) = app.prompt(text, Vec::new()).await {
            let _ = errors.send(error.to_string());
        }
    });
}

/// Draws the session again from its messages (after it was replaced or rewound).
fn reload(app: &App, ui: &mut Ui) {
    ui.transcript = Transcript::from_messages(&app.messages());
    if ui.expanded {
        ui.transcript.load_children();
    }
    *ui.lines.borrow_mut() = LineCache::default();
    ui.scroll = 0;
    // The regular layout's scrollback already shows the history kept.
    if ui.live_from.is_some() {
        ui.live_from = Some(ui.transcript.items().len());
    }
}

fn spawn_bash(
    app: &Arc<App>,
    command: String,
    exclude: bool,
    done: mpsc::UnboundedSender<Result<pi_app::BashOutcome, String>>,
) {
    let app = Arc::clone(app);
    tokio::spawn(async move {
        let outcome = app
            .bash(command, exclude, None)
            .await
            .map_err(|e| e.to_string());
        let _ = done.send(outcome);
    });
}

/// `/mcp login`: the URL and the outcome arrive as notices.
fn spawn_mcp_login(app: &Arc<App>, server: Option<String>) {
    let app = Arc::clone(app);
    tokio::spawn(async move {
        let (text, level) = app.mcp_login(server.as_deref(), true).await;
        app.notify(&text, level);
    });
}

/// `/login`'s subscription sign-in, in the background: the URL or code, then the outcome, come
/// as notices.
fn spawn_sign_in(app: &Arc<App>, provider: String, pasted: Option<pi_app::app::Pasted>) {
    let app = Arc::clone(app);
    tokio::spawn(async move {
        let (text, level) = app.login_subscription(&provider, true, pasted).await;
        app.notify(&text, level);
    });
}

fn spawn_compact(app: &Arc<App>, focus: Option<String>, errors: mpsc::UnboundedSender<String>) {
    let app = Arc::clone(app);
    tokio::spawn(async move {
        if let Err(error) = app.compact(focus.as_deref()).await {
            let _ = errors.send(error.to_string());
        }
    });
}

/// The conversation on the normal screen, so it stays in the scrollback after exit.
fn print_transcript(ui: &Ui, width: usize) {
    let lines = view::plain_transcript(&ui.screen(), width);
    let mut out = std::io::stdout().lock();
    for line in lines {
        // The lines are drawn from cleaned text already; this is the last edge before the
        // terminal, so it is checked here too.
        let line = pi_ai::terminal_text::terminal_safe(
            line.trim_end(),
            pi_ai::terminal_text::Keep::Nothing,
        );
        let _ = writeln!(out, "{line}");
    }
    let _ = out.flush();
}
