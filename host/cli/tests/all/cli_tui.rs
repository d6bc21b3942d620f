//! The interactive UI in a real terminal: `pi` runs inside tmux (a server of its own per test)
//! against the mock LLM; keys go in with `send-keys`, the screen comes back with
//! `capture-pane`, and the mock's request log and the session file show what really happened.

use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::json;
use std::process::Command;
use std::time::{Duration, Instant};

struct Tmux {
    socket: String,
}

impl Tmux {
    /// Starts `pi <args>` in a detached 100×30 window. When pi exits, the pane prints its exit
    /// code and stays, so the test can read what was left on the screen.
    fn start(pi: &PiEnv, args: &[&str]) -> Tmux {
        let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
        Tmux::spawn(
            pi,
            &format!(
                "'{PI}' {}; echo \"[pi exited $?]\"; sleep 600",
                quoted.join(" ")
            ),
        )
    }

    /// An interactive bash (job control on) in the same environment, for typing commands into.
    fn start_shell(pi: &PiEnv) -> Tmux {
        let tmux = Tmux::spawn(pi, "PS1='$ ' exec bash --norc --noprofile -i");
        tmux.wait_text("$");
        tmux
    }

    /// Runs `command` in a detached 100×30 window, in the test's directories and a clean
    /// environment.
    fn spawn(pi: &PiEnv, command: &str) -> Tmux {
        let socket = format!("pi-test-{}-{}", std::process::id(), fastrand::u64(..));
        let script = format!(
            "cd '{cwd}' && exec env -i PATH=\"$PATH\" TERM=xterm-256color HOME='{home}' \
             PI_CODING_AGENT_DIR='{agent}' sh -c \"$0\"",
            cwd = pi.cwd().display(),
            home = pi.root.path().join("home").display(),
            agent = pi.agent_dir().display(),
        );
        let tmux = Tmux { socket };
        tmux.run(&[
            "new-session",
            "-d",
            "-x",
            "100",
            "-y",
            "30",
            "sh",
            "-c",
            &script,
            command,
        ]);
        tmux
    }

    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs (install the Debian package `tmux`)");
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "0"];
        args.extend_from_slice(keys);
        self.run(&args);
    }

    /// Types `text` literally (no key names).
    fn type_text(&self, text: &str) {
        self.run(&["send-keys", "-t", "0", "-l", text]);
    }

    fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "0"])
    }

    /// The pane's whole history: scrollback and screen.
    fn history(&self) -> String {
        self.run(&["capture-pane", "-p", "-S", "-", "-t", "0"])
    }

    fn wait_for(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let screen = self.screen();
            if pred(&screen) {
                return screen;
            }
            if Instant::now() > deadline {
                panic!("timed out waiting for {what}; screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn wait_text(&self, text: &str) -> String {
        self.wait_for(text, |s| s.contains(text))
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

/// The two layouts: the alternate screen, and the regular one over the terminal's scrollback.
const FULLSCREEN: &str = "fullscreen";
const REGULAR: &str = "regular";

fn pi_in_tmux(pi: &PiEnv, layout: &str) -> Tmux {
    let tmux = Tmux::start(pi, &["--model", "mock/mock-model", "--tui-mode", layout]);
    tmux.wait_text("0%");
    tmux
}

fn modes(tmux: &Tmux) -> String {
    let modes = tmux.run(&[
        "display-message",
        "-p",
        "-t",
        "0",
        "#{alternate_on} #{cursor_flag}",
    ]);
    modes.trim().to_owned()
}

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
    tmux.type_text("Run the tool please");
    tmux.keys(&["Enter"]);
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
    let roles: Vec<&str> = lines
        .iter()
        .filter_map(|l| l["message"]["role"].as_str())
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
    tmux.type_text("Wait for the tool");
    tmux.keys(&["Enter"]);
    tmux.wait_text("bash $ sleep 1.5");
    tmux.type_text("use the blue color");
    tmux.keys(&["Enter"]);
    tmux.wait_text("Steer: use the blue color");
    tmux.wait_text("Steered.");
    let requests = pi.mock.requests();
    assert!(
        requests[1].body.to_string().contains("use the blue color"),
        "{}",
        requests[1].body
    );

    tmux.wait_for("idle", |s| !s.contains("Working…"));
    tmux.type_text("Now stall");
    tmux.keys(&["Enter"]);
    tmux.wait_text("this ");
    tmux.keys(&["Escape"]);
    tmux.wait_text("Aborted");
    tmux.wait_for("idle after the abort", |s| !s.contains("Working…"));
    tmux.keys(&["C-d"]);
    tmux.wait_text("[pi exited 0]");
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
    tmux.type_text("first question");
    tmux.keys(&["Enter"]);
    tmux.wait_text("First answer with a needle");
    tmux.type_text("second question");
    tmux.keys(&["Enter"]);
    tmux.wait_text("Second answer.");
    tmux.wait_for("idle", |s| !s.contains("Working…"));

    tmux.keys(&["M-s"]);
    tmux.type_text("needle");
    tmux.wait_text("Search: needle (1/1)");
    tmux.keys(&["Escape"]);

    // Two presses, as two writes: one write of two ESC bytes reads as a single Esc.
    tmux.keys(&["Escape"]);
    std::thread::sleep(Duration::from_millis(150));
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
    let modes = tmux.run(&[
        "display-message",
        "-p",
        "-t",
        "0",
        "#{alternate_on} #{cursor_flag}",
    ]);
    assert_eq!(
        modes.trim(),
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
    tmux.type_text("Echo something");
    tmux.keys(&["Enter"]);
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
    tmux.keys(&["C-d"]);
    tmux.wait_text("[pi exited 0]");
}

/// The pid of pi, the child of the pane's shell.
fn pi_pid(tmux: &Tmux) -> String {
    let shell = tmux.run(&["display-message", "-p", "-t", "0", "#{pane_pid}"]);
    let shell = shell.trim();
    let children = std::fs::read_to_string(format!("/proc/{shell}/task/{shell}/children")).unwrap();
    children
        .split_whitespace()
        .next()
        .expect("pi runs under the pane's shell")
        .to_owned()
}

#[test]
fn tui_ctrl_z_gives_the_terminal_back_and_fg_resumes_it() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    // An interactive shell with job control, as a user has: `sh -c` alone would leave pi in an
    // orphaned process group, where the kernel drops the stop signal.
    let tmux = Tmux::start_shell(&pi);
    tmux.type_text(&format!("'{PI}' --model mock/mock-model"));
    tmux.keys(&["Enter"]);
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
    tmux.type_text("fg");
    tmux.keys(&["Enter"]);
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

/// A 16×8 orange PNG.
const DOT_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAABAAAAAICAIAAAB/FOjAAAAAFElEQVR4nGP438BAEiJN9agGIhEAJ6W/gauzTuUAAAAASUVORK5CYII=";

#[test]
fn tui_draws_an_image_with_the_kitty_protocol_in_a_kitty_terminal() {
    // Sent as PNG, sized to 2 columns by 1 row, quietly.
    draws_an_image("xterm-kitty", b"\x1b_Ga=T,f=100,q=2,C=1,c=2,r=1,m=0;");
}

#[test]
fn tui_draws_an_image_as_sixel_in_a_sixel_terminal() {
    // 2 columns by 1 row of 8×16-pixel cells.
    draws_an_image("foot", b"\x1bP0;1;0q\"1;1;16;16#");
}

fn draws_an_image(term: &str, picture: &[u8]) {
    use base64::Engine as _;
    use std::io::{Read, Write};
    let pi = PiEnv::new(Api::OpenAiCompletions);
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
        let deadline = Instant::now() + Duration::from_secs(15);
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
    wait_for(picture, &mut seen);
    let text = String::from_utf8_lossy(&seen).into_owned();
    assert!(
        text.contains("[image: image/png"),
        "the placeholder names it"
    );
    stdin.write_all(b"\x04").unwrap();
    stdin.flush().unwrap();
    assert!(child.wait().unwrap().success());
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
    tmux.type_text(&format!("'{PI}' --model mock/mock-model"));
    tmux.keys(&["Enter"]);
    std::thread::sleep(Duration::from_millis(300));
    assert!(!tmux.screen().contains("0%"), "still starting");
    tmux.keys(&["C-c"]);
    // bash drops the rest of a command line an interrupt ended: ask for the code after it.
    tmux.wait_for("the prompt", |s| s.trim_end().ends_with('$'));
    tmux.type_text("echo \"[pi exited $?]\"");
    tmux.keys(&["Enter"]);
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
    tmux.keys(&["C-d"]);
    tmux.wait_text("[pi exited 0]");
}

#[test]
fn tui_shell_commands_join_the_context_unless_doubled_and_unknown_commands_send_nothing() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock.push(Turn::text("Noted the output."));
    pi.mock.push(Turn::text("A path, then."));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.type_text("!echo shown-and-sent");
    tmux.keys(&["Enter"]);
    tmux.wait_text("$ echo shown-and-sent");
    tmux.wait_for("the command's output", |s| {
        s.matches("shown-and-sent").count() >= 2
    });
    tmux.type_text("!!echo shown-not-sent");
    tmux.keys(&["Enter"]);
    tmux.wait_text("(not in the context)");
    tmux.wait_for("its output", |s| s.matches("shown-not-sent").count() >= 2);
    tmux.type_text("/nosuchcommand please");
    tmux.keys(&["Enter"]);
    tmux.wait_text("Unknown command: /nosuchcommand");
    tmux.type_text("/session");
    tmux.keys(&["Enter"]);
    tmux.wait_text("Messages: 0 user");
    assert!(
        pi.mock.requests().is_empty(),
        "nothing went to the model yet"
    );

    tmux.type_text("What did it print?");
    tmux.keys(&["Enter"]);
    tmux.wait_text("Noted the output.");
    let first = pi.mock.requests()[0].body.to_string();
    assert!(first.contains("shown-and-sent"), "{first}");
    assert!(!first.contains("shown-not-sent"), "{first}");
    // A first word holding another `/` is a path, not a command.
    tmux.type_text("/etc/hosts is a file");
    tmux.keys(&["Enter"]);
    tmux.wait_text("A path, then.");
    assert!(
        pi.mock.requests()[1]
            .body
            .to_string()
            .contains("/etc/hosts is a file")
    );
    tmux.keys(&["C-d"]);
    tmux.wait_text("[pi exited 0]");
}

#[test]
fn tui_new_starts_a_session_file_and_compact_writes_a_summary_the_next_request_starts_with() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.settings(json!({"compaction": {"keepRecentTokens": 1}}));
    pi.mock.push(Turn::text("First answer."));
    pi.mock.push(Turn::text("SUMMARY-OF-THE-TALK"));
    pi.mock.push(Turn::text("After the compaction."));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.type_text("Hello there");
    tmux.keys(&["Enter"]);
    tmux.wait_text("First answer.");
    tmux.wait_for("idle", |s| !s.contains("Working…"));
    tmux.type_text("/compact keep the greeting");
    tmux.keys(&["Enter"]);
    tmux.wait_text("Compacted:");
    let lines = pi.session_lines();
    assert!(
        lines.iter().any(|l| l["type"] == "compaction"),
        "{lines:#?}"
    );
    tmux.type_text("And now?");
    tmux.keys(&["Enter"]);
    tmux.wait_text("After the compaction.");
    let third = pi.mock.requests()[2].body.to_string();
    assert!(third.contains("SUMMARY-OF-THE-TALK"), "{third}");

    assert_eq!(pi.session_files().len(), 1);
    tmux.type_text("/new");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_text("Started a new session.");
    assert!(!screen.contains("First answer."), "{screen}");
    tmux.keys(&["C-d"]);
    tmux.wait_text("[pi exited 0]");
}

#[test]
fn tui_model_selector_switches_and_ctrl_s_saves_the_default() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let models = json!({"providers": {"mock": {
        "baseUrl": pi.mock.base_url(Api::OpenAiCompletions),
        "api": "openai-completions", "apiKey": "mock-key",
        "models": [{"id": "mock-model", "name": "Mock model"},
                   {"id": "mock-other", "name": "Other mock"}]
    }}});
    pi.write_agent_file("models.json", &models.to_string());
    pi.mock.push(Turn::text("From the other one."));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.keys(&["C-l"]);
    tmux.wait_text("Model (Enter: switch");
    tmux.type_text("other");
    tmux.wait_text("(1 of 2)");
    tmux.keys(&["C-s"]);
    tmux.wait_text("saved as the default");
    tmux.type_text("Who answers?");
    tmux.keys(&["Enter"]);
    tmux.wait_text("From the other one.");
    assert_eq!(pi.mock.requests()[0].body["model"], "mock-other");
    let settings: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(pi.agent_dir().join("settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(settings["defaultProvider"], "mock");
    assert_eq!(settings["defaultModel"], "mock-other");
    tmux.keys(&["C-d"]);
    tmux.wait_text("[pi exited 0]");
    // A fresh start, with no --model, uses the saved default.
    pi.mock.push(Turn::text("Still the other one."));
    let out = pi.run(&["-p", "And now?"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(pi.mock.requests()[1].body["model"], "mock-other");
}

#[test]
fn tui_resume_picker_continues_the_chosen_session() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock.push(Turn::text("I will remember."));
    let out = pi.run(&[
        "--model",
        "mock/mock-model",
        "-p",
        "Remember the word zebra",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    pi.mock.push(Turn::text("The word was zebra."));
    let tmux = Tmux::start(&pi, &["--model", "mock/mock-model", "-r"]);
    tmux.wait_text("Resume (type to search");
    tmux.type_text("zebra");
    tmux.wait_text("Remember the word zebra");
    tmux.keys(&["Enter"]);
    tmux.wait_text("Resumed");
    tmux.wait_text("I will remember.");
    tmux.type_text("Which word?");
    tmux.keys(&["Enter"]);
    tmux.wait_text("The word was zebra.");
    let second = pi.mock.requests()[1].body.to_string();
    assert!(second.contains("Remember the word zebra"), "{second}");
    tmux.keys(&["C-d"]);
    tmux.wait_text("[pi exited 0]");
    drop(tmux);

    // The same list from /resume in a running UI.
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.type_text("/resume");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_text("Resume (type to search");
    tmux.wait_for("the session in the list", |s| {
        s.lines()
            .any(|l| l.trim_start().starts_with("Remember the word zebra"))
    });
    assert!(!screen.contains("[pi exited"), "{screen}");
    // Rename it, see the name in the list, then delete it (recoverably).
    tmux.keys(&["C-r"]);
    tmux.wait_text("New name for the session:");
    tmux.type_text("zebra talk");
    tmux.keys(&["Enter"]);
    tmux.wait_text("Renamed the session to \"zebra talk\".");
    tmux.type_text("/resume");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the new name", |s| {
        s.lines().any(|l| l.trim_start().starts_with("zebra talk"))
    });
    let before = pi.session_files().len();
    tmux.keys(&["C-d"]);
    tmux.wait_text("Moved the session to");
    assert_eq!(pi.session_files().len(), before - 1);
    tmux.keys(&["Escape"]);
    tmux.wait_for("the list closed", |s| !s.contains("Resume (type to search"));
    tmux.keys(&["C-d"]);
    tmux.wait_text("[pi exited 0]");
}

#[test]
fn tui_login_stores_a_hidden_api_key_with_mode_0600_logout_removes_it_and_trust_is_saved() {
    use std::os::unix::fs::PermissionsExt;
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.type_text("/login");
    tmux.keys(&["Enter"]);
    tmux.wait_text("Log in to");
    tmux.type_text("mock");
    tmux.keys(&["Enter"]);
    tmux.wait_text("API key for mock:");
    tmux.type_text("sk-secret-123");
    let screen = tmux.wait_text("•••••••••••••");
    assert!(
        !screen.contains("sk-secret-123"),
        "the key is never shown:\n{screen}"
    );
    tmux.keys(&["Enter"]);
    tmux.wait_text("Stored the API key for mock");
    let auth = pi.agent_dir().join("auth.json");
    let mode = std::fs::metadata(&auth).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let stored: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&auth).unwrap()).unwrap();
    assert_eq!(
        stored["mock"],
        json!({"type": "api_key", "key": "sk-secret-123"})
    );

    tmux.type_text("/logout mock");
    tmux.keys(&["Enter"]);
    tmux.wait_text("Removed the credential of mock.");
    let stored: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&auth).unwrap()).unwrap();
    assert!(stored.get("mock").is_none(), "{stored}");

    tmux.type_text("/trust");
    tmux.keys(&["Enter"]);
    tmux.wait_text("trusted from the next start");
    let trust: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(pi.agent_dir().join("trust.json")).unwrap())
            .unwrap();
    let cwd = std::fs::canonicalize(pi.cwd()).unwrap();
    assert_eq!(trust[cwd.to_str().unwrap()], true, "{trust}");
    tmux.keys(&["C-d"]);
    tmux.wait_text("[pi exited 0]");
}

