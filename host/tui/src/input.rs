//! The UI's state besides the transcript, and what each key does with it. Keys go through the
//! user's keymap (pi's defaults and `keybindings.json`); the open transcript search, a
//! pending Ctrl+] jump and the completion list see a key first. While the agent works,
//! Enter steers and Alt+Enter queues a follow-up; Esc interrupts; a second Esc on an empty
//! editor runs `doubleEscapeAction` (rewind to an earlier prompt, or fork from it).

use crate::TuiOptions;
use crate::color::ColorLevel;
use crate::complete::{Candidate, Completer, Popup};
use crate::editor::Editor;
use crate::keys::{Binding, Keymap};
use crate::picker::Picker;
use crate::search::{Search, jump_to_prompt};
use crate::transcript::{Item, Transcript};
use crate::view::{Footer, LineCache, Screen};
use pi_app::App;
use ratatui::crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEventKind,
};
use std::cell::RefCell;
use std::time::{Duration, Instant};
use tree::TreeFilter;

pub use extensions::Attention;

mod dispatch;
mod extensions;
mod mcp;
mod mode;
mod rewind;
mod scoped;
mod selectors;
mod settings;
#[cfg(test)]
mod tests;
mod tree;

/// Two Ctrl+C within this long exit; two Esc within it run `doubleEscapeAction`.
const DOUBLE_PRESS: Duration = Duration::from_secs(2);
const DOUBLE_ESCAPE: Duration = Duration::from_millis(800);
/// Lines one notch of the mouse wheel moves.
const WHEEL: usize = 3;
/// How often the footer looks at the git branch again.
const BRANCH_REFRESH: Duration = Duration::from_secs(2);

/// What a key asks the loop to do.
#[derive(Debug, PartialEq)]
pub enum Action {
    None,
    Exit,
    /// Send this as a new prompt.
    Prompt(String),
    /// Ctrl+Z: stop the process until the shell resumes it.
    Suspend,
    /// Ctrl+G: edit the prompt in the external editor.
    ExternalEditor,
    /// `/compact [instructions]`.
    Compact(Option<String>),
    /// Double Esc: continue from before user message `entry_id` (`fork`: in a new session).
    BackTo {
        entry_id: String,
        fork: bool,
    },
    /// `/rewind`'s choice: put the files and/or the conversation back as they were before
    /// `entry_id` (`overwrite`: also files changed outside pi since).
    Rewind {
        entry_id: String,
        mode: pi_app::RewindMode,
        overwrite: bool,
    },
    /// The session was replaced: draw it again, then say this.
    Reload(String),
    /// `!cmd` / `!!cmd`.
    Bash {
        command: String,
        exclude: bool,
    },
    /// The session picker's choice: continue that session.
    SwitchSession(std::path::PathBuf),
    /// The tree navigator's choice: continue from entry `id`, summarising the branch left
    /// when `summary` says so (with its focus, when it has one).
    Navigate {
        id: String,
        summary: Option<Option<String>>,
    },
    /// `/mcp login [server]`: sign in through the browser.
    McpLogin(Option<String>),
    /// `/login`'s subscription sign-in to a provider (browser or device code).
    SignIn(String),
}

/// What the list above the editor is for.
#[derive(Debug, Clone, Copy, PartialEq)]
enum PopupKind {
    Completion,
    /// Choosing the prompt to rewind to (`true`: fork).
    BackTo(bool),
}

