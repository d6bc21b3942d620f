//! A test rig for the session behind an `App`: the mock LLM server over real HTTP, a session
//! file in a temp dir, settings from JSON, a recording clock and an event recorder.

use pi_agent::BoxFuture;
use pi_ai::{AuthStorage, Credential, Model, ModelRegistry};
use pi_app::{AgentSessionOptions, App, AppError, AppEvent, SessionEvent};
use pi_mock_llm::{Api, MockLlm};
use pi_session::prompt_templates::PromptTemplates;
use pi_session::retry::Sleeper;
use pi_session::session::SessionManager;
use pi_session::settings::SettingsManager;
use pi_session::skills::SkillRegistry;
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Records every requested wait. `block` makes waits never finish (for abort tests).
#[derive(Default)]
pub struct RecordingSleeper {
    pub sleeps: Mutex<Vec<Duration>>,
    pub block: bool,
}

impl Sleeper for RecordingSleeper {
    fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()> {
        self.sleeps.lock().unwrap().push(duration);
        if self.block {
            Box::pin(std::future::pending())
        } else {
            Box::pin(async {})
        }
    }
}

pub struct Rig {
    pub mock: MockLlm,
    pub app: Arc<App>,
    /// Every event but `entry_appended` (the session's behaviour, not the file's bookkeeping).
    pub events: Arc<Mutex<Vec<AppEvent>>>,
    pub sleeper: Arc<RecordingSleeper>,
    pub dir: tempfile::TempDir,
}

type ModelEdit = Box<dyn Fn(&mut Model)>;
type Seed = Box<dyn Fn(&mut SessionManager)>;

pub struct RigBuilder {
    pub api: Api,
    pub settings: Value,
    pub model: Option<ModelEdit>,
    pub block_sleep: bool,
    pub real_clock: bool,
    pub seed: Option<Seed>,
    pub tools: Vec<Arc<dyn pi_agent::AgentTool>>,
    pub system_prompt: Vec<pi_session::system_prompt::PromptSection>,
}

impl RigBuilder {
    pub fn new(api: Api) -> Self {
        RigBuilder {
            api,
            settings: serde_json::json!({}),
            model: None,
            block_sleep: false,
            real_clock: false,
            seed: None,
            tools: Vec::new(),
            system_prompt: Vec::new(),
        }
    }

    pub fn settings(mut self, settings: Value) -> Self {
        self.settings = settings;
        self
    }

    /// `compaction.keepRecentTokens`: how much of the conversation a compaction keeps.
    pub fn keep_recent_tokens(self, tokens: u64) -> Self {
        self.settings(serde_json::json!({"compaction": {"keepRecentTokens": tokens}}))
    }

    pub fn model(mut self, f: impl Fn(&mut Model) + 'static) -> Self {
        self.model = Some(Box::new(f));
        self
    }

    pub fn seed(mut self, f: impl Fn(&mut SessionManager) + 'static) -> Self {
        self.seed = Some(Box::new(f));
        self
    }

    pub fn tool(mut self, tool: Arc<dyn pi_agent::AgentTool>) -> Self {
        self.tools.push(tool);
        self
    }

    /// The system prompt, as named sections.
    pub fn system_prompt(
        mut self,
        sections: Vec<pi_session::system_prompt::PromptSection>,
    ) -> Self {
        self.system_prompt = sections;
        self
    }

    pub fn block_sleep(mut self) -> Self {
        self.block_sleep = true;
        self
    }

    pub fn real_clock(mut self) -> Self {
        self.real_clock = true;
        self
    }

    pub fn build(self) -> Rig {
        let mock = MockLlm::start();
        let dir = tempfile::tempdir().unwrap();
        let mut session = SessionManager::create(dir.path(), dir.path());
        if let Some(seed) = &self.seed {
            seed(&mut session);
        }
        self.build_with(mock, session, dir)
    }

    pub fn build_with(self, mock: MockLlm, session: SessionManager, dir: tempfile::TempDir) -> Rig {
        let mut model = mock.model(self.api);
        if let Some(f) = &self.model {
            f(&mut model);
        }
        let settings = SettingsManager::from_values(self.settings.clone(), serde_json::json!({}));
        let auth = AuthStorage::in_memory();
        auth.set("mock", &Credential::api_key("test-key")).unwrap();
        let sleeper = Arc::new(RecordingSleeper {
            block: self.block_sleep,
            ..Default::default()
        });
        let auth = Arc::new(auth);
        let mut options = AgentSessionOptions::new(session, settings, model);
        options.auth = Arc::clone(&auth);
        options.tools = self.tools.clone();
        options.system_prompt = self.system_prompt.clone();
        if !self.real_clock {
            options.sleeper = Some(sleeper.clone());
        }
        let app = Arc::new(App::from_options(
            options,
            Arc::new(ModelRegistry::builtin()),
            auth,
            Vec::new(),
            SkillRegistry::default(),
            PromptTemplates::default(),
        ));
        let events = Arc::new(Mutex::new(Vec::new()));
        let sink = events.clone();
        app.subscribe_fn(move |e| {
            if !matches!(e, AppEvent::Session(SessionEvent::EntryAppended { .. })) {
                sink.lock().unwrap().push(e.clone());
            }
        });
        Rig {
            mock,
            app,
            events,
            sleeper,
            dir,
        }
    }
}