#[test]
fn tui_uses_a_json_theme_and_reloads_it_when_the_file_changes() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let themes = pi.agent_dir().join("themes");
    std::fs::create_dir_all(&themes).unwrap();
    let theme = |accent: &str| {
        format!(
            r#"{{"name": "sunset", "vars": {{"sun": "{accent}"}}, "colors": {{"accent": "sun", "nosuchtoken": 1}}}}"#
        )
    };
    std::fs::write(themes.join("sunset.json"), theme("#ff8800")).unwrap();
    pi.settings(json!({"theme": "sunset"}));
    pi.mock.push(Turn::text("Coloured."));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.wait_text("unknown colour token \"nosuchtoken\"");
    tmux.type_text("Hello");
    tmux.keys(&["Enter"]);
    tmux.wait_text("Coloured.");
    // The pane is a 256-colour terminal: colours come fitted to its palette.
    let coloured = |index: &str| {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let styled = tmux.run(&["capture-pane", "-e", "-p", "-t", "0"]);
            // The prompt's `›` is drawn in the accent colour.
            if styled.contains(&format!("38;5;{index}m› ")) {
                return;
            }
            assert!(Instant::now() < deadline, "no accent {index}:\n{styled:?}");
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    coloured("208"); // #ff8800
    // Edited while pi runs: the new colours show without a restart.
    std::thread::sleep(Duration::from_millis(1100));
    std::fs::write(themes.join("sunset.json"), theme("#00ff88")).unwrap();
    coloured("48"); // #00ff88
    tmux.keys(&["C-d"]);
    tmux.wait_text("[pi exited 0]");
}

