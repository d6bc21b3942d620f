//! The harness of the interactive UI's tests: `pi` inside tmux (a server of its own per
//! test) against the mock LLM; keys go in with `send-keys`, the screen comes back with
//! `capture-pane`.

use super::cli_support::*;
use std::process::Command;
use std::time::{Duration, Instant};

pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// Starts `pi <args>` in a detached 100×30 window. When pi exits, the pane prints its exit
    /// code and stays, so the test can read what was left on the screen.
    pub fn start(pi: &PiEnv, args: &[&str]) -> Tmux {
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
    pub fn start_shell(pi: &PiEnv) -> Tmux {
        let tmux = Tmux::spawn(pi, "PS1='$ ' exec bash --norc --noprofile -i");
        tmux.wait_text("$");
        tmux
    }

    /// Runs `command` in a detached 100×30 window, in the test's directories and a clean
    /// environment.
    pub fn spawn(pi: &PiEnv, command: &str) -> Tmux {
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

    pub fn run(&self, args: &[&str]) -> String {
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

    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "0"];
        args.extend_from_slice(keys);
        self.run(&args);
    }

    /// Types `text` and presses Enter.
    pub fn submit(&self, text: &str) {
        self.type_text(text);
        self.keys(&["Enter"]);
    }

    /// Ctrl+D on an empty editor, and pi's exit code 0.
    pub fn exit(&self) {
        self.keys(&["C-d"]);
        self.wait_text("[pi exited 0]");
    }

    /// Types `text` literally (no key names).
    pub fn type_text(&self, text: &str) {
        self.run(&["send-keys", "-t", "0", "-l", text]);
    }

    pub fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "0"])
    }

    /// The pane's whole history: scrollback and screen.
    pub fn history(&self) -> String {
        self.run(&["capture-pane", "-p", "-S", "-", "-t", "0"])
    }

    /// The screen with its colours and attributes as escape sequences.
    pub fn styled_screen(&self) -> String {
        self.run(&["capture-pane", "-e", "-p", "-t", "0"])
    }

    /// Waits until the styled screen holds `needle` (an escape sequence and the text it styles).
    pub fn wait_styled(&self, needle: &str) -> String {
        self.wait_until(needle, || self.styled_screen(), |s| s.contains(needle))
    }

    pub fn wait_for(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        self.wait_until(what, || self.screen(), pred)
    }

    /// How long a wait gives the screen before the test fails. Generous: a wait ends as soon
    /// as the screen shows what it waits for, and a loaded CI machine compiles the first
    /// tool component of a fresh agent directory in seconds.
    pub const SCREEN_WAIT: Duration = Duration::from_secs(60);

    fn wait_until(
        &self,
        what: &str,
        capture: impl Fn() -> String,
        pred: impl Fn(&str) -> bool,
    ) -> String {
        let deadline = Instant::now() + Self::SCREEN_WAIT;
        loop {
            let screen = capture();
            if pred(&screen) {
                return screen;
            }
            if Instant::now() > deadline {
                panic!("timed out waiting for {what}; screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn wait_text(&self, text: &str) -> String {
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
pub const FULLSCREEN: &str = "fullscreen";
pub const REGULAR: &str = "regular";

pub fn pi_in_tmux(pi: &PiEnv, layout: &str) -> Tmux {
    let tmux = Tmux::start(pi, &["--model", "mock/mock-model", "--tui-mode", layout]);
    tmux.wait_text("0%");
    tmux
}

pub fn modes(tmux: &Tmux) -> String {
    let modes = tmux.run(&[
        "display-message",
        "-p",
        "-t",
        "0",
        "#{alternate_on} #{cursor_flag}",
    ]);
    modes.trim().to_owned()
}

/// The pid of pi, the child of the pane's shell.
pub fn pi_pid(tmux: &Tmux) -> String {
    let shell = tmux.run(&["display-message", "-p", "-t", "0", "#{pane_pid}"]);
    let shell = shell.trim();
    let children = std::fs::read_to_string(format!("/proc/{shell}/task/{shell}/children")).unwrap();
    children
        .split_whitespace()
        .next()
        .expect("pi runs under the pane's shell")
        .to_owned()
}

/// A 16×8 orange PNG.
pub const DOT_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAABAAAAAICAIAAAB/FOjAAAAAFElEQVR4nGP438BAEiJN9agGIhEAJ6W/gauzTuUAAAAASUVORK5CYII=";

/// The global settings.json as it is on disk now.
pub fn settings_json(pi: &PiEnv) -> serde_json::Value {
    let text = std::fs::read_to_string(pi.agent_dir().join("settings.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}
