//! What the cli benchmarks share: a scratch home whose agent dir's models.json points at the
//! in-process mock LLM, and the run count.

use pi_mock_llm::{Api, MockLlm};
use serde_json::json;
use std::path::PathBuf;

pub struct Dirs {
    pub agent: PathBuf,
    pub cwd: PathBuf,
    pub home: PathBuf,
    /// `PATH` for the runs: a folder with stand-ins for `fd` and `rg` first (the TypeScript pi
    /// would otherwise try to download them at every start), then the caller's.
    pub path: std::ffi::OsString,
    _root: tempfile::TempDir,
}

impl Dirs {
    /// A fresh agent dir, working dir and home, with `mock/mock-model` configured.
    pub fn new(mock: &MockLlm) -> Dirs {
        let root = tempfile::tempdir().unwrap();
        let bin = root.path().join("bin");
        let mut path = bin.clone().into_os_string();
        path.push(":");
        path.push(std::env::var_os("PATH").unwrap_or_default());
        let dirs = Dirs {
            agent: root.path().join("agent"),
            cwd: root.path().join("work"),
            home: root.path().join("home"),
            path,
            _root: root,
        };
        for dir in [&dirs.agent, &dirs.cwd, &dirs.home, &bin] {
            std::fs::create_dir_all(dir).unwrap();
        }
        for tool in ["fd", "rg"] {
            use std::os::unix::fs::PermissionsExt;
            let stand_in = bin.join(tool);
            std::fs::write(&stand_in, "#!/bin/sh\necho \"$0 1.0.0\"\n").unwrap();
            std::fs::set_permissions(&stand_in, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let models = json!({"providers": {"mock": {
            "baseUrl": mock.base_url(Api::OpenAiCompletions),
            "api": "openai-completions", "apiKey": "bench",
            "models": [{"id": "mock-model", "contextWindow": 200000}]
        }}});
        std::fs::write(dirs.agent.join("models.json"), models.to_string()).unwrap();
        dirs
    }
}

impl Dirs {
    /// Runs in these directories with a clean environment: the working dir, `PATH`, `HOME`
    /// and the agent dir set; stdin empty, stdout dropped, stderr kept.
    // Each bench compiles this module; the tui bench starts pi through `script` instead.
    #[allow(dead_code)]
    pub fn apply<'a>(&self, cmd: &'a mut std::process::Command) -> &'a mut std::process::Command {
        use std::process::Stdio;
        cmd.current_dir(&self.cwd)
            .env_clear()
            .env("PATH", &self.path)
            .env("HOME", &self.home)
            .env("PI_CODING_AGENT_DIR", &self.agent)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
    }
}

/// The median of `times`, in milliseconds.
#[allow(dead_code)] // not every bench takes medians of durations
pub fn median_ms(mut times: Vec<std::time::Duration>) -> f64 {
    times.sort();
    times[times.len() / 2].as_secs_f64() * 1000.0
}

/// `PI_BENCH_RUNS`, else `default`.
pub fn runs(default: usize) -> usize {
    std::env::var("PI_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
