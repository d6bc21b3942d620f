//! RPC mode (`--mode rpc`): LF-delimited JSON commands on stdin; responses and session events
//! as JSON lines on stdout. A prompt runs in the background so `steer`, `abort` and queries
//! are answered while it streams; so do `bash` and `compact`, which answer when done (while
//! `abort_bash`, `abort` and queries are served). A malformed line gets an error response;
//! nothing on stdin ends the process except its end.

use crate::messages::{AgentMessage as SessionMessage, BashExecutionMessage};
use crate::modes::json::JsonLines;
use crate::modes::rpc_types::{
    Incoming, RpcCommand, RpcRequest, StreamingBehavior, error_response, parse_line,
    success_response,
};
use crate::modes::run_session::RunSession;
use crate::session::{EntryKind, SessionManager};
use pi_ai::{ImageContent, ThinkingLevel};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio_util::sync::CancellationToken;

/// Serves commands from stdin until it closes; returns the exit code.
pub async fn run(session: Arc<RunSession>, out: JsonLines, shutdown: CancellationToken) -> i32 {
    // Events are written as they happen, so a command's events precede its response.
    let events_out = out.clone();
    session.subscribe_fn(move |event| events_out.write_event(event));
    let server = Server {
        session,
        out,
        bash: Arc::new(Mutex::new(None)),
    };
    let mut lines = BufReader::new(tokio::io::stdin()).split(b'\n');
    loop {
        let next = tokio::select! {
            next = lines.next_segment() => next,
            _ = shutdown.cancelled() => break,
        };
        match next {
            Ok(Some(bytes)) => server.handle_line(&String::from_utf8_lossy(&bytes)).await,
            Ok(None) => break,
            Err(error) => {
                tracing::warn!("stdin: {error}");
                break;
            }
        }
    }
    server.session.abort();
    if let Some(bash) = server.bash.lock().ok().and_then(|slot| slot.clone()) {
        bash.cancel();
    }
    server.session.wait_for_idle().await;
    0
}

#[derive(Clone)]
struct Server {
    session: Arc<RunSession>,
    out: JsonLines,
    bash: Arc<Mutex<Option<CancellationToken>>>,
}

type Reply = Result<Option<Value>, String>;

impl Server {
    async fn handle_line(&self, line: &str) {
        match parse_line(line) {
            // `bash` and `compact` can take long: they answer when done while the next lines
            // (`abort_bash`, `abort`, queries) are served meanwhile.
            Ok(Incoming::Command(request)) if runs_in_background(&request.command) => {
                // A bash command claims its slot now, so an `abort_bash` on the next line
                // finds it even before the command has started.
                if let RpcCommand::Bash { .. } = request.command
                    && let Err(error) = self.claim_bash()
                {
                    let kind = request.command.kind();
                    self.out
                        .write_value(&error_response(request.id.as_ref(), kind, &error));
                    return;
                }
                let server = self.clone();
                tokio::spawn(async move { server.answer(request).await });
            }
            Ok(Incoming::Command(request)) => self.answer(request).await,
            Ok(Incoming::ExtensionUiResponse | Incoming::Empty) => {}
            Err(response) => self.out.write_value(&response),
        }
    }

    /// Runs one command and writes its response.
    async fn answer(&self, request: RpcRequest) {
        let kind = request.command.kind();
        let id = request.id.clone();
        let response = match self.dispatch(request).await {
            Ok(data) => success_response(id.as_ref(), kind, data),
            Err(error) => error_response(id.as_ref(), kind, &error),
        };
        self.out.write_value(&response);
    }

