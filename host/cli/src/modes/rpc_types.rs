//! RPC wire types: commands read from stdin, responses written to stdout.
//! Parsing never fails hard: every bad line becomes an error response.

use pi_ai::ImageContent;
use pi_app::hooks::UiResponse;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// How a prompt sent while the agent is busy is queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StreamingBehavior {
    Steer,
    FollowUp,
}

/// Every RPC command pi accepts.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum RpcCommand {
    Prompt {
        message: String,
        #[serde(default)]
        images: Vec<ImageContent>,
        #[serde(default)]
        streaming_behavior: Option<StreamingBehavior>,
    },
    Steer {
        message: String,
        #[serde(default)]
        images: Vec<ImageContent>,
    },
    FollowUp {
        message: String,
        #[serde(default)]
        images: Vec<ImageContent>,
    },
    Abort,
    NewSession {
        #[serde(default)]
        parent_session: Option<String>,
    },
    GetState,
    SetModel {
        provider: String,
        model_id: String,
    },
    CycleModel,
    GetAvailableModels,
    SetThinkingLevel {
        level: String,
    },
    CycleThinkingLevel,
    GetAvailableThinkingLevels,
    SetSteeringMode {
        mode: String,
    },
    SetFollowUpMode {
        mode: String,
    },
    Compact {
        #[serde(default)]
        custom_instructions: Option<String>,
    },
    SetAutoCompaction {
        enabled: bool,
    },
    SetAutoRetry {
        enabled: bool,
    },
    AbortRetry,
    Bash {
        command: String,
        #[serde(default)]
        exclude_from_context: Option<bool>,
    },
    AbortBash,
    /// pi 1.x: empties the queues and returns their texts.
    ClearQueue,
    GetSessionStats,
    ExportHtml {
        #[serde(default)]
        output_path: Option<String>,
    },
    SwitchSession {
        session_path: String,
    },
    Fork {
        entry_id: String,
    },
    Clone,
    GetForkMessages,
    GetEntries {
        #[serde(default)]
        since: Option<String>,
    },
    GetTree,
    GetLastAssistantText,
    SetSessionName {
        name: String,
    },
    GetMessages,
    GetCommands,
    SetPermissionMode {
        mode: String,
    },
    /// This pi: the user prompts and rewinds of the current branch `rewind` can go back to.
    GetRewindPoints,
    /// This pi: what rewinding the files to `entry_id` would change.
    GetRewindPreview {
        entry_id: String,
    },
    /// This pi: puts the files and/or the conversation back as they were before `entry_id`.
    Rewind {
        entry_id: String,
        #[serde(default)]
        restore: Option<pi_app::RewindMode>,
        /// Overwrite files changed outside pi since pi last saw them (default: keep them).
        #[serde(default)]
        overwrite_changed: bool,
    },
}

/// Every command `type` (for "unknown command" detection and documentation).
pub const COMMAND_TYPES: [&str; 37] = [
    "prompt",
    "steer",
    "follow_up",
    "abort",
    "new_session",
    "get_state",
    "set_model",
    "cycle_model",
    "get_available_models",
    "set_thinking_level",
    "cycle_thinking_level",
    "get_available_thinking_levels",
    "set_steering_mode",
    "set_follow_up_mode",
    "compact",
    "set_auto_compaction",
    "set_auto_retry",
    "abort_retry",
    "bash",
    "abort_bash",
    "clear_queue",
    "get_session_stats",
    "export_html",
    "switch_session",
    "fork",
    "clone",
    "get_fork_messages",
    "get_entries",
    "get_tree",
    "get_last_assistant_text",
    "set_session_name",
    "get_messages",
    "get_commands",
    "set_permission_mode",
    "get_rewind_points",
    "get_rewind_preview",
    "rewind",
];

/// A parsed request line.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcRequest {
    pub id: Option<Value>,
    pub command: RpcCommand,
}

/// What a stdin line turned out to be.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    Command(RpcRequest),
    /// A client's answer to an `extension_ui_request` dialog (`None`: no string `id`, which
    /// answers nothing, as in pi).
    ExtensionUiResponse(Option<UiAnswer>),
    /// A blank line.
    Empty,
}

/// `extension_ui_response {id, value | confirmed | cancelled}`: the answer to dialog `id`.
#[derive(Debug, Clone, PartialEq)]
pub struct UiAnswer {
    pub id: String,
    pub response: UiResponse,
}

