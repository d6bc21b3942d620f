//! The selectors and command outputs as the real `Ui` draws them over a real `App` (an
//! in-memory session; no model is asked anything): snapshots of the model selector, scoped
//! models, the tree navigator with a filter and a fold, settings, `/session`, `/hotkeys` and an
//! unknown command, at 80 and 40 columns.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::{Action, Ui};
use crate::TuiOptions;
use crate::keys::Keymap;
use crate::view::draw;
use pi_ai::{AuthStorage, Credential, Model, ModelRegistry};
use pi_app::AgentSessionOptions;
use pi_app::App;
use pi_session::session::SessionManager;
use pi_session::settings::SettingsManager;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use std::path::Path;
use std::sync::Arc;

pub(super) fn model(id: &str, name: &str, window: u64) -> Model {
    Model {
        id: id.into(),
        name: name.into(),
        api: "openai-completions".into(),
        provider: "local".into(),
        base_url: "http://127.0.0.1:9/v1".into(),
        reasoning: false,
        input: Vec::new(),
        cost: Default::default(),
        context_window: window,
        max_tokens: 4096,
        headers: None,
        compat: None,
    }
}

/// An App over an in-memory session with a short conversation already in its tree.
pub(super) fn app() -> Arc<App> {
    let cwd = Path::new("/tmp/demo");
    let mut session = SessionManager::in_memory(cwd);
    let user = |text: &str| {
        pi_session::messages::AgentMessage::from(pi_ai::UserMessage {
            content: pi_ai::UserContent::Text(text.into()),
            timestamp: 0,
        })
    };
    let answer = |text: &str| {
        pi_session::messages::AgentMessage::from(pi_ai::AssistantMessage {
            content: vec![pi_ai::AssistantBlock::Text(pi_ai::TextContent {
                text: text.into(),
                text_signature: None,
            })],
            ..Default::default()
        })
    };
    session.append_message(user("Fix the parser")).unwrap();
    session
        .append_message(answer("Fixed the off-by-one."))
        .unwrap();
    session.append_message(user("Now the docs")).unwrap();
    session.append_message(answer("Docs updated.")).unwrap();
    let settings = SettingsManager::from_values(serde_json::json!({}), serde_json::json!({}));
    let models = vec![
        model("demo-model", "Demo", 128_000),
        model("demo-large", "Demo large", 1_000_000),
    ];
    let mut registry = ModelRegistry::default();
    registry.add_models(models.clone());
    let auth = AuthStorage::in_memory();
    auth.set("local", &Credential::api_key("k")).unwrap();
    let auth = Arc::new(auth);
    let mut options = AgentSessionOptions::new(session, settings, models[0].clone());
    options.auth = Arc::clone(&auth);
    Arc::new(App::from_options(
        options,
        Arc::new(registry),
        auth,
        Vec::new(),
        Default::default(),
        Default::default(),
    ))
}

pub(super) fn ui(app: &App) -> Ui {
    let options = TuiOptions {
        cwd: "/tmp/demo".into(),
        fullscreen: true,
        double_escape_action: "tree".into(),
        max_completions: 5,
        ..TuiOptions::default()
    };
    Ui::new(app, &options, Keymap::defaults())
}

fn key(ui: &mut Ui, app: &App, code: KeyCode, modifiers: KeyModifiers) -> Action {
    ui.handle(&Event::Key(KeyEvent::new(code, modifiers)), app)
}

fn typed(ui: &mut Ui, app: &App, text: &str) {
    for c in text.chars() {
        key(ui, app, KeyCode::Char(c), KeyModifiers::NONE);
    }
}

fn command(ui: &mut Ui, app: &App, text: &str) {
    typed(ui, app, text);
    key(ui, app, KeyCode::Enter, KeyModifiers::NONE);
}

