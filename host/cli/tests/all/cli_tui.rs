//! The interactive UI in a real terminal: `pi` runs inside tmux (a server of its own per test)
//! against the mock LLM; keys go in with `send-keys`, the screen comes back with
//! `capture-pane`, and the mock's request log and the session file show what really happened.

use super::cli_support::*;
use super::cli_tui_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::json;
use std::process::Command;
use std::time::{Duration, Instant};

fn streams_runs_a_tool_and_exits_restored(layout: &str) {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock
        .push(Turn::new().tool_call("c1", "bash", json!({"command": "echo tool-ran-here"})));
    pi.mock.push(
        Turn::text("The tool said tool-ran-here. Done.")
            .chunk(4)
            .delay_between_events(Duration::from_millis(40)),
    );
    let tmux = pi_in_tmux(&pi, layout);
    let alternate = if layout == FULLSCREEN { "1" } else { "0" };
    assert!(
        modes(&tmux).starts_with(alternate),
        "{layout}: {}",
        modes(&tmux)
    );
    tmux.submit("Run the tool please");
    tmux.wait_text("bash $ echo tool-ran-here");
    // Resizing mid-stream keeps the transcript readable.
    tmux.wait_text("The tool");
    tmux.run(&["resize-window", "-t", "0", "-x", "60", "-y", "20"]);
    let screen = tmux.wait_text("tool-ran-here. Done.");
    assert!(screen.lines().all(|l| l.chars().count() <= 60), "{screen}");
    let history = tmux.history();
    assert!(history.contains("› Run the tool please"), "{history}");

    tmux.keys(&["C-c"]);
    tmux.wait_text("Press Ctrl+C again to exit");
    tmux.keys(&["C-c"]);
    tmux.wait_text("[pi exited 0]");
    assert_eq!(
        modes(&tmux),
        "0 1",
        "alternate screen left and cursor shown"
    );
    // The whole conversation is in the scrollback, once.
    let history = tmux.history();
    for line in [
        "› Run the tool please",
        "bash $ echo tool-ran-here",
        "The tool said tool-ran-here. Done.",
    ] {
        assert_eq!(history.matches(line).count(), 1, "{line}:\n{history}");
    }

    let lines = pi.session_lines();
    let roles: Vec<&str> = messages(&lines)
        .iter()
        .filter_map(|m| m["role"].as_str())
        .collect();
    assert_eq!(
        roles,
        ["user", "assistant", "toolResult", "assistant"],
        "{lines:#?}"
    );
}

#[test]
fn tui_fullscreen_streams_an_answer_runs_a_tool_and_exits_with_the_terminal_restored() {
    streams_runs_a_tool_and_exits_restored(FULLSCREEN);
}

#[test]
fn tui_regular_streams_an_answer_runs_a_tool_and_leaves_it_all_in_the_scrollback() {
    streams_runs_a_tool_and_exits_restored(REGULAR);
}