#[test]
fn tui_settings_editor_saves_each_change_at_once() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.type_text("/settings");
    tmux.keys(&["Enter"]);
    tmux.wait_text("theme: dark");
    tmux.keys(&["Enter"]);
    tmux.wait_text("theme: light");
    tmux.keys(&["Down"]);
    tmux.keys(&["Enter"]);
    tmux.wait_text("hideThinkingBlock: true");
    let settings: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(pi.agent_dir().join("settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(settings["theme"], "light");
    assert_eq!(settings["hideThinkingBlock"], true);
    tmux.keys(&["Escape"]);
    tmux.wait_for("closed", |s| !s.contains("Settings (Enter"));
    tmux.keys(&["C-d"]);
    tmux.wait_text("[pi exited 0]");
}

#[test]
fn tui_tree_navigator_branches_with_a_summary_of_the_branch_left() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock.push(Turn::text("First answer."));
    pi.mock.push(Turn::text("Second answer."));
    pi.mock
        .push(Turn::text("BRANCH-SUMMARY of the second exchange"));
    pi.mock.push(Turn::text("A new direction."));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.type_text("first question");
    tmux.keys(&["Enter"]);
    tmux.wait_text("First answer.");
    tmux.type_text("second question");
    tmux.keys(&["Enter"]);
    tmux.wait_text("Second answer.");
    tmux.wait_for("idle", |s| !s.contains("Working…"));

    tmux.type_text("/tree");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_text("Tree, default");
    assert!(screen.contains("you: second question"), "{screen}");
    // Fold the first prompt: everything after it is under it.
    tmux.type_text("first question");
    tmux.wait_text("(1 of");
    tmux.keys(&["C-Left"]);
    let folded = tmux.wait_text("▸ you: first question");
    assert!(!folded.contains("pi: Second answer."), "{folded}");
    tmux.keys(&["C-Right"]);
    tmux.wait_text("pi: Second answer.");
    tmux.keys(&["C-u"]);
    tmux.wait_text("Tree, user only");
    // Label the selected entry (the last prompt).
    tmux.keys(&["L"]);
    tmux.wait_text("Label (empty clears it):");
    tmux.type_text("checkpoint");
    tmux.keys(&["Enter"]);
    tmux.wait_text("Labelled \"checkpoint\".");
    assert!(
        pi.session_lines()
            .iter()
            .any(|l| l["type"] == "label" && l["label"] == "checkpoint")
    );
    tmux.type_text("/tree");
    tmux.keys(&["Enter"]);
    tmux.wait_text("[checkpoint]");
    tmux.keys(&["C-u"]);
    tmux.wait_text("Tree, user only");
    tmux.type_text("first");
    tmux.wait_text("(1 of 2)");
    tmux.keys(&["M-Enter"]);
    tmux.wait_text("│first question");
    tmux.keys(&["C-u"]);
    tmux.type_text("another way");
    tmux.keys(&["Enter"]);
    tmux.wait_text("A new direction.");

    let lines = pi.session_lines();
    assert!(
        lines.iter().any(|l| l["type"] == "branch_summary"),
        "{lines:#?}"
    );
    let parents: Vec<&str> = lines
        .iter()
        .filter_map(|l| l["parentId"].as_str())
        .collect();
    let shared = parents
        .iter()
        .any(|p| parents.iter().filter(|q| *q == p).count() == 2);
    assert!(shared, "one entry has two children: {lines:#?}");
    tmux.keys(&["C-d"]);
    tmux.wait_text("[pi exited 0]");
}

