//! What the cli benchmarks share: a scratch home whose agent dir's models.json points at the
//! in-process mock LLM, and the run count.

use pi_mock_llm::{Api, MockLlm};
use serde_json::json;
use std::path::PathBuf;

pub struct Dirs {
    pub agent: PathBuf,
    pub cwd: PathBuf,
    pub home: PathBuf,
    _root: tempfile::TempDir,
}

impl Dirs {
    /// A fresh agent dir, working dir and home, with `mock/mock-model` configured.
    pub fn new(mock: &MockLlm) -> Dirs {
        let root = tempfile::tempdir().unwrap();
        let dirs = Dirs {
            agent: root.path().join("agent"),
            cwd: root.path().join("work"),
            home: root.path().join("home"),
            _root: root,
        };
        for dir in [&dirs.agent, &dirs.cwd, &dirs.home] {
            std::fs::create_dir_all(dir).unwrap();
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

/// `PI_BENCH_RUNS`, else `default`.
pub fn runs(default: usize) -> usize {
    std::env::var("PI_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