impl Rig {
    pub fn events(&self) -> Vec<AppEvent> {
        self.events.lock().unwrap().clone()
    }

    /// Event types, `message_update` left out, message roles appended
    /// (`message_end:assistant`), compaction reasons appended (`compaction_start:overflow`).
    pub fn trace(&self) -> Vec<String> {
        self.events()
            .iter()
            .filter(|e| e.kind() != "message_update")
            .map(describe)
            .collect()
    }

    pub fn session_events(&self) -> Vec<SessionEvent> {
        self.events()
            .into_iter()
            .filter_map(|e| match e {
                AppEvent::Session(s) => Some(s),
                AppEvent::Agent(_) => None,
            })
            .collect()
    }

    pub fn sleeps_ms(&self) -> Vec<u128> {
        self.sleeper
            .sleeps
            .lock()
            .unwrap()
            .iter()
            .map(Duration::as_millis)
            .collect()
    }

    /// Entry types of the session file on disk, in order (messages as `message:role`).
    pub fn file_entries(&self) -> Vec<String> {
        let path = self
            .app
            .with_session(|s| s.session_file().map(|p| p.to_path_buf()))
            .unwrap();
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .skip(1)
            .map(|line| {
                let v: Value = serde_json::from_str(line).unwrap();
                let t = v["type"].as_str().unwrap().to_owned();
                match v["message"]["role"].as_str() {
                    Some(role) => format!("{t}:{role}"),
                    None => t,
                }
            })
            .collect()
    }

    /// Roles of the agent's current messages.
    pub fn roles(&self) -> Vec<String> {
        self.app
            .messages()
            .iter()
            .map(|m| m.role().to_owned())
            .collect()
    }

    /// The text of request `i` (body JSON as a string).
    pub fn request_text(&self, i: usize) -> String {
        self.mock.requests()[i].body.to_string()
    }
}

pub fn describe(event: &AppEvent) -> String {
    use pi_agent::AgentEvent;
    match event {
        AppEvent::Agent(AgentEvent::MessageStart { message })
        | AppEvent::Agent(AgentEvent::MessageEnd { message }) => {
            format!("{}:{}", event.kind(), message.role())
        }
        AppEvent::Session(SessionEvent::CompactionStart { reason })
        | AppEvent::Session(SessionEvent::CompactionEnd { reason, .. }) => {
            let reason = serde_json::to_value(reason).unwrap();
            format!("{}:{}", event.kind(), reason.as_str().unwrap())
        }
        AppEvent::Session(SessionEvent::AgentEnd { will_retry, .. }) => {
            format!("agent_end:willRetry={will_retry}")
        }
        _ => event.kind().to_owned(),
    }
}

/// Prompting with text only, as the session tests do.
pub trait Ask {
    fn ask(&self, text: impl Into<String>) -> BoxFuture<'_, Result<(), AppError>>;
}

impl Ask for App {
    fn ask(&self, text: impl Into<String>) -> BoxFuture<'_, Result<(), AppError>> {
        let text = text.into();
        Box::pin(async move { self.prompt(text, Vec::new()).await.map(drop) })
    }
}

pub fn strs(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

/// A tool named `echo` answering `ok`, after `delay` (so a message can be queued while it runs).
pub struct OkTool(pi_ai::Schema, Duration);

impl OkTool {
    pub fn arc() -> Arc<dyn pi_agent::AgentTool> {
        Self::slow(Duration::ZERO)
    }

    pub fn slow(delay: Duration) -> Arc<dyn pi_agent::AgentTool> {
        Arc::new(OkTool(serde_json::json!({"type": "object"}).into(), delay))
    }
}

impl pi_agent::AgentTool for OkTool {
    fn name(&self) -> &str {
        "echo"
    }

    fn description(&self) -> &str {
        "answers ok"
    }

    fn parameters(&self) -> &pi_ai::Schema {
        &self.0
    }

    fn execute<'a>(
        &'a self,
        _call_id: &'a str,
        _args: Value,
        _cancel: tokio_util::sync::CancellationToken,
        _on_update: pi_agent::ToolUpdateFn,
    ) -> BoxFuture<'a, Result<pi_agent::ToolOutput, pi_agent::ToolError>> {
        let delay = self.1;
        Box::pin(async move {
            tokio::time::sleep(delay).await;
            Ok(pi_agent::ToolOutput::text("ok"))
        })
    }
}

/// A call of the `echo` tool (no arguments), for tests that script the mock without JSON.
pub fn echo_call(id: &str) -> pi_mock_llm::Turn {
    pi_mock_llm::Turn::new().tool_call(id, "echo", serde_json::json!({}))
}

/// Two earlier exchanges with the mock model's identity (old timestamps, small usage).
pub fn seed_history(session: &mut SessionManager) {
    use crate::message_builders::{assistant_n, user_n};
    session.append_message(user_n(40)).unwrap();
    session.append_message(assistant_n(40, 100, 2)).unwrap();
    session.append_message(user_n(40)).unwrap();
    session.append_message(assistant_n(40, 200, 4)).unwrap();
}
