//! RPC mode (`--mode rpc`): LF-delimited JSON commands on stdin; responses and session events
//! as JSON lines on stdout. A prompt runs in the background so `steer`, `abort` and queries
//! are answered while it streams; so do `bash` and `compact`, which answer when done (while
//! `abort_bash`, `abort` and queries are served). A malformed line gets an error response;
//! nothing on stdin ends the process except its end.

use crate::modes::json::{JsonLines, Protocol, old_compaction_result};
use crate::modes::rpc_types::{
    Incoming, RpcCommand, RpcRequest, StreamingBehavior, Success, error_response, parse_line,
    success_response,
};
use pi_ai::{ImageContent, ThinkingLevel};
use pi_app::app::queue_mode;
use pi_app::permissions::PermissionMode;
use pi_app::{App, Disposition};
use pi_session::settings::Settings;
use serde_json::{Value, json};
use std::fmt::Display;
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio_util::sync::CancellationToken;

/// Serves commands from stdin until it closes; returns the exit code.
pub async fn run(session: Arc<App>, out: JsonLines, shutdown: CancellationToken) -> i32 {
    // Events are written as they happen, so a command's events precede its response.
    let events_out = out.clone();
    session.subscribe_fn(move |event| events_out.write_event(event, true));
    // The client answers extensions' dialogs with `extension_ui_response`.
    session.enable_dialogs();
    let server = Server {
        session,
        out,
        background: Arc::default(),
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
    server.session.abort_bash();
    server.session.wait_for_idle().await;
    // Every command read gets its response: the background ones end quickly once aborted.
    let background = std::mem::take(&mut *pi_ai::lock(&server.background));
    for task in background {
        let _ = task.await;
    }
    0
}

#[derive(Clone)]
struct Server {
    session: Arc<App>,
    out: JsonLines,
    /// `bash` and `compact` commands still answering.
    background: Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>>,
}

type Reply = Result<Option<Data>, String>;

/// A response's data: a JSON value, or the session's messages, which are written straight
/// from the agent's state (a long history is never copied or built into a JSON tree).
enum Data {
    Json(Value),
    Messages,
}

impl From<Value> for Data {
    fn from(value: Value) -> Self {
        Data::Json(value)
    }
}

/// `{"messages": [...]}` borrowed from the agent's state.
#[derive(serde::Serialize)]
struct Messages<'a> {
    messages: &'a [pi_agent::AgentMessage],
}

/// An error as the response's message.
fn fail(error: impl Display) -> String {
    error.to_string()
}

impl Server {
    async fn handle_line(&self, line: &str) {
        match parse_line(line) {
            // `bash` and `compact` can take long: they answer when done while the next lines
            // (`abort_bash`, `abort`, queries) are served meanwhile. So does a prompt `input`
            // hooks are asked about first (one may ask the user, whose answer is a later line).
            Ok(Incoming::Command(request))
                if runs_in_background(&request.command)
                    || (matches!(request.command, RpcCommand::Prompt { .. })
                        && self.session.has_input_hooks()) =>
            {
                // A bash command claims its slot now, so an `abort_bash` on the next line
                // finds it even before the command has started.
                if let RpcCommand::Bash { .. } = request.command
                    && let Err(error) = self.session.claim_bash()
                {
                    let kind = request.command.kind();
                    self.out
                        .write_value(&error_response(request.id.as_ref(), kind, &fail(error)));
                    return;
                }
                let server = self.clone();
                let task = tokio::spawn(async move { server.answer(request).await });
                let mut background = pi_ai::lock(&self.background);
                background.retain(|t| !t.is_finished());
                background.push(task);
            }
            Ok(Incoming::Command(request)) => self.answer(request).await,
            Ok(Incoming::ExtensionUiResponse(Some(answer))) => {
                // No response line for it, as in pi.
                if !self.session.respond_ui(&answer.id, answer.response) {
                    tracing::info!(
                        "extension_ui_response for {}: no such open dialog",
                        answer.id
                    );
                }
            }
            Ok(Incoming::ExtensionUiResponse(None) | Incoming::Empty) => {}
            Err(response) => self.out.write_value(&response),
        }
    }