/// Reads an `extension_ui_response` as pi does: `cancelled: true` first, then `value`, then
/// `confirmed`; a response with none of them cancels the dialog.
fn ui_answer(map: &Map<String, Value>) -> Option<UiAnswer> {
    let id = map.get("id")?.as_str()?.to_owned();
    let response = if map.get("cancelled") == Some(&Value::Bool(true)) {
        UiResponse::Cancelled
    } else if let Some(Value::String(value)) = map.get("value") {
        UiResponse::Value(value.clone())
    } else if let Some(Value::Bool(yes)) = map.get("confirmed") {
        UiResponse::Confirmed(*yes)
    } else {
        UiResponse::Cancelled
    };
    Some(UiAnswer { id, response })
}

/// Parses one line. `Err` is the error response to send.
pub fn parse_line(line: &str) -> Result<Incoming, Value> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    if line.trim().is_empty() {
        return Ok(Incoming::Empty);
    }
    let value: Value = serde_json::from_str(line)
        .map_err(|e| error_response(None, "parse", &format!("Failed to parse command: {e}")))?;
    let Value::Object(map) = &value else {
        return Err(error_response(
            None,
            "parse",
            "Failed to parse command: expected a JSON object",
        ));
    };
    let id = map.get("id").cloned();
    let kind = match map.get("type") {
        Some(Value::String(kind)) => kind.clone(),
        _ => {
            return Err(error_response(
                id.as_ref(),
                "unknown",
                "Command has no \"type\"",
            ));
        }
    };
    if kind == "extension_ui_response" {
        return Ok(Incoming::ExtensionUiResponse(ui_answer(map)));
    }
    if !COMMAND_TYPES.contains(&kind.as_str()) {
        return Err(error_response(
            id.as_ref(),
            &kind,
            &format!("Unknown command: {kind}"),
        ));
    }
    let mut fields: Map<String, Value> = map.clone();
    fields.remove("id");
    match serde_json::from_value::<RpcCommand>(Value::Object(fields)) {
        Ok(command) => Ok(Incoming::Command(RpcRequest { id, command })),
        Err(e) => Err(error_response(
            id.as_ref(),
            &kind,
            &format!("Invalid {kind} command: {e}"),
        )),
    }
}

/// `{id?, type: "response", command, success: true, data}` with `data` written from its own
/// `Serialize` (the same bytes as [`success_response`] makes, without the JSON tree).
#[derive(Serialize)]
pub struct Success<'a, T> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<&'a Value>,
    pub r#type: &'static str,
    pub command: &'a str,
    pub success: bool,
    pub data: T,
}

impl<'a, T: Serialize> Success<'a, T> {
    pub fn new(id: Option<&'a Value>, command: &'a str, data: T) -> Self {
        Success {
            id,
            r#type: "response",
            command,
            success: true,
            data,
        }
    }
}

/// `{id?, type: "response", command, success: true, data?}`.
pub fn success_response(id: Option<&Value>, command: &str, data: Option<Value>) -> Value {
    let mut map = Map::new();
    if let Some(id) = id {
        map.insert("id".into(), id.clone());
    }
    map.insert("type".into(), json!("response"));
    map.insert("command".into(), json!(command));
    map.insert("success".into(), json!(true));
    if let Some(data) = data {
        map.insert("data".into(), data);
    }
    Value::Object(map)
}

/// `{id?, type: "response", command, success: false, error}`.
pub fn error_response(id: Option<&Value>, command: &str, error: &str) -> Value {
    let mut map = Map::new();
    if let Some(id) = id {
        map.insert("id".into(), id.clone());
    }
    map.insert("type".into(), json!("response"));
    map.insert("command".into(), json!(command));
    map.insert("success".into(), json!(false));
    map.insert("error".into(), json!(error));
    Value::Object(map)
}

