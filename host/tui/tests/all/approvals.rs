//! The approval dialog, drawn: the tool and a preview of the call above the four numbered
//! options, for each kind of preview at two widths, cut to fit a short terminal (the options
//! always show); and the footer naming the permission mode.

use super::dialogs::{dialog, footer, render};
use pi_app::hooks::{ApprovalPreview, ApprovalView, UiRequest};
use pi_app::permissions::PermissionMode;
use pi_tui::Transcript;
use pi_tui::dialog::Dialog;
use pi_tui::view::{Screen, draw};
use pi_tui::{Editor, LineCache};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;
use std::cell::RefCell;

const OPTIONS: [&str; 4] = [
    "Allow once",
    "Allow for this session",
    "Always allow for this project",
    "Deny",
];

fn approval(tool: &str, preview: ApprovalPreview) -> Dialog {
    dialog(UiRequest::Select {
        title: format!("Allow {tool}? (mode ask-writes)"),
        options: OPTIONS.iter().map(|o| (*o).to_owned()).collect(),
        timeout: None,
        approval: Some(ApprovalView {
            tool: tool.into(),
            preview,
        }),
    })
}

fn shots(name: &str, d: &Dialog, height: u16) {
    let t = Transcript::default();
    for width in [80, 44] {
        insta::assert_snapshot!(
            format!("{name}_{width}"),
            render(&t, Some((d, None)), vec![], (width, height))
        );
    }
}

fn command() -> ApprovalPreview {
    ApprovalPreview::Command {
        command: "cd build && FOO=1 cargo test --workspace 2>&1 | tee log.txt > /dev/null".into(),
    }
}

#[test]
fn a_command_with_its_programs_and_operators() {
    shots("command", &approval("bash", command()), 18);
}

#[test]
fn an_edit_as_a_diff() {
    let diff = "-fn parse(input: &str) -> u32 {\n-    input.len() as u32\n\
                +fn parse(input: &str) -> usize {\n+    input.chars().count()\n";
    let preview = ApprovalPreview::Edit {
        path: "src/lib.rs".into(),
        diff: diff.into(),
    };
    shots("edit", &approval("edit", preview), 20);
}

#[test]
fn a_write_shows_its_first_lines() {
    let content: String = (1..=25).map(|i| format!("line {i}\n")).collect();
    let preview = ApprovalPreview::Write {
        path: "notes/plan.md".into(),
        content,
    };
    shots("write", &approval("write", preview), 26);
}

#[test]
fn any_other_tool_shows_its_arguments() {
    let json = "{\n  \"url\": \"https://example.com/docs\",\n  \"max_bytes\": 65536\n}";
    let preview = ApprovalPreview::Arguments { json: json.into() };
    shots("arguments", &approval("fetch_url", preview), 18);
}

#[test]
fn a_long_preview_is_cut_so_the_options_show() {
    let diff: String = (1..=40).map(|i| format!("-old {i}\n+new {i}\n")).collect();
    let preview = ApprovalPreview::Edit {
        path: "src/big.rs".into(),
        diff,
    };
    let d = approval("edit", preview);
    let screen = render(&Transcript::default(), Some((&d, None)), vec![], (60, 20));
    insta::assert_snapshot!(screen.clone());
    for option in OPTIONS {
        assert!(screen.contains(option), "{option} not shown:\n{screen}");
    }
    assert!(screen.contains("more lines"), "{screen}");
}

#[test]
fn a_short_screen_drops_the_blank_rows_before_cutting_the_call() {
    // The regular layout's live region of a 30-row terminal: 15 rows.
    let preview = ApprovalPreview::Edit {
        path: "src/lib.rs".into(),
        diff: "-a\n+b\n-c\n+d".into(),
    };
    let d = approval("edit", preview);
    let (t, editor, footer) = (Transcript::default(), Editor::default(), footer());
    let cache = RefCell::new(LineCache::default());
    let screen = Screen {
        dialog: Some(pi_tui::view::DialogView {
            dialog: &d,
            seconds_left: None,
        }),
        live_from: Some(0),
        ..Screen::new(&t, &editor, &footer, &cache)
    };
    let mut terminal = Terminal::new(TestBackend::new(80, 15)).unwrap();
    terminal.draw(|frame| draw(frame, &screen)).unwrap();
    let buffer = terminal.backend().buffer();
    let screen: String = (0..15)
        .map(|y| (0..80).map(|x| buffer[(x, y)].symbol()).collect::<String>() + "\n")
        .collect();
    for shown in ["-a", "+b", "-c", "+d", "Allow once", "Deny", "esc deny"] {
        assert!(screen.contains(shown), "{shown} not shown:\n{screen}");
    }
}