    /// Runs one command and writes its response.
    async fn answer(&self, request: RpcRequest) {
        let kind = request.command.kind();
        let id = request.id.clone();
        let response = match self.dispatch(request).await {
            Ok(None) => success_response(id.as_ref(), kind, None),
            Ok(Some(Data::Json(data))) => success_response(id.as_ref(), kind, Some(data)),
            Ok(Some(Data::Messages)) => {
                self.session.with_messages(|messages| {
                    let data = Messages { messages };
                    self.out
                        .write_serialized(&Success::new(id.as_ref(), kind, data));
                });
                return;
            }
            Err(error) => error_response(id.as_ref(), kind, &error),
        };
        self.out.write_value(&response);
    }

    async fn dispatch(&self, request: RpcRequest) -> Reply {
        let session = &self.session;
        // pi's ids are strings; another JSON id is reported by its text.
        let id = request
            .id
            .map(|id| id.as_str().map_or_else(|| id.to_string(), str::to_owned));
        match request.command {
            RpcCommand::Prompt {
                message,
                images,
                streaming_behavior,
            } => self.prompt(message, images, streaming_behavior).await,
            RpcCommand::Steer { message, .. } => {
                let text = session.expand_input(&message).map_err(fail)?;
                Ok(self.disposition(session.steer(text)))
            }
            RpcCommand::FollowUp { message, .. } => {
                let text = session.expand_input(&message).map_err(fail)?;
                Ok(self.disposition(session.follow_up(text)))
            }
            RpcCommand::Abort => {
                session.abort();
                session.wait_for_idle().await;
                Ok(None)
            }
            RpcCommand::NewSession { parent_session } => self.new_session(parent_session),
            RpcCommand::GetState => Ok(Some(json!(session.state()).into())),
            RpcCommand::SetModel { provider, model_id } => session
                .set_model(&provider, &model_id)
                .map(|m| Some(json!(m).into()))
                .map_err(fail),
            RpcCommand::CycleModel => Ok(Some(
                match session.cycle_model().map_err(fail)? {
                    Some((model, level)) => json!({
                        "model": model, "thinkingLevel": level.as_str(),
                        "isScoped": session.is_scoped()
                    }),
                    None => Value::Null,
                }
                .into(),
            )),
            RpcCommand::GetAvailableModels => {
                Ok(Some(json!({"models": session.available_models()}).into()))
            }
            RpcCommand::SetThinkingLevel { level } => {
                let parsed = ThinkingLevel::parse(&level)
                    .ok_or_else(|| format!("Invalid thinking level: {level}"))?;
                session.set_thinking_level(parsed).map_err(fail)?;
                Ok(None)
            }
            RpcCommand::SetPermissionMode { mode } => {
                let parsed = PermissionMode::parse(&mode).ok_or_else(|| {
                    format!(
                        "Invalid permission mode: {mode} (use auto, ask-writes, ask-all or plan)"
                    )
                })?;
                session.set_permission_mode(parsed);
                Ok(None)
            }
            RpcCommand::CycleThinkingLevel => Ok(Some(
                match session.cycle_thinking_level().map_err(fail)? {
                    Some(level) => json!({"level": level.as_str()}),
                    None => Value::Null,
                }
                .into(),
            )),
            RpcCommand::GetAvailableThinkingLevels => {
                let levels: Vec<&str> = session
                    .available_thinking_levels()
                    .iter()
                    .map(|l| l.as_str())
                    .collect();
                Ok(Some(json!({"levels": levels}).into()))
            }
            RpcCommand::SetSteeringMode { mode } => {
                let mode = queue_mode(check_mode(&mode)?);
                session.set_queue_modes(Some(mode), None);
                save_setting(session, "steeringMode", |s| s.steering_mode = Some(mode));
                Ok(None)
            }
            RpcCommand::SetFollowUpMode { mode } => {
                let mode = queue_mode(check_mode(&mode)?);
                session.set_queue_modes(None, Some(mode));
                save_setting(session, "followUpMode", |s| s.follow_up_mode = Some(mode));
                Ok(None)
            }
            RpcCommand::Compact {
                custom_instructions,
            } => {
                let result = session
                    .compact(custom_instructions.as_deref())
                    .await
                    .map_err(fail)?;
                let mut data = json!(result);
                if let (Protocol::V0_73, Some(map)) = (self.out.protocol(), data.as_object_mut()) {
                    old_compaction_result(map);
                }
                Ok(Some(data.into()))
            }
            RpcCommand::SetAutoCompaction { enabled } => {
                save_setting(session, "compaction.enabled", |s| {
                    s.compaction_mut().enabled = Some(enabled)
                });
                Ok(None)
            }
            RpcCommand::SetAutoRetry { enabled } => {
                save_setting(session, "retry.enabled", |s| {
                    s.retry_mut().enabled = Some(enabled)
                });
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
                self.bash(command, exclude_from_context.unwrap_or(false), id)
                    .await
            }
            RpcCommand::AbortBash => {
                session.abort_bash();
                Ok(None)
            }
            RpcCommand::ClearQueue => {
                let (steering, follow_up) = session.clear_queue();
                Ok(Some(
                    json!({"steering": steering, "followUp": follow_up}).into(),
                ))
            }
            RpcCommand::GetSessionStats => Ok(Some(json!(session.session_stats()).into())),
            RpcCommand::ExportHtml { output_path } => {
                let path = session
                    .export_html(output_path.map(std::path::PathBuf::from))
                    .map_err(fail)?;
                Ok(Some(json!({"path": path}).into()))
            }
            RpcCommand::SwitchSession { session_path } => {
                session
                    .switch_session(std::path::Path::new(&session_path))
                    .map_err(fail)?;
                Ok(Some(json!({"cancelled": false}).into()))
            }
            RpcCommand::Fork { entry_id } => {
                let text = session.fork(&entry_id).map_err(fail)?;
                Ok(Some(json!({"text": text, "cancelled": false}).into()))
            }
            RpcCommand::Clone => {
                session.clone_session().map_err(fail)?;
                Ok(Some(json!({"cancelled": false}).into()))
            }
            RpcCommand::GetForkMessages => {
                let messages: Vec<Value> = session
                    .fork_messages()
                    .into_iter()
                    .map(|(id, text)| json!({"entryId": id, "text": text}))
                    .collect();
                Ok(Some(json!({"messages": messages}).into()))
            }
            RpcCommand::GetEntries { since } => {
                let (entries, leaf) = session.entries_since(since.as_deref()).map_err(fail)?;
                let entries: Vec<Value> = entries.iter().map(|e| e.to_json()).collect();
                Ok(Some(json!({"entries": entries, "leafId": leaf}).into()))
            }
            RpcCommand::GetTree => {
                let (tree, leaf) = session.tree();
                Ok(Some(json!({"tree": tree, "leafId": leaf}).into()))
            }
            RpcCommand::GetLastAssistantText => {
                let text = session.last_assistant().map(|m| m.text());
                Ok(Some(json!({"text": text}).into()))
            }
            RpcCommand::SetSessionName { name } => {
                session.set_session_name(&name).map_err(fail)?;
                Ok(None)
            }
            RpcCommand::GetMessages => Ok(Some(Data::Messages)),
            RpcCommand::GetCommands => Ok(Some(json!({"commands": session.commands()}).into())),
            RpcCommand::GetRewindPoints => {
                Ok(Some(json!({"points": session.rewind_points()}).into()))
            }
            RpcCommand::GetRewindPreview { entry_id } => {
                let preview = session.rewind_preview(&entry_id).map_err(fail)?;
                Ok(Some(json!(preview).into()))
            }
            RpcCommand::Rewind {
                entry_id,
                restore,
                overwrite_changed,
            } => {
                let mode = restore.unwrap_or(pi_app::RewindMode::All);
                let outcome = session
                    .rewind(&entry_id, mode, overwrite_changed)
                    .map_err(fail)?;
                Ok(Some(json!(outcome).into()))
            }
        }
    }

