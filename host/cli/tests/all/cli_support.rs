//! Running the real `pi` binary against the mock LLM server: a temp agent dir whose
//! models.json points provider `mock` at the server, a temp workspace as the working
//! directory, and an environment without any real credentials.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use pi_mock_llm::{Api, MockLlm};
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use tempfile::TempDir;

pub const PI: &str = env!("CARGO_BIN_EXE_pi");

/// Gives the child the default SIGINT / SIGQUIT actions. A command a non-interactive shell
/// starts in the background inherits both ignored, and so would every pi a test starts: a
/// test of what Ctrl-C does must not depend on how the suite was launched.
fn default_interrupts(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec the closure only calls `signal`, which is
    // async-signal-safe, and allocates nothing.
    #[allow(unsafe_code)]
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::signal(libc::SIGQUIT, libc::SIG_DFL);
            Ok(())
        });
    }
}

/// One isolated pi installation plus a mock server.
pub struct PiEnv {
    pub mock: MockLlm,
    pub root: TempDir,
}

impl PiEnv {
    /// A mock speaking `api`, a models.json pointing provider `mock` at it.
    pub fn new(api: Api) -> PiEnv {
        let env = PiEnv::empty();
        let models = json!({"providers": {"mock": {
            "baseUrl": env.mock.base_url(api),
            "api": api.as_str(),
            "apiKey": "mock-key",
            "compat": {"thinkingFormat": "openai"},
            "models": [{"id": "mock-model", "name": "Mock model", "reasoning": true,
                        "input": ["text", "image"], "contextWindow": 200000, "maxTokens": 32000}]
        }}});
        env.write_agent_file("models.json", &models.to_string());
        env
    }

    /// Adds a model `id` to the `mock` provider of models.json.
    pub fn add_mock_model(&self, id: &str) {
        let path = self.agent_dir().join("models.json");
        let mut models: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        models["providers"]["mock"]["models"]
            .as_array_mut()
            .unwrap()
            .push(json!({"id": id, "name": id, "contextWindow": 100000, "maxTokens": 8000}));
        std::fs::write(path, models.to_string()).unwrap();
    }

    /// No models.json, no credentials.
    pub fn empty() -> PiEnv {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("agent")).unwrap();
        std::fs::create_dir_all(root.path().join("work")).unwrap();
        std::fs::create_dir_all(root.path().join("home")).unwrap();
        PiEnv {
            mock: MockLlm::start(),
            root,
        }
    }

    pub fn agent_dir(&self) -> PathBuf {
        self.root.path().join("agent")
    }

    pub fn cwd(&self) -> PathBuf {
        self.root.path().join("work")
    }

    pub fn write_agent_file(&self, name: &str, text: &str) {
        std::fs::write(self.agent_dir().join(name), text).unwrap();
    }

    /// `settings.json` of the agent dir.
    pub fn settings(&self, value: Value) {
        self.write_agent_file("settings.json", &value.to_string());
    }

    /// The command with a clean environment (PATH kept for the shell tool).
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(PI);
        cmd.args(args)
            .current_dir(self.cwd())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.root.path().join("home"))
            .env("PI_CODING_AGENT_DIR", self.agent_dir())
            // No probing of the well-known local-server ports unless a test asks for it.
            .env(pi_app::local_servers::PORTS_ENV, "")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        default_interrupts(&mut cmd);
        cmd
    }

    /// Approves the package placed by hand in `dir` as its user would (`pi ext approve --yes`):
    /// without that it runs with no capabilities.
    pub fn approve(&self, dir: &Path) {
        let out = self.run(&["ext", "approve", &dir.to_string_lossy(), "--yes"]);
        assert_eq!(out.status.code(), Some(0), "approve: {}", stderr(&out));
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// Runs with `stdin` piped in.
    pub fn run_with_stdin(&self, args: &[&str], stdin: &str) -> Output {
        let mut child = self.command(args).stdin(Stdio::piped()).spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    }

    /// Starts pi in the background (stdin empty).
    pub fn spawn(&self, args: &[&str]) -> Child {
        self.command(args).spawn().unwrap()
    }

    /// Starts pi with stdin as a pipe the test writes to (RPC mode).
    pub fn spawn_piped(&self, args: &[&str]) -> Child {
        self.command(args).stdin(Stdio::piped()).spawn().unwrap()
    }

    /// Every session file written under the agent dir.
    pub fn session_files(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        collect_jsonl(&self.agent_dir().join("sessions"), &mut out);
        out.sort();
        out
    }

    /// The compiled components in the agent dir's cache, with their modification times (a
    /// run that compiled nothing leaves them as they were).
    pub fn compiled_components(
        &self,
    ) -> std::collections::BTreeMap<PathBuf, std::time::SystemTime> {
        std::fs::read_dir(self.agent_dir().join("cache/components"))
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "cwasm"))
            .map(|e| (e.path(), e.metadata().unwrap().modified().unwrap()))
            .collect()
    }

    /// The entries of the only session file whose `type` is `entry_type`.
    pub fn session_entries(&self, entry_type: &str) -> Vec<Value> {
        self.session_lines()
            .into_iter()
            .filter(|l| l["type"] == entry_type)
            .collect()
    }

    /// The only session file, parsed line by line (each line must be JSON).
    pub fn session_lines(&self) -> Vec<Value> {
        let files = self.session_files();
        assert_eq!(files.len(), 1, "expected one session file: {files:?}");
        read_jsonl(&files[0])
    }
}

fn collect_jsonl(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in read.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_jsonl(&path, out);
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            out.push(path);
        }
    }
}

pub fn read_jsonl(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.ends_with('\n'), "last line not terminated: {path:?}");
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad line {l}: {e}")))
        .collect()
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The `message` entries' messages, in order.
pub fn messages(lines: &[Value]) -> Vec<&Value> {
    message_entries(lines)
        .filter(|m| m["role"] != "system")
        .collect()
}

/// The recorded system prompts (pi 1.6's `role: "system"` messages) of a session file.
pub fn system_messages(lines: &[Value]) -> Vec<&Value> {
    message_entries(lines)
        .filter(|m| m["role"] == "system")
        .collect()
}

fn message_entries(lines: &[Value]) -> impl Iterator<Item = &Value> {
    lines
        .iter()
        .filter(|l| l["type"] == "message")
        .map(|l| &l["message"])
}

/// Checks the session file is a complete tree: header first, every entry's parent exists.
pub fn assert_complete_session(lines: &[Value]) {
    assert_eq!(lines[0]["type"], "session", "header first");
    let mut seen = std::collections::HashSet::new();
    for entry in &lines[1..] {
        let id = entry["id"].as_str().expect("entry id");
        match &entry["parentId"] {
            Value::Null => {}
            Value::String(parent) => assert!(seen.contains(parent.as_str()), "orphan {entry}"),
            other => panic!("bad parentId {other}"),
        }
        seen.insert(id.to_owned());
    }
}
