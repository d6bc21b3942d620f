//! The UI's state besides the transcript, and what each key does with it (pi's default
//! keybindings): Enter sends (or steers while the agent works), Alt+Enter queues a follow-up,
//! Shift+Enter or Ctrl+J breaks the line, Esc interrupts, Ctrl+C clears the editor and exits
//! when pressed twice, Ctrl+D exits on an empty editor, Ctrl+O expands tool output, Ctrl+T
//! shows thinking, Ctrl+Z suspends, Alt+Up takes the queued messages back into the editor, PageUp/PageDown
//! scroll the transcript.

use crate::TuiOptions;
use crate::editor::Editor;
use crate::transcript::{Item, Transcript};
use crate::view::{Footer, Screen};
use pi_app::App;
use ratatui::crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEventKind,
};
use std::time::{Duration, Instant};

/// Two Ctrl+C within this long exit.
const DOUBLE_PRESS: Duration = Duration::from_secs(2);
/// Lines PageUp/PageDown move.
const PAGE: usize = 10;
/// Lines one notch of the mouse wheel moves.
const WHEEL: usize = 3;

/// What a key asks the loop to do.
#[derive(Debug, PartialEq)]
pub enum Action {
    None,
    Exit,
    /// Send this as a new prompt.
    Prompt(String),
    /// Ctrl+Z: stop the process until the shell resumes it.
    Suspend,
}

pub struct Ui {
    pub transcript: Transcript,
    pub editor: Editor,
    pub footer: Footer,
    pub scroll: usize,
    pub expanded: bool,
    pub show_thinking: bool,
    pub no_color: bool,
    pub tick: usize,
    hint: Option<String>,
    ctrl_c_at: Option<Instant>,
}

impl Ui {
    pub fn new(app: &App, options: &TuiOptions) -> Self {
        let mut transcript = Transcript::from_messages(&app.messages());
        let header: Vec<Item> = options
            .header
            .iter()
            .map(|line| Item::Notice {
                text: line.clone(),
                error: false,
            })
            .collect();
        transcript.items.splice(0..0, header);
        let mut ui = Ui {
            transcript,
            editor: Editor::default(),
            footer: Footer::default(),
            scroll: 0,
            expanded: false,
            show_thinking: options.show_thinking,
            no_color: options.no_color,
            tick: 0,
            hint: None,
            ctrl_c_at: None,
        };
        ui.refresh_footer(app);
        ui
    }