fn steering_and_esc(layout: &str) {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock
        .push(Turn::new().tool_call("c1", "bash", json!({"command": "sleep 1.5"})));
    pi.mock.push(Turn::text("Steered."));
    pi.mock.push(
        Turn::text("this answer stalls after a few words and never finishes")
            .chunk(5)
            .delay_between_events(Duration::from_secs(3)),
    );
    let tmux = pi_in_tmux(&pi, layout);
    tmux.submit("Wait for the tool");
    tmux.wait_text("bash $ sleep 1.5");
    tmux.submit("use the blue color");
    tmux.wait_text("Steer: use the blue color");
    tmux.wait_text("Steered.");
    let requests = pi.mock.requests();
    assert!(
        requests[1].body.to_string().contains("use the blue color"),
        "{}",
        requests[1].body
    );

    tmux.wait_for("idle", |s| !s.contains("Working…"));
    tmux.submit("Now stall");
    tmux.wait_text("this ");
    tmux.keys(&["Escape"]);
    tmux.wait_text("Aborted");
    tmux.wait_for("idle after the abort", |s| !s.contains("Working…"));
    tmux.exit();
    let kinds: Vec<String> = pi
        .session_lines()
        .iter()
        .filter_map(|l| l["message"]["stopReason"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(
        kinds.last().map(String::as_str),
        Some("aborted"),
        "{kinds:?}"
    );
}

#[test]
fn tui_fullscreen_steering_reaches_the_next_request_and_esc_aborts_a_stalled_stream() {
    steering_and_esc(FULLSCREEN);
}

#[test]
fn tui_regular_steering_reaches_the_next_request_and_esc_aborts_a_stalled_stream() {
    steering_and_esc(REGULAR);
}

#[test]
fn tui_completes_files_and_commands_and_uses_the_external_editor_and_keybindings() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    std::fs::create_dir_all(pi.cwd().join("src")).unwrap();
    std::fs::write(pi.cwd().join("src/main.rs"), "fn main() {}\n").unwrap();
    std::fs::write(pi.cwd().join("src/lib.rs"), "\n").unwrap();
    std::fs::write(pi.cwd().join(".gitignore"), "target/\n").unwrap();
    std::fs::create_dir_all(pi.cwd().join("target")).unwrap();
    std::fs::write(pi.cwd().join("target/main.o"), "").unwrap();
    // A stand-in editor that replaces the text, and Ctrl+D moved to Alt+Q.
    pi.settings(json!({"externalEditor": "printf 'text from the editor' >"}));
    pi.write_agent_file("keybindings.json", r#"{"app.exit": "alt+q"}"#);
    let tmux = pi_in_tmux(&pi, FULLSCREEN);

    tmux.type_text("look at @mai");
    let screen = tmux.wait_text("src/main.rs");
    assert!(
        !screen.contains("target/main.o"),
        "ignored files stay out:\n{screen}"
    );
    tmux.keys(&["Tab"]);
    tmux.wait_text("│look at @src/main.rs");
    tmux.keys(&["C-u"]);
    tmux.type_text("/qu");
    tmux.wait_text("Quit pi");
    tmux.keys(&["Tab"]);
    tmux.wait_text("│/quit");
    tmux.keys(&["C-u"]);

    tmux.type_text("draft");
    tmux.keys(&["C-g"]);
    tmux.wait_text("│text from the editor");
    tmux.keys(&["C-u"]);
    // Ctrl+D no longer exits (and deletes nothing on an empty line); Alt+Q does.
    tmux.keys(&["C-d"]);
    std::thread::sleep(Duration::from_millis(200));
    assert!(!tmux.screen().contains("[pi exited"));
    tmux.keys(&["M-q"]);
    tmux.wait_text("[pi exited 0]");
}

#[test]
fn tui_double_escape_goes_back_to_an_earlier_prompt_and_search_finds_text() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock
        .push(Turn::text("First answer with a needle in it."));
    pi.mock.push(Turn::text("Second answer."));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.submit("first question");
    tmux.wait_text("First answer with a needle");
    tmux.submit("second question");
    tmux.wait_text("Second answer.");
    tmux.wait_for("idle", |s| !s.contains("Working…"));

    tmux.keys(&["M-s"]);
    tmux.type_text("needle");
    tmux.wait_text("Search: needle (1/1)");
    tmux.keys(&["Escape"]);
    tmux.wait_for("the search closed", |s| !s.contains("Search: needle"));

    // Two presses, as two writes: one write of two ESC bytes reads as a single Esc.
    tmux.keys(&["Escape"]);
    tmux.wait_text("Esc again to go back to an earlier prompt");
    tmux.keys(&["Escape"]);
    tmux.wait_text("Go back to which prompt?");
    // Newest first: Down picks the first question.
    tmux.keys(&["Down", "Enter"]);
    let screen = tmux.wait_text("│first question");
    assert!(!screen.contains("Second answer."), "{screen}");
    for _ in 0..3 {
        tmux.keys(&["C-c"]);
        std::thread::sleep(Duration::from_millis(100));
    }
    tmux.wait_text("[pi exited 0]");
    // The session keeps both branches; its leaf moved back before the first question.
    let lines = pi.session_lines();
    let users = lines
        .iter()
        .filter(|l| l["message"]["role"] == "user")
        .count();
    assert_eq!(users, 2, "{lines:#?}");
}

#[test]
fn tui_sigterm_restores_the_terminal_and_the_unsent_text_comes_back() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.type_text("words I have not sent yet");
    tmux.wait_text("words I have not sent yet");
    let pid = pi_pid(&tmux);
    // The shell's own `kill`: no procps needed.
    let killed = Command::new("sh")
        .args(["-c", &format!("kill -TERM {pid}")])
        .status()
        .unwrap();
    assert!(killed.success());
    tmux.wait_text("[pi exited 143]");
    assert_eq!(
        modes(&tmux),
        "0 1",
        "alternate screen left and cursor shown"
    );
    drop(tmux);

    let again = pi_in_tmux(&pi, FULLSCREEN);
    let screen = again.wait_text("Restored the text you had not sent last time.");
    assert!(screen.contains("│words I have not sent yet"), "{screen}");
}