    /// pi's prompt: a hook's command, else a steer or follow-up while the agent works, else
    /// the `input` hooks (awaited: a prompt runs in the background when there are any, see
    /// `handle_line`) and the run, answered once it started.
    async fn prompt(
        &self,
        message: String,
        images: Vec<ImageContent>,
        behavior: Option<StreamingBehavior>,
    ) -> Reply {
        let session = &self.session;
        // A hook's command runs at once, even while the agent works (pi 1.6: `handled`).
        if session.is_extension_command(&message) {
            let runner = Arc::clone(session);
            tokio::spawn(async move { runner.run_extension_command(&message).await });
            return Ok(self.disposition(Disposition::Handled));
        }
        if session.is_streaming() {
            let text = session.expand_input(&message).map_err(fail)?;
            return match behavior {
                Some(StreamingBehavior::Steer) => Ok(self.disposition(session.steer(text))),
                Some(StreamingBehavior::FollowUp) => Ok(self.disposition(session.follow_up(text))),
                None => Err(
                    "Agent is already processing. Specify streamingBehavior ('steer' or \
                             'followUp') to queue the message."
                        .to_owned(),
                ),
            };
        }
        let source = pi_app::hooks::InputSource::Rpc;
        let (message, images) = match session.input_step(message, images, source).await {
            Ok(prompt) => prompt,
            Err(disposition) => return Ok(self.disposition(disposition)),
        };
        let runner = Arc::clone(session);
        let out = self.out.clone();
        tokio::spawn(async move {
            if let Err(error) = runner.prompt_after_input(message, images).await {
                out.write_value(&json!({"type": "error", "error": error.to_string()}));
            }
        });
        // The run is under way: pi answers once the prompt's preflight passed.
        Ok(self.disposition(Disposition::Started))
    }