#[test]
fn tui_import_continues_a_session_from_a_file() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock
        .push(Turn::text("Noted: the password is swordfish."));
    let out = pi.run(&["--model", "mock/mock-model", "-p", "Remember swordfish"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let original = pi.session_files().remove(0);
    let exported = pi.cwd().join("exported.jsonl");
    std::fs::rename(&original, &exported).unwrap();
    pi.mock.push(Turn::text("It was swordfish."));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.type_text("/import exported.jsonl");
    tmux.keys(&["Enter"]);
    tmux.wait_text("Noted: the password is swordfish.");
    tmux.type_text("What was it?");
    tmux.keys(&["Enter"]);
    tmux.wait_text("It was swordfish.");
    assert!(
        pi.mock.requests()[1]
            .body
            .to_string()
            .contains("Remember swordfish")
    );
    tmux.type_text("/import nothing-here.jsonl");
    tmux.keys(&["Enter"]);
    tmux.wait_text("Cannot import");
    tmux.keys(&["C-d"]);
    tmux.wait_text("[pi exited 0]");
}

#[test]
fn tui_skill_commands_expand_and_enable_skill_commands_turns_them_off() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let skill = pi.agent_dir().join("skills").join("greet");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: greet\ndescription: Greets warmly.\n---\nSay GREETINGS-FROM-THE-SKILL first.\n",
    )
    .unwrap();
    pi.mock.push(Turn::text("Greeted."));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.type_text("/skill:greet the team");
    tmux.keys(&["Enter"]);
    tmux.wait_text("Greeted.");
    let body = pi.mock.requests()[0].body.to_string();
    assert!(body.contains("GREETINGS-FROM-THE-SKILL"), "{body}");
    tmux.keys(&["C-d"]);
    tmux.wait_text("[pi exited 0]");
    drop(tmux);

    pi.settings(json!({"enableSkillCommands": false}));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.type_text("/skill:greet the team");
    tmux.keys(&["Enter"]);
    tmux.wait_text("skill commands are off");
    assert_eq!(pi.mock.requests().len(), 1, "nothing more was sent");
    tmux.keys(&["C-d"]);
    tmux.wait_text("[pi exited 0]");
}

