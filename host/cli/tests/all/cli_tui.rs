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
        let socket = format!("pi-test-{}-{}", std::process::id(), fastrand::u64(..));
        let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
        let script = format!(
            "cd '{cwd}' && env -i PATH=\"$PATH\" TERM=xterm-256color HOME='{home}' \
             PI_CODING_AGENT_DIR='{agent}' '{PI}' {args}; echo \"[pi exited $?]\"; sleep 600",
            cwd = pi.cwd().display(),
            home = pi.root.path().join("home").display(),
            agent = pi.agent_dir().display(),
            args = quoted.join(" "),
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

fn pi_in_tmux(pi: &PiEnv) -> Tmux {
    let tmux = Tmux::start(pi, &["--model", "mock/mock-model"]);
    tmux.wait_text("0%");
    tmux
}

#[test]
fn tui_streams_an_answer_runs_a_tool_and_exits_with_the_terminal_restored() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock
        .push(Turn::new().tool_call("c1", "bash", json!({"command": "echo tool-ran-here"})));
    pi.mock.push(
        Turn::text("The tool said tool-ran-here. Done.")
            .chunk(4)
            .delay_between_events(Duration::from_millis(20)),
    );
    let tmux = pi_in_tmux(&pi);
    tmux.type_text("Run the tool please");
    tmux.keys(&["Enter"]);
    tmux.wait_text("bash $ echo tool-ran-here");
    let screen = tmux.wait_text("The tool said tool-ran-here. Done.");
    assert!(screen.contains("› Run the tool please"), "{screen}");
    // Resizing keeps the transcript readable.
    tmux.run(&["resize-window", "-t", "0", "-x", "60", "-y", "20"]);
    tmux.wait_for("the narrower screen", |s| {
        s.lines().all(|l| l.chars().count() <= 60) && s.contains("Done.")
    });

    tmux.keys(&["C-c"]);
    tmux.wait_text("Press Ctrl+C again to exit");
    tmux.keys(&["C-c"]);
    tmux.wait_text("[pi exited 0]");
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
    let history = tmux.history();
    assert!(history.contains("› Run the tool please"), "{history}");
    assert!(
        history.contains("The tool said tool-ran-here. Done."),
        "{history}"
    );

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
fn tui_steering_reaches_the_next_request_and_esc_aborts_a_stalled_stream() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    pi.mock
        .push(Turn::new().tool_call("c1", "bash", json!({"command": "sleep 1.5"})));
    pi.mock.push(Turn::text("Steered."));
    pi.mock.push(
        Turn::text("this answer stalls after a few words and never finishes")
            .chunk(5)
            .delay_between_events(Duration::from_secs(3)),
    );
    let tmux = pi_in_tmux(&pi);
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
}

#[test]
fn tui_sigterm_restores_the_terminal_and_the_unsent_text_comes_back() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let tmux = pi_in_tmux(&pi);
    tmux.type_text("words I have not sent yet");
    tmux.wait_text("words I have not sent yet");
    let shell = tmux.run(&["display-message", "-p", "-t", "0", "#{pane_pid}"]);
    let shell = shell.trim();
    let children = std::fs::read_to_string(format!("/proc/{shell}/task/{shell}/children")).unwrap();
    let pid = children
        .split_whitespace()
        .next()
        .expect("pi runs under the pane's shell")
        .to_owned();
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

    let again = pi_in_tmux(&pi);
    let screen = again.wait_text("Restored the text you had not sent last time.");
    assert!(screen.contains("│words I have not sent yet"), "{screen}");
}
