//! The permission mode in the interactive UI, in a real terminal (tmux): `/mode <name>`, the
//! mode key (alt+m), the `/mode` selector, the footer naming the mode unless it is `auto`, and
//! the question after a run in plan mode (execute the plan, stay, refine).

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

#[test]
fn after_a_plan_execute_leaves_plan_mode_and_asks_the_model_to_carry_it_out() {
    use pi_mock_llm::Turn;
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let tmux = Tmux::start(
        &pi,
        &[
            "--model",
            "mock/mock-model",
            "--tui-mode",
            FULLSCREEN,
            "--permission-mode",
            "plan",
        ],
    );
    tmux.wait_text("plan mode");
    pi.mock.push(Turn::text("Plan:\n1. Write notes.md"));
    pi.mock.push(Turn::text("Doing it."));
    tmux.submit("plan the notes");
    let asked = tmux.wait_text("Plan mode - what next?");
    println!("--- after a plan ---\n{}\n---", asked.trim_end());
    assert!(asked.contains("Refine the plan"), "{asked}");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_text("Doing it.");
    assert!(!footer(&screen).contains("plan mode"), "{screen}");
    let requests = pi.mock.requests();
    let tools = |i: usize| requests[i].body["tools"].to_string();
    assert!(!tools(0).contains("\"write\""), "plan mode offered write");
    assert!(tools(1).contains("\"write\""), "write not offered again");
    let last = requests[1].body["messages"].to_string();
    assert!(last.contains("Execute the plan above"), "{last}");
    tmux.exit();
}