    /// A prompt's, steer's or follow-up's response data: `{disposition}` (pi 1.6), nothing
    /// (pi 0.73).
    fn disposition(&self, disposition: Disposition) -> Option<Data> {
        match self.out.protocol() {
            Protocol::V1_6 => Some(json!({ "disposition": disposition }).into()),
            Protocol::V0_73 => None,
        }
    }

    fn new_session(&self, parent: Option<String>) -> Reply {
        self.session.new_session(parent).map_err(|e| match e {
            pi_app::AppError::Session(pi_app::AgentSessionError::Busy) => {
                "Cannot start a new session while the agent is running".to_owned()
            }
            other => other.to_string(),
        })?;
        Ok(Some(json!({"cancelled": false}).into()))
    }

    /// Runs a command that claimed the bash slot; its output events carry the command's id.
    async fn bash(&self, command: String, exclude: bool, id: Option<String>) -> Reply {
        let outcome = self
            .session
            .bash(command, exclude, id)
            .await
            .map_err(fail)?;
        let mut reply = json!({
            "output": outcome.output, "exitCode": outcome.exit_code,
            "cancelled": outcome.cancelled, "truncated": outcome.truncated
        });
        if let Some(path) = &outcome.full_output_path {
            reply["fullOutputPath"] = json!(path);
        }
        Ok(Some(reply.into()))
    }
}

/// Commands whose work may outlast the next input line.
fn runs_in_background(command: &RpcCommand) -> bool {
    matches!(
        command,
        RpcCommand::Bash { .. } | RpcCommand::Compact { .. }
    )
}

/// Changes a setting and saves it in the global settings file, as pi's RPC commands do. As in
/// pi, a failed save does not fail the command: the change applies to this process and the
/// failure is logged.
fn save_setting(app: &App, key: &str, change: impl FnOnce(&mut Settings)) {
    if let Err(error) = app.update_settings(change) {
        tracing::warn!("cannot save setting {key}: {error}");
    }
}

fn check_mode(mode: &str) -> Result<&str, String> {
    match mode {
        "all" | "one-at-a-time" => Ok(mode),
        _ => Err(format!(
            "Invalid mode: {mode} (expected \"all\" or \"one-at-a-time\")"
        )),
    }
}