#[test]
fn the_call_is_drawn_cleaned() {
    let preview = ApprovalPreview::Command {
        command: "echo \x1b]52;c;aGk=\x07hi\x1b[2J && rm -rf \x1b[31mx".into(),
    };
    let d = approval("ba\x1b[1msh", preview);
    let screen = render(&Transcript::default(), Some((&d, None)), vec![], (60, 16));
    assert!(
        !screen.contains('\x1b') && !screen.contains('\x07'),
        "{screen:?}"
    );
    assert!(
        screen.contains("bash") && screen.contains("rm -rf"),
        "{screen}"
    );
}

/// The colour of the first cell of `text` on the screen drawn with `d` at 80 columns.
fn color_of(d: &Dialog, text: &str) -> Option<Color> {
    let (t, editor, footer) = (Transcript::default(), Editor::default(), footer());
    let cache = RefCell::new(LineCache::default());
    let screen = Screen {
        dialog: Some(pi_tui::view::DialogView {
            dialog: d,
            seconds_left: None,
        }),
        ..Screen::new(&t, &editor, &footer, &cache)
    };
    let mut terminal = Terminal::new(TestBackend::new(80, 20)).ok()?;
    terminal.draw(|frame| draw(frame, &screen)).ok()?;
    let buffer = terminal.backend().buffer();
    for y in 0..buffer.area.height {
        let row: String = (0..buffer.area.width)
            .map(|x| buffer[(x, y)].symbol())
            .collect();
        if let Some(at) = row.find(text) {
            let x = row[..at].chars().count() as u16;
            return Some(buffer[(x, y)].fg);
        }
    }
    None
}

#[test]
fn programs_operators_and_diff_lines_have_their_theme_colours() {
    let theme = pi_tui::Theme::default_dark();
    let command = approval("bash", command());
    let plain = color_of(&command, "--workspace");
    assert_eq!(
        color_of(&command, "cargo"),
        theme.get(pi_tui::Token::BashMode)
    );
    assert_eq!(color_of(&command, "&&"), theme.get(pi_tui::Token::Warning));
    assert_ne!(color_of(&command, "cargo"), plain);
    let edit = approval(
        "edit",
        ApprovalPreview::Edit {
            path: "a.rs".into(),
            diff: "-old\n+new".into(),
        },
    );
    let removed = theme.get(pi_tui::Token::ToolDiffRemoved);
    assert_eq!(color_of(&edit, "-old"), removed);
    assert_eq!(
        color_of(&edit, "+new"),
        theme.get(pi_tui::Token::ToolDiffAdded)
    );
}

#[test]
fn the_footer_names_the_mode_unless_it_is_auto() {
    let t = Transcript::default();
    for mode in [PermissionMode::Plan, PermissionMode::AskWrites] {
        let footer = pi_tui::view::Footer {
            permission_mode: mode,
            ..footer()
        };
        let (editor, cache) = (Editor::default(), RefCell::new(LineCache::default()));
        let screen = Screen::new(&t, &editor, &footer, &cache);
        let mut terminal = Terminal::new(TestBackend::new(60, 5)).unwrap();
        terminal.draw(|frame| draw(frame, &screen)).unwrap();
        let buffer = terminal.backend().buffer();
        let last: String = (0..60).map(|x| buffer[(x, 4)].symbol()).collect();
        insta::assert_snapshot!(format!("footer_{mode}"), last.trim_end());
    }
    // auto: pi's footer, exactly as without a mode.
    let auto = render(&t, None, vec![], (60, 5));
    assert!(!auto.contains("auto") && !auto.contains(" • /"), "{auto}");
}