#[test]
fn tui_scoped_models_editor_sets_what_ctrl_p_cycles_through() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let models = json!({"providers": {"mock": {
        "baseUrl": pi.mock.base_url(Api::OpenAiCompletions),
        "api": "openai-completions", "apiKey": "mock-key",
        "models": [{"id": "mock-a"}, {"id": "mock-b"}, {"id": "mock-c"}]
    }}});
    pi.write_agent_file("models.json", &models.to_string());
    pi.mock.push(Turn::text("C answers."));
    let tmux = Tmux::start(&pi, &["--model", "mock/mock-a"]);
    tmux.wait_text("0%");
    tmux.type_text("/scoped-models");
    tmux.keys(&["Enter"]);
    tmux.wait_text("[ ] mock/mock-a");
    tmux.keys(&["Enter"]);
    tmux.wait_text("[x] mock/mock-a");
    tmux.keys(&["Down"]);
    tmux.keys(&["Down"]);
    tmux.keys(&["Enter"]);
    tmux.wait_text("[x] mock/mock-c");
    tmux.keys(&["C-s"]);
    tmux.wait_text("Saved the models Ctrl+P cycles through");
    let settings: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(pi.agent_dir().join("settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        settings["enabledModels"],
        json!(["mock/mock-a", "mock/mock-c"])
    );
    tmux.keys(&["C-p"]);
    tmux.wait_text("Model: mock/mock-c");
    tmux.type_text("Who?");
    tmux.keys(&["Enter"]);
    tmux.wait_text("C answers.");
    assert_eq!(pi.mock.requests()[0].body["model"], "mock-c");
    tmux.keys(&["C-d"]);
    tmux.wait_text("[pi exited 0]");
}

