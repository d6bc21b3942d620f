//! The permission mode in the interactive UI, in a real terminal (tmux): `/mode <name>`, the
//! mode key (alt+m), the `/mode` selector, and the footer naming the mode unless it is `auto`.

use super::cli_support::*;
use super::cli_tui_support::*;
use pi_mock_llm::Api;

/// The footer's line: the last one with the context gauge.
fn footer(screen: &str) -> String {
    let line = screen.lines().rfind(|l| l.contains('%'));
    line.unwrap_or_default().to_owned()
}

#[test]
fn tui_mode_by_name_by_key_and_by_selector_shows_in_the_footer() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    let start = footer(&tmux.screen());
    // auto: pi's footer, the directory first.
    let cwd = pi.cwd().display().to_string();
    assert!(start.starts_with(&format!(" {cwd}")), "{start}");

    tmux.submit("/mode plan");
    tmux.wait_for("plan mode in the footer", |s| {
        footer(s).starts_with(" plan mode •")
    });
    // plan → auto: pi's footer again.
    tmux.keys(&["M-m"]);
    let screen = tmux.wait_text("Permission mode: auto");
    assert_eq!(footer(&screen), start, "{screen}");
    tmux.keys(&["M-m"]);
    tmux.wait_for("ask-writes in the footer", |s| {
        footer(s).starts_with(" ask-writes •")
    });

    tmux.submit("/mode");
    let screen = tmux.wait_text("Permission mode (Enter: switch");
    assert!(screen.contains("ask-writes (current)"), "{screen}");
    assert!(
        screen.contains("plan") && screen.contains("auto"),
        "{screen}"
    );
    tmux.keys(&["Down"]);
    tmux.keys(&["Enter"]);
    tmux.wait_for("ask-all in the footer", |s| {
        footer(s).starts_with(" ask-all •")
    });

    tmux.submit("/mode careful");
    tmux.wait_text(
        "Unknown permission mode \"careful\": use one of auto, ask-writes, ask-all, plan",
    );
    assert!(footer(&tmux.screen()).starts_with(" ask-all •"));
    assert!(pi.mock.requests().is_empty(), "nothing went to the model");
    tmux.exit();
}