    /// What the frame is drawn from.
    pub fn screen(&self) -> Screen<'_> {
        Screen {
            transcript: &self.transcript,
            editor: &self.editor,
            footer: &self.footer,
            scroll: self.scroll,
            expanded: self.expanded,
            show_thinking: self.show_thinking,
            hint: self.hint.as_deref(),
            no_color: self.no_color,
            tick: self.tick,
        }
    }

    pub fn notice(&mut self, text: String) {
        self.transcript
            .items
            .push(Item::Notice { text, error: true });
    }

    /// Model, thinking level and session name as they are now.
    pub fn refresh_footer(&mut self, app: &App) {
        let model = app.model();
        let (cwd, name) = app.with_session(|s| (s.cwd().to_owned(), s.session_name()));
        self.footer = Footer {
            cwd: shorten_home(&cwd),
            session_name: name,
            model: format!("{}/{}", model.provider, model.id),
            thinking: app.thinking_level().as_str().to_owned(),
            context_window: model.context_window,
        };
    }

    /// Applies one terminal event.
    pub fn handle(&mut self, event: &Event, app: &App) -> Action {
        match event {
            Event::Paste(text) => {
                self.editor.insert(text);
                Action::None
            }
            Event::Key(key) if key.kind != KeyEventKind::Release => self.key(key, app),
            Event::Mouse(mouse) => {
                match mouse.kind {
                    MouseEventKind::ScrollUp => self.scroll += WHEEL,
                    MouseEventKind::ScrollDown => self.scroll = self.scroll.saturating_sub(WHEEL),
                    _ => {}
                }
                Action::None
            }
            _ => Action::None,
        }
    }

    fn key(&mut self, key: &KeyEvent, app: &App) -> Action {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        if !(ctrl && key.code == KeyCode::Char('c')) {
            self.hint = None;
        }
        match key.code {
            KeyCode::Char('c') if ctrl => return self.ctrl_c(),
            KeyCode::Char('d') if ctrl && self.editor.is_empty() => return Action::Exit,
            KeyCode::Char('z') if ctrl => return Action::Suspend,
            KeyCode::Char('o') if ctrl => self.expanded = !self.expanded,
            KeyCode::Char('t') if ctrl => self.show_thinking = !self.show_thinking,
            KeyCode::Char('j') if ctrl => self.editor.insert("\n"),
            KeyCode::Char('w') if ctrl => self.editor.delete_word_back(),
            KeyCode::Char('a') if ctrl => self.editor.home(),
            KeyCode::Char('e') if ctrl => self.editor.end(),
            KeyCode::Enter if shift => self.editor.insert("\n"),
            KeyCode::Enter => return self.submit(app, alt),
            // Esc interrupts and gives the queued messages back to the editor.
            KeyCode::Esc if self.transcript.working => {
                self.take_back_queue(app);
                app.abort();
            }
            KeyCode::Up if alt => self.take_back_queue(app),
            KeyCode::Char(c) if !ctrl => self.editor.insert(c.encode_utf8(&mut [0; 4])),
            KeyCode::Backspace => self.editor.backspace(),
            KeyCode::Delete => self.editor.delete(),
            KeyCode::Left => self.editor.left(),
            KeyCode::Right => self.editor.right(),
            KeyCode::Home => self.editor.home(),
            KeyCode::End => self.editor.end(),
            KeyCode::Up => self.editor.vertical(true),
            KeyCode::Down => self.editor.vertical(false),
            KeyCode::PageUp => self.scroll += PAGE,
            KeyCode::PageDown => self.scroll = self.scroll.saturating_sub(PAGE),
            _ => {}
        }
        Action::None
    }

    /// Moves the queued messages back into the editor, before what it holds.
    fn take_back_queue(&mut self, app: &App) {
        let (steering, follow_up) = app.clear_queue();
        let mut texts: Vec<String> = steering.into_iter().chain(follow_up).collect();
        if texts.is_empty() {
            return;
        }
        if !self.editor.is_empty() {
            texts.push(self.editor.text().to_owned());
        }
        self.editor.set(&texts.join("\n\n"));
    }

    fn ctrl_c(&mut self) -> Action {
        if !self.editor.is_empty() {
            self.editor.clear();
            return Action::None;
        }
        if self.ctrl_c_at.is_some_and(|at| at.elapsed() < DOUBLE_PRESS) {
            return Action::Exit;
        }
        self.ctrl_c_at = Some(Instant::now());
        self.hint = Some("Press Ctrl+C again to exit".to_owned());
        Action::None
    }

    /// Enter: a prompt when idle; while the agent works, a steering message (Alt+Enter: a
    /// follow-up).
    fn submit(&mut self, app: &App, follow_up: bool) -> Action {
        let text = self.editor.text().trim().to_owned();
        if text.is_empty() {
            return Action::None;
        }
        self.editor.take();
        self.scroll = 0;
        if text == "/quit" || text == "/exit" {
            return Action::Exit;
        }
        if !self.transcript.working && !app.is_streaming() {
            return Action::Prompt(text);
        }
        match app.expand_input(&text) {
            Ok(text) if follow_up => app.follow_up(text),
            Ok(text) => app.steer(text),
            Err(error) => self.notice(error.to_string()),
        }
        Action::None
    }
}

/// `/home/me/src/x` → `~/src/x` when `$HOME` is `/home/me`.
fn shorten_home(cwd: &str) -> String {
    match pi_session::paths::home_dir() {
        Some(home) => match std::path::Path::new(cwd).strip_prefix(&home) {
            Ok(rest) if rest.as_os_str().is_empty() => "~".to_owned(),
            Ok(rest) => format!("~/{}", rest.display()),
            Err(_) => cwd.to_owned(),
        },
        None => cwd.to_owned(),
    }
}