    async fn dispatch(&self, request: RpcRequest) -> Reply {
        let session = &self.session;
        match request.command {
            RpcCommand::Prompt {
                message,
                images,
                streaming_behavior,
            } => self.prompt(message, images, streaming_behavior),
            RpcCommand::Steer { message, .. } => {
                session.steer(session.expand_input(&message)?);
                Ok(None)
            }
            RpcCommand::FollowUp { message, .. } => {
                session.follow_up(session.expand_input(&message)?);
                Ok(None)
            }
            RpcCommand::Abort => {
                session.abort();
                session.wait_for_idle().await;
                Ok(None)
            }
            RpcCommand::NewSession { parent_session } => self.new_session(parent_session),
            RpcCommand::GetState => Ok(Some(session.state_json())),
            RpcCommand::SetModel { provider, model_id } => session
                .set_model(&provider, &model_id)
                .map(|m| Some(json!(m))),
            RpcCommand::CycleModel => Ok(Some(match session.cycle_model()? {
                Some((model, level)) => json!({
                    "model": model, "thinkingLevel": level.as_str(),
                    "isScoped": session.is_scoped()
                }),
                None => Value::Null,
            })),
            RpcCommand::GetAvailableModels => {
                Ok(Some(json!({"models": session.available_models()})))
            }
            RpcCommand::SetThinkingLevel { level } => {
                let parsed = ThinkingLevel::parse(&level)
                    .ok_or_else(|| format!("Invalid thinking level: {level}"))?;
                session.set_thinking_level(parsed)?;
                Ok(None)
            }
            RpcCommand::CycleThinkingLevel => Ok(Some(match session.cycle_thinking_level()? {
                Some(level) => json!({"level": level.as_str()}),
                None => Value::Null,
            })),
            RpcCommand::GetAvailableThinkingLevels => {
                let levels: Vec<&str> = session
                    .available_thinking_levels()
                    .iter()
                    .map(|l| l.as_str())
                    .collect();
                Ok(Some(json!({"levels": levels})))
            }
            RpcCommand::SetSteeringMode { mode } => {
                session.set_queue_modes(Some(check_mode(&mode)?), None);
                Ok(None)
            }
            RpcCommand::SetFollowUpMode { mode } => {
                session.set_queue_modes(None, Some(check_mode(&mode)?));
                Ok(None)
            }
            RpcCommand::Compact {
                custom_instructions,
            } => session
                .compact(custom_instructions.as_deref())
                .await
                .map(Some),
            RpcCommand::SetAutoCompaction { enabled } => {
                session.set_setting("compaction.enabled", enabled);
                Ok(None)
            }
            RpcCommand::SetAutoRetry { enabled } => {
                session.set_setting("retry.enabled", enabled);
                Ok(None)
            }
            RpcCommand::AbortRetry => {
                // Cancels a pending retry wait (and the run it would restart).
                session.abort();
                Ok(None)
            }
            RpcCommand::Bash {
                command,
                exclude_from_context,
            } => {
                self.bash(command, exclude_from_context.unwrap_or(false))
                    .await
            }
            RpcCommand::AbortBash => {
                if let Some(token) = self.bash.lock().ok().and_then(|b| b.clone()) {
                    token.cancel();
                }
                Ok(None)
            }
            RpcCommand::GetSessionStats => Ok(Some(session.with_session(|s| session_stats(s)))),
            RpcCommand::ExportHtml { output_path } => self.export_html(output_path),
            RpcCommand::SwitchSession { session_path } => self.switch_session(&session_path),
            RpcCommand::Fork { entry_id } => {
                let text = session.fork(&entry_id)?;
                Ok(Some(json!({"text": text, "cancelled": false})))
            }
            RpcCommand::Clone => {
                session.clone_session()?;
                Ok(Some(json!({"cancelled": false})))
            }
            RpcCommand::GetForkMessages => {
                let messages: Vec<Value> = session
                    .fork_messages()
                    .into_iter()
                    .map(|(id, text)| json!({"entryId": id, "text": text}))
                    .collect();
                Ok(Some(json!({"messages": messages})))
            }
            RpcCommand::GetEntries { since } => Ok(Some(
                session.with_session(|s| entries_json(s, since.as_deref())),
            )),
            RpcCommand::GetTree => Ok(Some(session.with_session(|s| tree_json(s)))),
            RpcCommand::GetLastAssistantText => {
                let text = session.last_assistant().map(|m| m.text());
                Ok(Some(json!({"text": text})))
            }
            RpcCommand::SetSessionName { name } => {
                if name.trim().is_empty() {
                    return Err("Session name cannot be empty".to_owned());
                }
                session.set_session_name(&name).map_err(|e| e.to_string())?;
                Ok(None)
            }
            RpcCommand::GetMessages => Ok(Some(json!({"messages": session.messages_json()}))),
            RpcCommand::GetCommands => Ok(Some(json!({"commands": session.commands_json()}))),
        }
    }