#[test]
fn tui_draws_a_tool_result_with_a_renderer_component() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let package = super::cli_extensions::install(&pi.agent_dir().join("extensions"), "notes");
    std::fs::copy(
        pi_ext_test_artifacts::RENDERER,
        package.join("renderer.wasm"),
    )
    .unwrap();
    let manifest = std::fs::read_to_string(package.join("pi-extension.toml")).unwrap();
    std::fs::write(
        package.join("pi-extension.toml"),
        format!("{manifest}\n[[component]]\npath = \"renderer.wasm\"\nworld = \"renderer\"\n"),
    )
    .unwrap();
    pi.mock
        .push(Turn::new().tool_call("c1", "echo", json!({"say": "drawn-by-the-component"})));
    pi.mock.push(Turn::text("Echoed."));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.submit("Echo something");
    tmux.wait_text("Echoed.");
    // The component's own header line (`echo <arguments>`, at the left edge) is on screen
    // under pi's; pi's fallback would indent the output instead.
    let screen = tmux.screen();
    assert!(
        screen
            .lines()
            .any(|l| l.starts_with("echo {\"say\":\"drawn-by-the-component\"}")),
        "{screen}"
    );
    tmux.exit();
}

#[test]
fn tui_ctrl_z_gives_the_terminal_back_and_fg_resumes_it() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    // An interactive shell with job control, as a user has: `sh -c` alone would leave pi in an
    // orphaned process group, where the kernel drops the stop signal.
    let tmux = Tmux::start_shell(&pi);
    tmux.submit(&format!("'{PI}' --model mock/mock-model"));
    tmux.wait_text("0%");
    tmux.type_text("kept across the stop");
    tmux.wait_text("kept across the stop");
    tmux.keys(&["C-z"]);
    tmux.wait_text("Stopped");
    assert_eq!(
        modes(&tmux),
        "0 1",
        "the terminal is the shell's while pi is stopped"
    );
    tmux.submit("fg");
    let screen = tmux.wait_text("│kept across the stop");
    assert!(screen.contains("0%"), "{screen}");
    assert!(
        modes(&tmux).starts_with('1'),
        "back on the alternate screen"
    );
    tmux.keys(&["C-c"]);
    tmux.keys(&["C-d"]);
    tmux.wait_for("the shell's prompt again", |s| s.trim_end().ends_with('$'));
}

/// kitty's graphics protocol: a PNG sized to 2 columns by 1 row, sent quietly.
pub(super) const KITTY_PICTURE: &[u8] = b"\x1b_Ga=T,f=100,q=2,C=1,c=2,r=1,m=0;";

#[test]
fn tui_draws_an_image_with_the_kitty_protocol_in_a_kitty_terminal() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let text = shows_a_read_image(&pi, "xterm-kitty", Some(KITTY_PICTURE));
    assert!(
        text.contains("[image: image/png"),
        "the placeholder names it"
    );
}

#[test]
fn tui_draws_an_image_as_sixel_in_a_sixel_terminal() {
    // 2 columns by 1 row of 8×16-pixel cells.
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let text = shows_a_read_image(&pi, "foot", Some(b"\x1bP0;1;0q\"1;1;16;16#"));
    assert!(
        text.contains("[image: image/png"),
        "the placeholder names it"
    );
}