impl RpcCommand {
    /// The command's `type` string.
    pub fn kind(&self) -> &'static str {
        match self {
            RpcCommand::Prompt { .. } => "prompt",
            RpcCommand::Steer { .. } => "steer",
            RpcCommand::FollowUp { .. } => "follow_up",
            RpcCommand::Abort => "abort",
            RpcCommand::NewSession { .. } => "new_session",
            RpcCommand::GetState => "get_state",
            RpcCommand::SetModel { .. } => "set_model",
            RpcCommand::CycleModel => "cycle_model",
            RpcCommand::GetAvailableModels => "get_available_models",
            RpcCommand::SetThinkingLevel { .. } => "set_thinking_level",
            RpcCommand::CycleThinkingLevel => "cycle_thinking_level",
            RpcCommand::GetAvailableThinkingLevels => "get_available_thinking_levels",
            RpcCommand::SetSteeringMode { .. } => "set_steering_mode",
            RpcCommand::SetFollowUpMode { .. } => "set_follow_up_mode",
            RpcCommand::Compact { .. } => "compact",
            RpcCommand::SetAutoCompaction { .. } => "set_auto_compaction",
            RpcCommand::SetAutoRetry { .. } => "set_auto_retry",
            RpcCommand::AbortRetry => "abort_retry",
            RpcCommand::Bash { .. } => "bash",
            RpcCommand::AbortBash => "abort_bash",
            RpcCommand::ClearQueue => "clear_queue",
            RpcCommand::GetSessionStats => "get_session_stats",
            RpcCommand::ExportHtml { .. } => "export_html",
            RpcCommand::SwitchSession { .. } => "switch_session",
            RpcCommand::Fork { .. } => "fork",
            RpcCommand::Clone => "clone",
            RpcCommand::GetForkMessages => "get_fork_messages",
            RpcCommand::GetEntries { .. } => "get_entries",
            RpcCommand::GetTree => "get_tree",
            RpcCommand::GetLastAssistantText => "get_last_assistant_text",
            RpcCommand::SetSessionName { .. } => "set_session_name",
            RpcCommand::GetMessages => "get_messages",
            RpcCommand::GetCommands => "get_commands",
            RpcCommand::SetPermissionMode { .. } => "set_permission_mode",
            RpcCommand::GetRewindPoints => "get_rewind_points",
            RpcCommand::GetRewindPreview { .. } => "get_rewind_preview",
            RpcCommand::Rewind { .. } => "rewind",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> Option<UiAnswer> {
        match parse_line(line) {
            Ok(Incoming::ExtensionUiResponse(answer)) => answer,
            other => panic!("not a UI response: {other:?}"),
        }
    }

    #[test]
    fn reads_extension_ui_responses_as_pi_does() {
        let of = |line| answer(line).map(|a| (a.id, a.response));
        assert_eq!(
            of(r#"{"type":"extension_ui_response","id":"ui-1","confirmed":true}"#),
            Some(("ui-1".into(), UiResponse::Confirmed(true)))
        );
        assert_eq!(
            of(r#"{"type":"extension_ui_response","id":"ui-2","confirmed":false}"#),
            Some(("ui-2".into(), UiResponse::Confirmed(false)))
        );
        assert_eq!(
            of(r#"{"type":"extension_ui_response","id":"ui-3","value":"b"}"#),
            Some(("ui-3".into(), UiResponse::Value("b".into())))
        );
        // `cancelled` wins over anything else; nothing usable cancels.
        assert_eq!(
            of(r#"{"type":"extension_ui_response","id":"u","value":"b","cancelled":true}"#),
            Some(("u".into(), UiResponse::Cancelled))
        );
        assert_eq!(
            of(r#"{"type":"extension_ui_response","id":"u"}"#),
            Some(("u".into(), UiResponse::Cancelled))
        );
        // Without a string id it answers nothing, and gets no response line either.
        assert_eq!(
            of(r#"{"type":"extension_ui_response","id":7,"confirmed":true}"#),
            None
        );
    }

    #[test]
    fn parses_commands_with_ids() {
        let Ok(Incoming::Command(req)) = parse_line(
            r#"{"id":"a1","type":"prompt","message":"hi","streamingBehavior":"followUp"}"#,
        ) else {
            panic!("not a command");
        };
        assert_eq!(req.id, Some(json!("a1")));
        assert_eq!(
            req.command,
            RpcCommand::Prompt {
                message: "hi".into(),
                images: vec![],
                streaming_behavior: Some(StreamingBehavior::FollowUp)
            }
        );
        let Ok(Incoming::Command(req)) =
            parse_line(r#"{"type":"set_model","provider":"p","modelId":"m"}"#)
        else {
            panic!("not a command");
        };
        assert_eq!(req.command.kind(), "set_model");
    }

    #[test]
    fn every_type_has_a_variant() {
        for kind in COMMAND_TYPES {
            let result = parse_line(&json!({"type": kind}).to_string());
            if let Err(response) = &result {
                let error = response["error"].as_str().unwrap_or_default();
                assert!(!error.starts_with("Unknown command"), "{kind}: {error}");
            }
        }
    }

    #[test]
    fn bad_lines_become_error_responses() {
        let err = parse_line(r#"{"id":7,"type":"dance"}"#).unwrap_err();
        assert_eq!(
            err,
            json!({"id":7,"type":"response","command":"dance","success":false,
                   "error":"Unknown command: dance"})
        );
        let err = parse_line("{not json").unwrap_err();
        assert_eq!(err["command"], "parse");
        assert_eq!(err["success"], false);
        let err = parse_line(r#"{"id":"x","type":"set_model"}"#).unwrap_err();
        assert_eq!(err["id"], "x");
        assert!(
            err["error"]
                .as_str()
                .unwrap_or_default()
                .contains("Invalid set_model")
        );
        assert_eq!(parse_line("  "), Ok(Incoming::Empty));
    }
}