    fn prompt(
        &self,
        message: String,
        images: Vec<ImageContent>,
        behavior: Option<StreamingBehavior>,
    ) -> Reply {
        let session = &self.session;
        if session.is_streaming() {
            let text = session.expand_input(&message)?;
            return match behavior {
                Some(StreamingBehavior::Steer) => {
                    session.steer(text);
                    Ok(None)
                }
                Some(StreamingBehavior::FollowUp) => {
                    session.follow_up(text);
                    Ok(None)
                }
                None => Err(
                    "Agent is already processing. Specify streamingBehavior ('steer' or \
                             'followUp') to queue the message."
                        .to_owned(),
                ),
            };
        }
        let runner = Arc::clone(session);
        let out = self.out.clone();
        tokio::spawn(async move {
            if let Err(error) = runner.prompt(message, images).await {
                out.write_value(&json!({"type": "error", "error": error}));
            }
        });
        Ok(None)
    }

    fn new_session(&self, parent: Option<String>) -> Reply {
        if self.session.is_streaming() {
            return Err("Cannot start a new session while the agent is running".to_owned());
        }
        let next = self.session.with_session(|s| {
            let cwd = std::path::PathBuf::from(s.cwd());
            match s.session_file().and_then(|p| p.parent()) {
                Some(dir) => SessionManager::create(&cwd, dir),
                None => SessionManager::in_memory(&cwd),
            }
        });
        let next = next.with_parent_session(parent.filter(|p| !p.is_empty()));
        self.session
            .replace_session(next)
            .map_err(|e| e.to_string())?;
        Ok(Some(json!({"cancelled": false})))
    }

    fn switch_session(&self, path: &str) -> Reply {
        let cwd = self
            .session
            .with_session(|s| std::path::PathBuf::from(s.cwd()));
        let next =
            SessionManager::open(std::path::Path::new(path), &cwd).map_err(|e| e.to_string())?;
        self.session
            .replace_session(next)
            .map_err(|e| e.to_string())?;
        Ok(Some(json!({"cancelled": false})))
    }

    fn export_html(&self, output: Option<String>) -> Reply {
        let (html, default_name) = self.session.with_session(|s| {
            (
                crate::export_html::render_entries(s.header(), s.entries()),
                format!("pi-session-{}.html", s.session_id()),
            )
        });
        let path = std::path::PathBuf::from(output.unwrap_or(default_name));
        crate::paths::write_atomic(&path, html.as_bytes())
            .map_err(|e| format!("Cannot write {}: {e}", path.display()))?;
        Ok(Some(json!({"path": path})))
    }

    /// Takes the bash slot for a new command (refused while one runs).
    fn claim_bash(&self) -> Result<(), String> {
        if let Ok(mut slot) = self.bash.lock() {
            if slot.is_some() {
                return Err("A bash command is already running".to_owned());
            }
            *slot = Some(CancellationToken::new());
        }
        Ok(())
    }

    /// Runs a command that claimed the bash slot ([`claim_bash`](Self::claim_bash)).
    async fn bash(&self, command: String, exclude: bool) -> Reply {
        let token = self
            .bash
            .lock()
            .ok()
            .and_then(|slot| slot.clone())
            .unwrap_or_default();
        let cwd = self
            .session
            .with_session(|s| std::path::PathBuf::from(s.cwd()));
        let result = run_shell(&command, &cwd, &token).await;
        if let Ok(mut slot) = self.bash.lock() {
            *slot = None;
        }
        let (output, exit_code, cancelled) = result?;
        let message = BashExecutionMessage {
            command,
            output: output.clone(),
            exit_code,
            cancelled,
            truncated: false,
            full_output_path: None,
            exclude_from_context: exclude.then_some(true),
            timestamp: pi_ai::now_ms(),
        };
        self.session.record_bash(message);
        Ok(Some(json!({
            "output": output, "exitCode": exit_code, "cancelled": cancelled, "truncated": false
        })))
    }
}