pub struct Ui {
    pub transcript: Transcript,
    pub editor: Editor,
    pub footer: Footer,
    pub scroll: usize,
    pub expanded: bool,
    pub show_thinking: bool,
    pub colors: ColorLevel,
    pub tick: usize,
    /// The transcript's drawn lines, kept between frames.
    pub lines: RefCell<LineCache>,
    /// Regular layout: the first item not yet printed to the scrollback.
    pub live_from: Option<usize>,
    pub keymap: Keymap,
    pub external_editor: Option<String>,
    /// How the terminal draws pictures, and the ones on screen now.
    pub images: crate::images::ImageProtocol,
    pub pictures: Vec<crate::images::Placed>,
    /// The colours, the file they came from and when it last changed (it is watched).
    pub theme: crate::theme::Theme,
    theme_file: Option<(std::path::PathBuf, Option<std::time::SystemTime>)>,
    theme_checked: Option<Instant>,
    search: Option<Search>,
    picker: Option<Picker>,
    /// An API key being typed for a provider (never shown, never in the editor's history).
    prompt: Option<selectors::TextPrompt>,
    /// Where this directory's sessions are (the session picker lists them).
    sessions_dir: Option<std::path::PathBuf>,
    /// The session picker lists every directory's sessions; by name (else newest first);
    /// only the named ones.
    all_sessions: bool,
    sessions_by_name: bool,
    named_only: bool,
    /// Tree entries folded in the navigator, and its filter.
    tree_folds: std::collections::HashSet<String>,
    /// Shift+T in the tree: labels show when they were set.
    tree_label_times: bool,
    /// The tree entry "Summarize branch?" is asked for.
    tree_target: Option<String>,
    /// Where a pasted sign-in redirect goes (a `/login` subscription sign-in running).
    login_paste: Option<tokio::sync::mpsc::UnboundedSender<String>>,
    tree_filter: TreeFilter,
    popup: Option<(Popup, PopupKind)>,
    popup_rows: Vec<(String, String)>,
    /// `/mcp`'s menus and the changed definitions already asked about.
    mcp: mcp::McpUi,
    /// `/rewind`'s choices so far.
    rewind: rewind::RewindUi,
    completer: Completer,
    max_completions: usize,
    /// Ctrl+] (forward) or Ctrl+Alt+] was pressed: the next character is the jump target.
    pending_jump: Option<bool>,
    pub double_escape_action: String,
    renderers: Vec<std::sync::Arc<dyn pi_ext_api::MessageRenderer>>,
    hint: Option<String>,
    ctrl_c_at: Option<Instant>,
    esc_at: Option<Instant>,
    branch_at: Option<Instant>,
    /// What `/reload` reads again: keybindings.json, and where the theme came from.
    keybindings_path: Option<std::path::PathBuf>,
    theme_spec: (String, Vec<std::path::PathBuf>, Vec<std::path::PathBuf>),
    /// The themes of the extension packages; `None` with `--no-themes`.
    package_themes: Option<pi_app::extensions::PackageThemes>,
    cwd: std::path::PathBuf,
    agent_dir: std::path::PathBuf,
    /// Extensions' dialogs waiting for an answer.
    dialogs: crate::dialog::Dialogs,
    /// Extensions' footer statuses by key (`setStatus`), cleaned.
    statuses: std::collections::BTreeMap<String, String>,
    /// Whether the terminal has the focus (as far as its focus reports say).
    pub focused: bool,
}

impl Ui {
    pub fn new(app: &App, options: &TuiOptions, keymap: Keymap) -> Self {
        let mut transcript = Transcript::from_messages(&app.messages());
        let header: Vec<Item> = options
            .header
            .iter()
            .map(|line| Item::Notice {
                text: line.clone(),
                error: false,
            })
            .collect();
        transcript.prepend(header);
        let commands = dispatch::commands_of(app);
        let mut ui = Ui {
            transcript,
            editor: Editor::default(),
            footer: Footer::default(),
            scroll: 0,
            expanded: false,
            show_thinking: options.show_thinking,
            colors: options.colors,
            tick: 0,
            lines: RefCell::new(LineCache::default()),
            live_from: (!options.fullscreen).then_some(0),
            keymap,
            external_editor: options.external_editor.clone(),
            images: options.images,
            pictures: Vec::new(),
            theme: crate::theme::Theme::dark(),
            theme_file: None,
            theme_checked: None,
            search: None,
            picker: None,
            prompt: None,
            sessions_dir: options.sessions_dir.clone(),
            all_sessions: false,
            sessions_by_name: false,
            named_only: false,
            tree_folds: std::collections::HashSet::new(),
            tree_label_times: false,
            tree_target: None,
            login_paste: None,
            tree_filter: TreeFilter::Default,
            popup: None,
            popup_rows: Vec::new(),
            mcp: mcp::McpUi::default(),
            rewind: rewind::RewindUi::default(),
            completer: Completer::new(&options.cwd, commands, options.max_completions),
            max_completions: options.max_completions,
            pending_jump: None,
            double_escape_action: options.double_escape_action.clone(),
            renderers: app.renderers(),
            hint: None,
            ctrl_c_at: None,
            esc_at: None,
            branch_at: None,
            keybindings_path: options.keybindings.clone(),
            theme_spec: (
                options.theme.clone(),
                options.theme_dirs.clone(),
                options.theme_files.clone(),
            ),
            package_themes: options.package_themes.then(|| app.package_themes()),
            cwd: options.cwd.clone(),
            agent_dir: options.agent_dir.clone(),
            dialogs: crate::dialog::Dialogs::default(),
            statuses: std::collections::BTreeMap::new(),
            focused: true,
        };
        ui.load_theme();
        ui.refresh_footer(app);
        ui
    }

