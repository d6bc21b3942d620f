//! The settings of the interactive UI that no other test shows, each by what a real terminal
//! gets: `tuiMode`, `quietStartup`, `autocompleteMaxVisible`, `terminal.showImages`,
//! `hideThinkingBlock`, and a theme file listed in `themes`.

use super::cli_support::*;
use super::cli_tui_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::json;

/// Six prompt templates whose descriptions all say `template-no-`.
fn six_templates(pi: &PiEnv) {
    let dir = pi.agent_dir().join("prompts");
    std::fs::create_dir_all(&dir).unwrap();
    for n in 1..=6 {
        std::fs::write(
            dir.join(format!("tpl{n}.md")),
            format!("---\ndescription: template-no-{n}\n---\nBody {n}.\n"),
        )
        .unwrap();
    }
}

/// Starts pi with no layout flag and reports the alternate-screen flag, whether the start-up
/// header was shown, and how many completions `/tpl` offers at once.
fn start_and_complete(pi: &PiEnv) -> (String, bool, usize) {
    let tmux = Tmux::start(pi, &["--model", "mock/mock-model"]);
    let screen = tmux.wait_text("0%");
    let alternate = modes(&tmux).split(' ').next().unwrap().to_owned();
    let header = screen.contains(" · context: ");
    tmux.type_text("/tpl");
    let screen = tmux.wait_text("template-no-1");
    let shown = screen.matches("template-no-").count();
    tmux.keys(&["C-u"]);
    tmux.exit();
    (alternate, header, shown)
}

#[test]
fn tui_mode_quiet_startup_and_autocomplete_max_visible_settings() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    six_templates(&pi);
    assert_eq!(start_and_complete(&pi), ("1".to_owned(), true, 5));
    pi.settings(json!({"tuiMode": "regular", "quietStartup": true, "autocompleteMaxVisible": 3}));
    assert_eq!(start_and_complete(&pi), ("0".to_owned(), false, 3));
}

#[test]
fn terminal_show_images_false_draws_no_picture() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.settings(json!({"terminal": {"showImages": false}}));
    let text = super::cli_tui::shows_a_read_image(&pi, "xterm-kitty", None);
    assert!(
        text.contains("[image: image/png"),
        "the placeholder names it"
    );
    assert!(
        !text
            .as_bytes()
            .windows(super::cli_tui::KITTY_PICTURE.len())
            .any(|w| w == super::cli_tui::KITTY_PICTURE),
        "no picture drawn"
    );
}

#[test]
fn a_theme_listed_in_the_settings_is_found_relative_to_the_agent_dir() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let dir = pi.agent_dir().join("my-themes");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("ocean.json"),
        r##"{"name": "ocean", "colors": {"accent": "#0087ff"}}"##,
    )
    .unwrap();
    pi.settings(json!({"themes": ["my-themes/ocean.json"], "theme": "ocean"}));
    pi.mock.push(Turn::text("In blue."));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.submit("Hello");
    tmux.wait_text("In blue.");
    // The prompt's `›` is drawn in the accent colour (#0087ff is 33 in the 256-colour palette).
    tmux.wait_styled("38;5;33m› ");
    tmux.exit();
}

/// What the screen shows of a reply that thought before it answered, under `settings`.
fn thinking_shown(settings: serde_json::Value) -> String {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.settings(settings);
    pi.mock.push(
        Turn::new()
            .thinking("weighing the two files carefully")
            .and_text("Both are fine."),
    );
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.submit("Check the files");
    let screen = tmux.wait_text("Both are fine.");
    tmux.exit();
    screen
}

#[test]
fn hide_thinking_block_true_collapses_the_thinking_from_the_start() {
    // pi's default shows it.
    let shown = thinking_shown(json!({}));
    assert!(
        shown.contains("weighing the two files carefully"),
        "{shown}"
    );
    let hidden = thinking_shown(json!({"hideThinkingBlock": true}));
    assert!(hidden.contains("Thinking… (Ctrl+T shows it)"), "{hidden}");
    assert!(!hidden.contains("weighing the two files"), "{hidden}");
}