/// Runs pi in `term`, has it `read` a picture, waits for `picture` (when given) and returns
/// everything pi wrote until it exited.
pub(super) fn shows_a_read_image(pi: &PiEnv, term: &str, picture: Option<&[u8]>) -> String {
    use base64::Engine as _;
    use std::io::{Read, Write};
    let png = base64::engine::general_purpose::STANDARD
        .decode(DOT_PNG)
        .unwrap();
    std::fs::write(pi.cwd().join("dot.png"), png).unwrap();
    pi.mock
        .push(Turn::new().tool_call("c1", "read", json!({"path": "dot.png"})));
    pi.mock.push(Turn::text("Seen the picture."));
    // tmux passes no graphics on, so this runs in a pseudo-terminal of `script`'s, whose
    // output is exactly what pi wrote.
    let mut child = Command::new("script")
        .args([
            "-qfec",
            &format!("stty rows 30 cols 100; exec '{PI}' --model mock/mock-model"),
            "/dev/null",
        ])
        .current_dir(pi.cwd())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", pi.root.path().join("home"))
        .env("TERM", term)
        .env("PI_CODING_AGENT_DIR", pi.agent_dir())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("`script` runs (Debian package bsdutils)");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 65536];
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    let wait_for = |marker: &[u8], seen: &mut Vec<u8>| {
        let deadline = Instant::now() + Tmux::SCREEN_WAIT;
        while !seen.windows(marker.len()).any(|w| w == marker) {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(bytes) => seen.extend(bytes),
                Err(_) => panic!(
                    "no {:?}; pi wrote:\n{}",
                    String::from_utf8_lossy(marker),
                    String::from_utf8_lossy(seen)
                ),
            }
        }
    };
    wait_for(b"0%", &mut seen);
    stdin.write_all(b"Show me the picture\r").unwrap();
    stdin.flush().unwrap();
    wait_for(b"picture.", &mut seen);
    if let Some(picture) = picture {
        wait_for(picture, &mut seen);
    }
    stdin.write_all(b"\x04").unwrap();
    stdin.flush().unwrap();
    assert!(child.wait().unwrap().success());
    // The reader ends with the pseudo-terminal; what was left arrives first.
    while let Ok(bytes) = rx.recv_timeout(Duration::from_secs(5)) {
        seen.extend(bytes);
    }
    String::from_utf8_lossy(&seen).into_owned()
}

#[test]
fn tui_ctrl_c_during_start_up_exits_cleanly() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    // Start-up blocks reading settings.json (a FIFO nobody writes), as a slow disk or a slow
    // extension would hold it: Ctrl+C then is the terminal's interrupt.
    let settings = pi.agent_dir().join("settings.json");
    let _ = std::fs::remove_file(&settings);
    let made = Command::new("mkfifo").arg(&settings).status().unwrap();
    assert!(made.success());
    // Under a job-control shell, as a user runs it: the interrupt goes to pi's job alone.
    let tmux = Tmux::start_shell(&pi);
    tmux.submit(&format!("'{PI}' --model mock/mock-model"));
    std::thread::sleep(Duration::from_millis(300));
    assert!(!tmux.screen().contains("0%"), "still starting");
    tmux.keys(&["C-c"]);
    // bash drops the rest of a command line an interrupt ended: ask for the code after it.
    tmux.wait_for("the prompt", |s| s.trim_end().ends_with('$'));
    tmux.submit("echo \"[pi exited $?]\"");
    tmux.wait_text("[pi exited 130]");
    assert_eq!(modes(&tmux), "0 1");
    assert!(pi.session_files().is_empty(), "no session file was started");
}

#[test]
fn tui_sends_the_command_lines_messages_with_the_attached_image_first() {
    use base64::Engine as _;
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let png = base64::engine::general_purpose::STANDARD
        .decode(DOT_PNG)
        .unwrap();
    std::fs::write(pi.cwd().join("dot.png"), png).unwrap();
    pi.mock.push(Turn::text("An orange dot."));
    pi.mock.push(Turn::text("Still orange."));
    let tmux = Tmux::start(
        &pi,
        &[
            "--model",
            "mock/mock-model",
            "@dot.png",
            "Describe it",
            "And again",
        ],
    );
    tmux.wait_text("Still orange.");
    let requests = pi.mock.requests();
    assert_eq!(requests.len(), 2);
    let first = requests[0].body.to_string();
    assert!(
        first.contains("Describe it") && first.contains("image_url"),
        "{first}"
    );
    assert!(requests[1].body.to_string().contains("And again"));
    tmux.exit();
}