    /// What the frame is drawn from.
    pub fn screen(&self) -> Screen<'_> {
        let prompt = self.prompt.as_ref().map(selectors::TextPrompt::line);
        let selector = crate::view::SELECTOR_ROWS;
        let (popup_selected, popup_height, hint) = match (&self.popup, &self.search, &self.picker) {
            _ if prompt.is_some() => (0, selector, prompt),
            (_, _, Some(picker)) => {
                let (_, selected, header) = picker.view();
                (selected, selector, Some(header))
            }
            (_, Some(search), None) => (0, selector, Some(search.status())),
            (Some((popup, kind)), None, None) => {
                let height = match kind {
                    PopupKind::Completion => self.max_completions,
                    _ => selector,
                };
                (popup.selected, height, self.hint.clone())
            }
            (None, None, None) => (0, selector, self.hint.clone()),
        };
        Screen {
            transcript: &self.transcript,
            editor: &self.editor,
            footer: &self.footer,
            scroll: self.scroll,
            expanded: self.expanded,
            show_thinking: self.show_thinking,
            hint,
            colors: self.colors,
            tick: self.tick,
            lines: &self.lines,
            search: self.search.as_ref().map(|s| s.query.as_str()),
            live_from: self.live_from,
            popup: &self.popup_rows,
            popup_selected,
            popup_height,
            renderers: &self.renderers,
            images: self.images,
            theme: &self.theme,
            dialog: self.dialog_view(),
            statuses: self.statuses.values().cloned().collect(),
        }
    }

    /// Reports an error, unless the notice just before already says it (a failed compaction
    /// is told by its event and by the command's result).
    pub fn notice(&mut self, text: String) {
        if let Some(Item::Notice {
            text: last,
            error: true,
        }) = self.transcript.items().last()
            && last.ends_with(&text)
        {
            return;
        }
        self.transcript.notice(text, true);
    }

    /// Model, thinking level, session name and git branch as they are now.
    pub fn refresh_footer(&mut self, app: &App) {
        let model = app.model();
        let (cwd, name) = app.with_session(|s| (s.cwd().to_owned(), s.session_name()));
        let branch = match self.branch_at {
            Some(at) if at.elapsed() < BRANCH_REFRESH => self.footer.branch.clone(),
            _ => {
                self.branch_at = Some(Instant::now());
                crate::git::branch(&self.cwd)
            }
        };
        self.footer = Footer {
            cwd: pi_session::paths::tilde(std::path::Path::new(&cwd)),
            branch,
            session_name: name,
            model: format!("{}/{}", model.provider, model.id),
            thinking: app.thinking_level().as_str().to_owned(),
            context_window: model.context_window,
            permission_mode: app.permission_mode(),
        };
    }

    /// Applies one terminal event.
    pub fn handle(&mut self, event: &Event, app: &App) -> Action {
        match event {
            Event::Paste(text) if self.dialogs.is_open() => {
                if let Some(dialog) = self.dialogs.current_mut() {
                    dialog.paste(text);
                }
                Action::None
            }
            Event::FocusGained | Event::FocusLost => {
                self.focused = matches!(event, Event::FocusGained);
                Action::None
            }
            Event::Paste(text) => {
                // A key is usually pasted: it goes to the open prompt, never to the editor.
                match &mut self.prompt {
                    Some(prompt) => prompt.text.push_str(text.trim()),
                    None => self.editor.paste(text),
                }
                Action::None
            }
            Event::Key(key) if key.kind != KeyEventKind::Release => self.key(key, app),
            Event::Mouse(mouse) => {
                match mouse.kind {
                    MouseEventKind::ScrollUp => self.scroll_by(WHEEL as isize),
                    MouseEventKind::ScrollDown => self.scroll_by(-(WHEEL as isize)),
                    _ => {}
                }
                Action::None
            }
            _ => Action::None,
        }
    }

    fn key(&mut self, key: &KeyEvent, app: &App) -> Action {
        if !self.keymap.is(key, Binding::Clear) {
            self.hint = None;
        }
        if self.dialogs.is_open() {
            self.dialog_key(key, app);
            return Action::None;
        }
        if self.prompt.is_some() {
            return self.prompt_key(key, app);
        }
        if self.picker.is_some() {
            return self.picker_key(key, app);
        }
        if self.search.is_some() && self.search_key(key) {
            return Action::None;
        }
        if let Some(forward) = self.pending_jump.take()
            && let KeyCode::Char(target) = key.code
        {
            self.editor.jump_to(target, forward);
            return Action::None;
        }
        if self.popup.is_some()
            && let Some(action) = self.popup_key(key)
        {
            return action;
        }
        let before = self.editor.text().to_owned();
        let action = self.binding(key, app);
        let choosing =
            self.picker.is_some() || matches!(self.popup, Some((_, PopupKind::BackTo(_))));
        if self.editor.text() != before && !choosing {
            self.offer_completion();
        }
        action
    }

    /// The first binding of `key` that applies now, or typing.
    fn binding(&mut self, key: &KeyEvent, app: &App) -> Action {
        let bindings = self.keymap.lookup(key).to_vec();
        for binding in bindings {
            if let Some(action) = self.run(binding, app) {
                return action;
            }
        }
        let plain = !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        if let (KeyCode::Char(c), true) = (key.code, plain) {
            self.editor.insert(c.encode_utf8(&mut [0; 4]));
        }
        Action::None
    }

    /// Runs `binding`; `None` when it does not apply now (the next binding of the key gets it).
    fn run(&mut self, binding: Binding, app: &App) -> Option<Action> {
        let e = &mut self.editor;
        match binding {
            Binding::Interrupt => return Some(self.interrupt(app)),
            Binding::Clear => return Some(self.ctrl_c()),
            Binding::Exit if e.is_empty() => return Some(Action::Exit),
            Binding::Exit => return None,
            Binding::Suspend => return Some(Action::Suspend),
            Binding::ExternalEditor => return Some(Action::ExternalEditor),
            Binding::Submit => return Some(self.submit(app, false)),
            Binding::FollowUp => return Some(self.submit(app, true)),
            Binding::Tab => self.tab(),
            Binding::CycleModelForward => self.cycle_model(app, false),
            Binding::CycleModelBackward => self.cycle_model(app, true),
            Binding::CycleThinking => {
                if let Err(error) = app.cycle_thinking_level() {
                    self.notice(error.to_string());
                }
            }
            Binding::CyclePermissionMode => self.cycle_mode(app),
            Binding::ToggleThinking => self.show_thinking = !self.show_thinking,
            Binding::ExpandTools => {
                self.expanded = !self.expanded;
                if self.expanded {
                    self.transcript.load_children();
                }
            }
            Binding::CopyMessage => self.copy_last_answer(app),
            Binding::Dequeue => self.take_back_queue(app),
            Binding::CursorUp => e.vertical(true),
            Binding::CursorDown => e.vertical(false),
            Binding::CursorLeft => e.left(),
            Binding::CursorRight => e.right(),
            Binding::CursorWordLeft => e.word_left(),
            Binding::CursorWordRight => e.word_right(),
            Binding::CursorLineStart => e.home(),
            Binding::CursorLineEnd => e.end(),
            Binding::JumpForward => self.pending_jump = Some(true),
            Binding::JumpBackward => self.pending_jump = Some(false),
            Binding::DeleteCharBackward => e.backspace(),
            Binding::DeleteCharForward => e.delete(),
            Binding::DeleteWordBackward => e.delete_word_back(),
            Binding::DeleteWordForward => e.delete_word_forward(),
            Binding::DeleteToLineStart => e.delete_to_line_start(),
            Binding::DeleteToLineEnd => e.delete_to_line_end(),
            Binding::Yank => e.yank(),
            Binding::YankPop => e.yank_pop(),
            Binding::Undo => e.undo(),
            Binding::NewLine => e.insert("\n"),
            // Moving around the transcript is the fullscreen layout's; in the regular one the
            // terminal scrolls its own scrollback.
            _ if self.live_from.is_some() => return None,
            Binding::PageUp => self.scroll_by(self.page() as isize),
            Binding::PageDown => self.scroll_by(-(self.page() as isize)),
            Binding::HalfPageUp => self.scroll_by((self.page() / 2) as isize),
            Binding::HalfPageDown => self.scroll_by(-((self.page() / 2) as isize)),
            Binding::Top => self.scroll = usize::MAX,
            Binding::Bottom => self.scroll = 0,
            Binding::PreviousPrompt | Binding::NextPrompt => {
                let back = binding == Binding::PreviousPrompt;
                let lines = self.lines.borrow();
                if let Some(scroll) = jump_to_prompt(&self.transcript, &lines, self.scroll, back) {
                    drop(lines);
                    self.scroll = scroll;
                }
            }
            Binding::Search => self.search = Some(Search::default()),
            Binding::SelectModel => self.open_model_picker(app),
            // The selectors' own keys: nothing outside a selector.
            Binding::SelectUp
            | Binding::SelectDown
            | Binding::SelectPageUp
            | Binding::SelectPageDown
            | Binding::SelectConfirm
            | Binding::SelectCancel
            | Binding::ModelsSave
            | Binding::ModelsEnableAll
            | Binding::ModelsClearAll
            | Binding::ModelsToggleProvider
            | Binding::ModelsReorderUp
            | Binding::ModelsReorderDown
            | Binding::SessionTogglePath
            | Binding::SessionToggleSort
            | Binding::SessionToggleNamedFilter
            | Binding::SessionRename
            | Binding::SessionDelete
            | Binding::SessionDeleteNoninvasive
            | Binding::TreeFoldOrUp
            | Binding::TreeUnfoldOrDown
            | Binding::TreeEditLabel
            | Binding::TreeToggleLabelTimestamp
            | Binding::TreeFilterDefault
            | Binding::TreeFilterNoTools
            | Binding::TreeFilterUserOnly
            | Binding::TreeFilterLabeledOnly
            | Binding::TreeFilterAll
            | Binding::TreeFilterCycleForward
            | Binding::TreeFilterCycleBackward => return None,
        }
        self.clamp_scroll();
        Some(Action::None)
    }

    fn page(&self) -> usize {
        self.lines.borrow().height.saturating_sub(2).max(1)
    }

    fn scroll_by(&mut self, lines: isize) {
        self.scroll = self.scroll.saturating_add_signed(lines);
        self.clamp_scroll();
    }

    fn clamp_scroll(&mut self) {
        let lines = self.lines.borrow();
        let max = lines.total().saturating_sub(lines.height);
        drop(lines);
        self.scroll = self.scroll.min(max);
    }

    /// A key while the search is open; `false` when the key closes it and is handled as usual.
    fn search_key(&mut self, key: &KeyEvent) -> bool {
        let Some(search) = &mut self.search else {
            return false;
        };
        let lines = self.lines.borrow();
        let scroll = match key.code {
            KeyCode::Esc => {
                drop(lines);
                self.search = None;
                return true;
            }
            KeyCode::Enter => search.step(&lines, key.modifiers.contains(KeyModifiers::SHIFT)),
            KeyCode::Backspace => {
                search.query.pop();
                search.refresh(&lines)
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                search.query.push(c);
                search.refresh(&lines)
            }
            _ => {
                drop(lines);
                self.search = None;
                return false;
            }
        };
        drop(lines);
        if let Some(scroll) = scroll {
            self.scroll = scroll;
        }
        true
    }

    /// A key while the list above the editor is open; `None` when the key is not the list's.
    fn popup_key(&mut self, key: &KeyEvent) -> Option<Action> {
        let (popup, kind) = self.popup.as_mut()?;
        let kind = *kind;
        match key.code {
            KeyCode::Up => popup.step(true),
            KeyCode::Down => popup.step(false),
            KeyCode::Esc => self.close_popup(),
            // Enter on a command already typed out sends it rather than completing it again.
            KeyCode::Enter
                if kind == PopupKind::Completion
                    && popup.chosen().is_some_and(|c| {
                        let typed = self.editor.line_before_cursor();
                        typed.ends_with(c.replacement.trim_end())
                    }) =>
            {
                self.close_popup();
                return None;
            }
            KeyCode::Tab | KeyCode::Enter => {
                let chosen = popup.chosen().cloned();
                let replaces = popup.replaces;
                self.close_popup();
                let chosen = chosen?;
                return Some(match kind {
                    PopupKind::Completion => {
                        self.accept(&chosen, replaces);
                        Action::None
                    }
                    PopupKind::BackTo(fork) => {
                        self.hint = None;
                        Action::BackTo {
                            entry_id: chosen.replacement,
                            fork,
                        }
                    }
                });
            }
            _ => {
                self.close_popup();
                return None;
            }
        }
        Some(Action::None)
    }

    fn open_popup(&mut self, popup: Popup, kind: PopupKind) {
        self.popup_rows = popup.rows();
        self.popup = Some((popup, kind));
    }

    fn close_popup(&mut self) {
        self.popup = None;
        self.popup_rows.clear();
    }

    fn accept(&mut self, chosen: &Candidate, replaces: usize) {
        self.editor
            .replace_before_cursor(replaces, &chosen.replacement);
        // A directory or a shared prefix goes on completing.
        if chosen.replacement.ends_with('/') || chosen.label.ends_with('…') {
            self.tab();
        }
    }

    pub fn listing(&self) -> bool {
        self.completer.listing()
    }

    /// While the project's files are still being listed, the `@` offer is made again (each
    /// frame), so a query typed before the list was complete still finds its file. Returns
    /// whether it did: the frame must then be drawn, even though the listing may have just
    /// finished (which is what happens last, and must not be left undrawn).
    pub fn refresh_completion(&mut self) -> bool {
        let offering = matches!(self.popup, None | Some((_, PopupKind::Completion)));
        if offering && self.completer.listing() {
            self.offer_completion();
            return true;
        }
        false
    }

    /// Offers completions for what was just typed (`/` commands, `@` files).
    fn offer_completion(&mut self) {
        let line = self.editor.line_before_cursor().to_owned();
        let first_line = !self.editor.text()[..self.editor.cursor()].contains('\n');
        match self.completer.offer(&line, first_line) {
            Some(popup) => self.open_popup(popup, PopupKind::Completion),
            None => self.close_popup(),
        }
    }

    /// Tab: completes the path before the cursor; one match is taken at once.
    fn tab(&mut self) {
        let line = self.editor.line_before_cursor().to_owned();
        let Some(popup) = self.completer.paths(&line) else {
            return;
        };
        match popup.candidates.as_slice() {
            [only] => {
                let only = only.clone();
                self.editor
                    .replace_before_cursor(popup.replaces, &only.replacement);
            }
            [shared, ..] if shared.label.ends_with('…') => {
                let shared = shared.clone();
                self.editor
                    .replace_before_cursor(popup.replaces, &shared.replacement);
                let line = self.editor.line_before_cursor().to_owned();
                if let Some(rest) = self.completer.paths(&line) {
                    self.open_popup(rest, PopupKind::Completion);
                }
            }
            _ => self.open_popup(popup, PopupKind::Completion),
        }
    }

    /// Esc: interrupts the agent (giving the queued messages back to the editor); a second Esc
    /// on an empty, idle editor runs `doubleEscapeAction`.
    fn interrupt(&mut self, app: &App) -> Action {
        if self.transcript.bash_running() {
            app.abort_bash();
            return Action::None;
        }
        if self.transcript.working {
            self.take_back_queue(app);
            app.abort();
            self.close_dialogs();
            return Action::None;
        }
        if !self.editor.is_empty() {
            return Action::None;
        }
        if self
            .esc_at
            .take()
            .is_some_and(|at| at.elapsed() < DOUBLE_ESCAPE)
        {
            let (fork, rewind) = match self.double_escape_action.as_str() {
                "fork" => (true, false),
                "tree" => (false, false),
                "rewind" => (false, true),
                _ => return Action::None,
            };
            match rewind {
                true => self.open_rewind(app),
                false => self.open_back_to(app, fork),
            }
        } else if self.double_escape_action != "none" {
            self.esc_at = Some(Instant::now());
            let what = match self.double_escape_action.as_str() {
                "fork" => "fork from an earlier prompt",
                "rewind" => "rewind the files and the conversation",
                _ => "go back to an earlier prompt",
            };
            self.hint = Some(format!("Esc again to {what}"));
        }
        Action::None
    }

    /// The list of earlier prompts to go back to (or fork from), newest first.
    fn open_back_to(&mut self, app: &App, fork: bool) {
        let candidates: Vec<Candidate> = app
            .fork_messages()
            .into_iter()
            .rev()
            .map(|(id, text)| Candidate {
                label: text.lines().next().unwrap_or("").chars().take(80).collect(),
                detail: String::new(),
                replacement: id,
            })
            .collect();
        if candidates.is_empty() {
            self.hint = Some("No earlier prompt to go back to".to_owned());
            return;
        }
        let verb = if fork { "Fork from" } else { "Go back to" };
        self.hint = Some(format!("{verb} which prompt? (Enter, Esc to cancel)"));
        let popup = Popup {
            candidates,
            selected: 0,
            replaces: 0,
        };
        self.open_popup(popup, PopupKind::BackTo(fork));
    }

    fn cycle_model(&mut self, app: &App, back: bool) {
        match app.cycle_model_by(back) {
            Ok(Some((model, _))) => {
                self.hint = Some(format!("Model: {}/{}", model.provider, model.id))
            }
            Ok(None) => self.hint = Some("Only one model is available".to_owned()),
            Err(error) => self.notice(error.to_string()),
        }
    }

    /// Ctrl+X: the last answer to the clipboard, through the terminal (OSC 52), which works
    /// over ssh and inside tmux.
    fn copy_last_answer(&mut self, app: &App) {
        let Some(answer) = app.last_assistant() else {
            self.hint = Some("Nothing to copy yet".to_owned());
            return;
        };
        let text = Transcript::answer_text(&answer);
        crate::terminal::copy_to_clipboard(&text);
        self.hint = Some("Copied the last answer".to_owned());
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
    /// follow-up), except an extension's command, which runs at once.
    fn submit(&mut self, app: &App, follow_up: bool) -> Action {
        let text = self.editor.take().trim().to_owned();
        if text.is_empty() {
            return Action::None;
        }
        self.scroll = 0;
        if let Some(action) = self.command(&text, app) {
            return action;
        }
        // An extension's command runs at once, even while the agent works (as in pi): the
        // prompt path runs it without starting a run.
        if (!self.transcript.working && !app.is_streaming()) || app.is_extension_command(&text) {
            return Action::Prompt(text);
        }
        match app.expand_input(&text) {
            Ok(text) if follow_up => {
                app.follow_up(text);
            }
            Ok(text) => {
                app.steer(text);
            }
            Err(error) => self.notice(error.to_string()),
        }
        Action::None
    }
}