/// Commands whose work may outlast the next input line.
fn runs_in_background(command: &RpcCommand) -> bool {
    matches!(
        command,
        RpcCommand::Bash { .. } | RpcCommand::Compact { .. }
    )
}

fn check_mode(mode: &str) -> Result<&str, String> {
    match mode {
        "all" | "one-at-a-time" => Ok(mode),
        _ => Err(format!(
            "Invalid mode: {mode} (expected \"all\" or \"one-at-a-time\")"
        )),
    }
}

/// Runs `command` in `sh -c`, stdout and stderr together; cancelled → killed.
async fn run_shell(
    command: &str,
    cwd: &std::path::Path,
    cancel: &CancellationToken,
) -> Result<(String, Option<i64>, bool), String> {
    let child = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{command} 2>&1"))
        .current_dir(cwd)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("Cannot run bash: {e}"))?;
    tokio::select! {
        output = child.wait_with_output() => {
            let output = output.map_err(|e| e.to_string())?;
            let text = String::from_utf8_lossy(&output.stdout).into_owned();
            Ok((text, output.status.code().map(i64::from), false))
        }
        _ = cancel.cancelled() => Ok((String::new(), None, true)),
    }
}

/// pi's `SessionStats` of the current branch.
fn session_stats(session: &SessionManager) -> Value {
    let (mut user, mut assistant, mut tool_calls, mut tool_results) = (0u64, 0u64, 0u64, 0u64);
    let mut tokens = [0u64; 4];
    let mut cost = 0.0;
    for entry in session.get_branch(None) {
        let EntryKind::Message(message) = &entry.kind else {
            continue;
        };
        match message {
            SessionMessage::User(_) => user += 1,
            SessionMessage::Assistant(m) => {
                assistant += 1;
                tool_calls += m.tool_calls().count() as u64;
                tokens[0] += m.usage.input;
                tokens[1] += m.usage.output;
                tokens[2] += m.usage.cache_read;
                tokens[3] += m.usage.cache_write;
                cost += m.usage.cost.total;
            }
            SessionMessage::ToolResult(_) => tool_results += 1,
            _ => {}
        }
    }
    json!({
        "sessionFile": session.session_file(),
        "sessionId": session.session_id(),
        "userMessages": user,
        "assistantMessages": assistant,
        "toolCalls": tool_calls,
        "toolResults": tool_results,
        "totalMessages": user + assistant + tool_results,
        "tokens": {
            "input": tokens[0], "output": tokens[1], "cacheRead": tokens[2],
            "cacheWrite": tokens[3], "total": tokens.iter().sum::<u64>()
        },
        "cost": cost,
    })
}

/// Entries after `since` (all when `None` or unknown).
fn entries_json(session: &SessionManager, since: Option<&str>) -> Value {
    let entries = session.entries();
    let start = since
        .and_then(|id| entries.iter().position(|e| e.id == id))
        .map_or(0, |i| i + 1);
    let list: Vec<Value> = entries[start..].iter().map(|e| e.to_json()).collect();
    json!({"entries": list, "leafId": session.leaf_id()})
}

/// The entry tree: nodes with their children, roots first.
fn tree_json(session: &SessionManager) -> Value {
    fn node(session: &SessionManager, tree: &crate::session::SessionTree, id: &str) -> Value {
        let entry = session.entry(id);
        let children: Vec<Value> = tree
            .children_of(id)
            .iter()
            .map(|c| node(session, tree, c))
            .collect();
        json!({
            "id": id,
            "type": entry.map(|e| e.kind.type_name().to_owned()),
            "label": session.label_of(id),
            "children": children,
        })
    }
    let tree = session.tree();
    let roots: Vec<Value> = session
        .entries()
        .iter()
        .filter(|e| e.parent_id.is_none())
        .map(|e| node(session, &tree, &e.id))
        .collect();
    json!({"tree": roots, "leafId": session.leaf_id()})
}