pub(super) fn render(ui: &Ui, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| draw(frame, &ui.screen())).unwrap();
    let buffer = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..buffer.area.height {
        let line: String = (0..buffer.area.width)
            .map(|x| buffer[(x, y)].symbol().to_owned())
            .collect();
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[test]
fn the_model_selector_narrowed_by_a_query() {
    let app = app();
    let mut ui = ui(&app);
    key(&mut ui, &app, KeyCode::Char('l'), KeyModifiers::CONTROL);
    insta::assert_snapshot!("model_selector", render(&ui, 80, 14));
    typed(&mut ui, &app, "large");
    insta::assert_snapshot!("model_selector_narrowed_40", render(&ui, 40, 12));
}

#[test]
fn the_scoped_models_editor_with_one_model_marked() {
    let app = app();
    let mut ui = ui(&app);
    command(&mut ui, &app, "/scoped-models");
    key(&mut ui, &app, KeyCode::Enter, KeyModifiers::NONE);
    insta::assert_snapshot!("scoped_models", render(&ui, 80, 12));
}

#[test]
fn the_tree_navigator_filtered_and_folded() {
    let app = app();
    let mut ui = ui(&app);
    command(&mut ui, &app, "/tree");
    insta::assert_snapshot!("tree_default", render(&ui, 80, 14));
    key(&mut ui, &app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    insta::assert_snapshot!("tree_user_only", render(&ui, 80, 14));
    key(&mut ui, &app, KeyCode::Char('a'), KeyModifiers::CONTROL);
    typed(&mut ui, &app, "parser");
    key(&mut ui, &app, KeyCode::Left, KeyModifiers::CONTROL);
    insta::assert_snapshot!("tree_folded", render(&ui, 80, 14));
}

#[test]
fn tree_labels_show_when_they_were_set_after_shift_t() {
    let app = app();
    let first = app.tree_rows()[0].id.clone();
    app.set_label(&first, Some("start".into())).unwrap();
    let mut ui = ui(&app);
    command(&mut ui, &app, "/tree");
    let plain = render(&ui, 80, 14);
    assert!(plain.contains("[start]"), "{plain}");
    key(&mut ui, &app, KeyCode::Char('T'), KeyModifiers::SHIFT);
    let timed = render(&ui, 80, 14);
    let row = timed
        .lines()
        .find(|l| l.contains("[start · "))
        .unwrap_or_else(|| panic!("no label time in\n{timed}"));
    // `[start · YYYY-MM-DD HH:MM]`: the minute the label entry was written.
    let stamp = row.split("[start · ").nth(1).unwrap();
    let stamp = &stamp[..stamp.find(']').unwrap()];
    assert_eq!(stamp.len(), 16, "{row}");
    assert_eq!(&stamp[4..5], "-");
    assert_eq!(&stamp[10..11], " ");
    key(&mut ui, &app, KeyCode::Char('T'), KeyModifiers::SHIFT);
    assert!(render(&ui, 80, 14).contains("[start]"));
}

#[test]
fn the_scoped_models_editor_reorders_and_pins_thinking_levels() {
    let app = app();
    let mut ui = ui(&app);
    command(&mut ui, &app, "/scoped-models");
    // Both in (demo-model, then demo-large), demo-large moved first, demo-model pinned to off.
    key(&mut ui, &app, KeyCode::Char('a'), KeyModifiers::CONTROL);
    key(&mut ui, &app, KeyCode::Down, KeyModifiers::NONE);
    key(&mut ui, &app, KeyCode::Up, KeyModifiers::ALT);
    key(&mut ui, &app, KeyCode::Down, KeyModifiers::NONE);
    key(&mut ui, &app, KeyCode::BackTab, KeyModifiers::SHIFT);
    insta::assert_snapshot!("scoped_models_edited", render(&ui, 80, 12));
    let cycle: Vec<String> = app
        .scoped_models()
        .iter()
        .map(|s| format!("{}:{:?}", s.model.id, s.thinking))
        .collect();
    assert_eq!(cycle, ["demo-large:None", "demo-model:Some(Off)"]);
}

#[test]
fn the_settings_editor() {
    let app = app();
    let mut ui = ui(&app);
    command(&mut ui, &app, "/settings");
    insta::assert_snapshot!("settings", render(&ui, 80, 18));
}

#[test]
fn the_settings_editor_lists_the_tables_choices_and_changes_one() {
    use pi_session::settings::SETTINGS_TABLE;
    let app = app();
    let mut ui = ui(&app);
    command(&mut ui, &app, "/settings");
    let screen = render(&ui, 100, 24);
    let editable: Vec<_> = SETTINGS_TABLE
        .iter()
        .filter(|info| info.choice.is_some())
        .collect();
    assert!(!editable.is_empty());
    for info in &editable {
        let line = format!("{}: {}", info.key, info.default);
        assert!(screen.contains(&line), "{line} missing:\n{screen}");
        assert!(screen.contains(info.description), "{}", info.description);
    }
    // Enter on the first entry (the theme) moves it to its next value, in the settings and
    // on the screen.
    key(&mut ui, &app, KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(app.settings().theme.as_deref(), Some("light"));
    assert!(render(&ui, 100, 24).contains("theme: light"));
}

#[test]
fn session_hotkeys_and_an_unknown_command() {
    let app = app();
    let mut ui = ui(&app);
    command(&mut ui, &app, "/nosuch thing");
    command(&mut ui, &app, "/session");
    let screen = render(&ui, 80, 20);
    // The id is new every run.
    let id = app.session_stats().session_id;
    insta::assert_snapshot!("session_and_unknown", screen.replace(&id, "<id>"));
    command(&mut ui, &app, "/hotkeys");
    let hotkeys = ui
        .transcript
        .items()
        .last()
        .map(|item| format!("{item:?}"))
        .unwrap_or_default();
    assert!(
        hotkeys.contains("app.interrupt") && hotkeys.contains("escape"),
        "{hotkeys}"
    );
    assert!(
        hotkeys.contains("tui.editor.undo") && hotkeys.contains("ctrl+-"),
        "{hotkeys}"
    );
}

#[test]
fn the_fork_selector_lists_earlier_prompts_newest_first() {
    let app = app();
    let mut ui = ui(&app);
    command(&mut ui, &app, "/fork");
    insta::assert_snapshot!("fork_selector", render(&ui, 60, 12));
}

#[test]
fn selector_keys_follow_keybindings_json() {
    let app = app();
    let mut ui = ui(&app);
    let (keymap, warnings) = Keymap::from_json(
        r#"{"app.tree.filter.userOnly": "alt+u", "tui.select.cancel": "ctrl+q"}"#,
    );
    assert!(warnings.is_empty(), "{warnings:?}");
    ui.keymap = keymap;
    command(&mut ui, &app, "/tree");
    key(&mut ui, &app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    assert!(
        ui.screen()
            .hint
            .unwrap_or_default()
            .contains("Tree, default")
    );
    key(&mut ui, &app, KeyCode::Char('u'), KeyModifiers::ALT);
    assert!(
        ui.screen()
            .hint
            .unwrap_or_default()
            .contains("Tree, user only")
    );
    key(&mut ui, &app, KeyCode::Esc, KeyModifiers::NONE);
    assert!(ui.picker.is_some(), "Esc no longer closes it");
    key(&mut ui, &app, KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert!(ui.picker.is_none());
}

#[test]
fn double_escape_action_picks_going_back_forking_or_nothing() {
    let app = app();
    let twice = |action: &str| {
        let options = TuiOptions {
            cwd: "/tmp/demo".into(),
            double_escape_action: action.into(),
            ..TuiOptions::default()
        };
        let mut ui = Ui::new(&app, &options, Keymap::defaults());
        key(&mut ui, &app, KeyCode::Esc, KeyModifiers::NONE);
        let first = ui.screen().hint;
        key(&mut ui, &app, KeyCode::Esc, KeyModifiers::NONE);
        let rows = ui.screen().popup.len();
        (first, ui.screen().hint, rows)
    };
    let hint = |text: &str| Some(text.to_owned());
    assert_eq!(
        twice("tree"),
        (
            hint("Esc again to go back to an earlier prompt"),
            hint("Go back to which prompt? (Enter, Esc to cancel)"),
            2
        )
    );
    assert_eq!(
        twice("fork"),
        (
            hint("Esc again to fork from an earlier prompt"),
            hint("Fork from which prompt? (Enter, Esc to cancel)"),
            2
        )
    );
    assert_eq!(twice("none"), (None, None, 0));
}

#[test]
fn agents_is_offered_after_a_slash_and_lists_what_the_app_found() {
    let app = app();
    let mut ui = ui(&app);
    typed(&mut ui, &app, "/age");
    let offer = render(&ui, 80, 12);
    assert!(
        offer.contains("agents") && offer.contains("agent definitions"),
        "{offer}"
    );
    key(&mut ui, &app, KeyCode::Esc, KeyModifiers::NONE);
    ui.editor = crate::Editor::default();
    command(&mut ui, &app, "/agents");
    insta::assert_snapshot!("agents_none", render(&ui, 80, 12));
}

#[test]
fn tree_asks_summarize_branch_and_passes_a_custom_focus_unless_skip_prompt() {
    let app = app();
    let mut ui = ui(&app);
    let first = app
        .tree_rows()
        .into_iter()
        .find(|r| r.text.contains("Fix the parser"))
        .unwrap()
        .id;
    command(&mut ui, &app, "/tree");
    typed(&mut ui, &app, "Fix the parser");
    key(&mut ui, &app, KeyCode::Enter, KeyModifiers::NONE);
    insta::assert_snapshot!("tree_summarize_branch", render(&ui, 80, 10));
    key(&mut ui, &app, KeyCode::Down, KeyModifiers::NONE);
    key(&mut ui, &app, KeyCode::Down, KeyModifiers::NONE);
    key(&mut ui, &app, KeyCode::Enter, KeyModifiers::NONE);
    typed(&mut ui, &app, "the parser");
    let action = key(&mut ui, &app, KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(
        action,
        Action::Navigate {
            id: first.clone(),
            summary: Some(Some("the parser".into()))
        }
    );
    // branchSummary.skipPrompt: no question, no summary.
    app.update_settings(|s| s.branch_summary_mut().skip_prompt = Some(true))
        .unwrap();
    command(&mut ui, &app, "/tree");
    typed(&mut ui, &app, "Fix the parser");
    let action = key(&mut ui, &app, KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(
        action,
        Action::Navigate {
            id: first,
            summary: None
        }
    );
}
