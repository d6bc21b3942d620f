//! Extensions talking to the user, drawn: each dialog over the editor (naming the extension,
//! with its countdown), the footer's status slots, and the notices by level.

use pi_app::hooks::{NotifyType, UiRequest};
use pi_tui::dialog::Dialog;
use pi_tui::view::{DialogView, Footer, Screen, draw, status_text};
use pi_tui::{Editor, LineCache, Transcript};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::cell::RefCell;
use std::time::Instant;

pub(super) fn footer() -> Footer {
    Footer {
        cwd: "~/src/demo".into(),
        branch: Some("main".into()),
        session_name: None,
        model: "anthropic/claude-sonnet-4-5".into(),
        thinking: "medium".into(),
        context_window: 200_000,
        ..Footer::default()
    }
}

pub(super) fn dialog(request: UiRequest) -> Dialog {
    Dialog::from_request("ui-1", "hook-probe@0.1.0", &request, Instant::now()).unwrap()
}

/// The screen as text: `dialog` over the editor, `statuses` under the footer.
pub(super) fn render(
    transcript: &Transcript,
    dialog: Option<(&Dialog, Option<u64>)>,
    statuses: Vec<String>,
    size: (u16, u16),
) -> String {
    let (editor, footer) = (Editor::default(), footer());
    let cache = RefCell::new(LineCache::default());
    let screen = Screen {
        dialog: dialog.map(|(dialog, seconds_left)| DialogView {
            dialog,
            seconds_left,
        }),
        statuses,
        ..Screen::new(transcript, &editor, &footer, &cache)
    };
    let mut terminal = Terminal::new(TestBackend::new(size.0, size.1)).unwrap();
    terminal.draw(|frame| draw(frame, &screen)).unwrap();
    let buffer = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..buffer.area.height {
        let line: String = (0..buffer.area.width)
            .map(|x| buffer[(x, y)].symbol())
            .collect();
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn press(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

#[test]
fn confirm_dialog_with_its_countdown() {
    let mut d = dialog(UiRequest::Confirm {
        title: "Probe".into(),
        message: "Proceed?".into(),
        timeout: Some(30_000),
    });
    let t = Transcript::default();
    insta::assert_snapshot!(
        "confirm_yes",
        render(&t, Some((&d, Some(30))), vec![], (60, 14))
    );
    d.key(&press(KeyCode::Down));
    insta::assert_snapshot!(
        "confirm_no",
        render(&t, Some((&d, Some(7))), vec![], (60, 14))
    );
}

#[test]
fn select_dialog_scrolls_a_long_list() {
    let options = (1..=14).map(|i| format!("option {i}")).collect();
    let mut d = dialog(UiRequest::Select {
        title: "Pick one".into(),
        options,
        timeout: None,
        approval: None,
    });
    for _ in 0..8 {
        d.key(&press(KeyCode::Down));
    }
    let t = Transcript::default();
    insta::assert_snapshot!(render(&t, Some((&d, None)), vec![], (50, 20)));
}

#[test]
fn input_dialog_placeholder_then_text() {
    let mut d = dialog(UiRequest::Input {
        title: "Branch name".into(),
        placeholder: Some("e.g. fix/login".into()),
        timeout: None,
    });
    let t = Transcript::default();
    insta::assert_snapshot!(
        "input_placeholder",
        render(&t, Some((&d, None)), vec![], (50, 10))
    );
    d.paste("fix/typo");
    insta::assert_snapshot!(
        "input_typed",
        render(&t, Some((&d, None)), vec![], (50, 10))
    );
}

#[test]
fn footer_status_slots_in_key_order_cleaned_and_cut() {
    let t = Transcript::default();
    // In key order ("a-lint" before "todo"), each cleaned to one line.
    let statuses = vec![
        status_text("lint:\tok"),
        status_text("3 todos\n\x1b[31mopen\x1b[0m"),
    ];
    insta::assert_snapshot!("status_slots", render(&t, None, statuses, (60, 8)));
    let long = vec![status_text(&"busy ".repeat(20))];
    insta::assert_snapshot!("status_slots_cut", render(&t, None, long, (40, 8)));
}

#[test]
fn notices_by_level() {
    let mut t = Transcript::default();
    let levels = [
        ("indexed 12 files", NotifyType::Info),
        ("slow disk", NotifyType::Warning),
        ("gate failed", NotifyType::Error),
    ];
    for (message, level) in levels {
        t.extension_notice(message, level);
    }
    insta::assert_snapshot!(render(&t, None, vec![], (50, 10)));
}

#[test]
fn a_dialog_while_the_agent_works_says_esc_cancels_the_dialog() {
    let d = dialog(UiRequest::Confirm {
        title: "permission-gate".into(),
        message: "Run `rm -rf build`?".into(),
        timeout: None,
    });
    let mut t = Transcript::default();
    t.working = true;
    insta::assert_snapshot!(render(&t, Some((&d, None)), vec![], (70, 12)));
}