#[test]
fn tui_fork_starts_a_new_session_file_from_an_earlier_prompt() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock.push(Turn::text("First answer."));
    pi.mock.push(Turn::text("Second answer."));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    tmux.type_text("first question");
    tmux.keys(&["Enter"]);
    tmux.wait_text("First answer.");
    tmux.type_text("second question");
    tmux.keys(&["Enter"]);
    tmux.wait_text("Second answer.");
    tmux.wait_for("idle", |s| !s.contains("Working…"));
    assert_eq!(pi.session_files().len(), 1);
    tmux.type_text("/fork");
    tmux.keys(&["Enter"]);
    tmux.wait_text("Fork from which prompt?");
    tmux.keys(&["Down"]);
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_text("│first question");
    assert!(!screen.contains("First answer."), "{screen}");
    tmux.keys(&["C-u"]);
    pi.mock.push(Turn::text("Forked answer."));
    tmux.type_text("first question, again");
    tmux.keys(&["Enter"]);
    tmux.wait_text("Forked answer.");
    assert_eq!(pi.session_files().len(), 2, "the fork is a file of its own");
    tmux.keys(&["C-d"]);
    tmux.wait_text("[pi exited 0]");
}

#[test]
fn tui_reload_picks_up_a_skill_added_while_running() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock.push(Turn::text("Used the new skill."));
    let tmux = pi_in_tmux(&pi, FULLSCREEN);
    let skill = pi.agent_dir().join("skills").join("fresh");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: fresh\ndescription: Added later.\n---\nSay FRESH-SKILL-BODY.\n",
    )
    .unwrap();
    tmux.type_text("/skill:fresh now");
    tmux.keys(&["Enter"]);
    tmux.wait_text("Unknown command: /skill:fresh");
    tmux.type_text("/reload");
    tmux.keys(&["Enter"]);
    tmux.wait_text("Reloaded skills (1)");
    tmux.type_text("/skill:fresh now");
    tmux.keys(&["Enter"]);
    tmux.wait_text("Used the new skill.");
    let body = pi.mock.requests()[0].body.to_string();
    assert!(body.contains("FRESH-SKILL-BODY"), "{body}");
    // The system prompt lists it too.
    assert!(body.contains("fresh"), "{body}");
    tmux.keys(&["C-d"]);
    tmux.wait_text("[pi exited 0]");
}

#[test]
fn tui_first_run_picks_the_light_theme_on_a_light_terminal_and_remembers_it() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let tmux = Tmux::start_shell(&pi);
    // tmux answers the background query with the pane's colour.
    tmux.run(&["set", "-g", "window-style", "bg=#ffffff"]);
    tmux.type_text(&format!("'{PI}' --model mock/mock-model"));
    tmux.keys(&["Enter"]);
    tmux.wait_text("0%");
    let settings: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(pi.agent_dir().join("settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(settings["theme"], "light");
    tmux.keys(&["C-d"]);
    tmux.wait_for("the shell's prompt again", |s| s.trim_end().ends_with('$'));
}
