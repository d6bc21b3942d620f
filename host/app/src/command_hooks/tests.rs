//! Command hooks driven through [`Hook::handle`] with real shell scripts.

use super::*;
use pi_ai::{TextContent, UserBlock};
use pi_ext_api::hooks::{
    Dialog, DialogAnswer, HookAnswer, HookEvent, HookEventKind, InputAnswer, InputSource,
    NotifyLevel, ToolCallAnswer, ToolResultAnswer,
};
use serde_json::{Value, json};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

use crate::test_dirs::{Dirs, dirs};

/// A script in the project that runs `body` (with `$IN` the file its stdin was saved to).
fn script(d: &Dirs, name: &str, body: &str) -> String {
    let path = d.cwd.join(name);
    std::fs::write(
        &path,
        format!("#!/bin/sh\nIN=\"$(dirname \"$0\")/{name}.in\"\ncat > \"$IN\"\n{body}\n"),
    )
    .unwrap();
    format!("sh {}", path.display())
}

fn stdin_of(d: &Dirs, name: &str) -> Option<Value> {
    let text = std::fs::read_to_string(d.cwd.join(format!("{name}.in"))).ok()?;
    serde_json::from_str(&text).ok()
}

fn hooks_setting(event: &str, matcher: &str, command: &str, timeout: u64) -> Value {
    json!({"hooks": {event: [{"matcher": matcher, "hooks": [
        {"type": "command", "command": command, "timeout": timeout}]}]}})
}

fn load(d: &Dirs, global: Value, project: Value, can_ask: bool) -> CommandHooks {
    load_with(d, global, project, can_ask, None)
}

fn load_with(
    d: &Dirs,
    global: Value,
    project: Value,
    can_ask: bool,
    ui: Option<Arc<dyn UserInterface>>,
) -> CommandHooks {
    let settings = SettingsManager::from_values(global, project);
    CommandHooks::load(
        &LoadOptions {
            settings: &settings,
            agent_dir: &d.agent,
            cwd: &d.cwd,
            disabled: false,
            can_ask,
        },
        ui,
    )
}

fn bash_call(command: &str) -> Arc<HookEvent> {
    Arc::new(HookEvent::ToolCall {
        call_id: "c1".into(),
        tool: "bash".into(),
        input: json!({"command": command}),
    })
}

async fn answer(hooks: &CommandHooks, event: Arc<HookEvent>) -> Result<HookAnswer, String> {
    assert_eq!(hooks.hooks.len(), 1, "{:?}", hooks);
    let hook = &hooks.hooks[0];
    assert!(hook.wants(event.kind()));
    hook.handle(event, CancellationToken::new())
        .await
        .map_err(|e| e.0)
}

#[tokio::test]
async fn exit_2_blocks_with_stderr_and_the_script_reads_the_event() {
    let d = dirs();
    let cmd = script(&d, "guard.sh", "echo 'no rm here' >&2\nexit 2");
    let hooks = load(
        &d,
        hooks_setting("PreToolUse", "Bash", &cmd, 10),
        json!({}),
        false,
    );
    hooks.set_session("s-1", Some("/tmp/s-1.jsonl".into()));
    assert_eq!(hooks.hooks[0].source(), format!("settings hook {cmd}"));
    assert!(!hooks.hooks[0].wants(HookEventKind::ToolResult));
    let got = answer(&hooks, bash_call("rm -rf x")).await.unwrap();
    assert_eq!(
        got,
        HookAnswer::ToolCall(ToolCallAnswer::Block("no rm here".into()))
    );
    let input = stdin_of(&d, "guard.sh").unwrap();
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["tool_name"], "bash");
    assert_eq!(input["tool_input"]["command"], "rm -rf x");
    assert_eq!(input["session_id"], "s-1");
    assert_eq!(input["transcript_path"], "/tmp/s-1.jsonl");
    assert_eq!(input["cwd"], d.cwd.to_string_lossy().as_ref());
}

#[tokio::test]
async fn stdout_json_blocks_asks_allows_and_denies() {
    let d = dirs();
    let cases = [
        (
            r#"{"decision":"block","reason":"json says no"}"#,
            ToolCallAnswer::Block("json says no".into()),
        ),
        (
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"denied"}}"#,
            ToolCallAnswer::Block("denied".into()),
        ),
        (
            r#"{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"really?"}}"#,
            ToolCallAnswer::Ask("really?".into()),
        ),
        (
            r#"{"hookSpecificOutput":{"permissionDecision":"allow"}}"#,
            ToolCallAnswer::Allow,
        ),
    ];
    for (stdout, expected) in cases {
        let cmd = script(&d, "json.sh", &format!("echo '{stdout}'"));
        let hooks = load(
            &d,
            hooks_setting("PreToolUse", "", &cmd, 10),
            json!({}),
            false,
        );
        let got = answer(&hooks, bash_call("ls")).await.unwrap();
        assert_eq!(got, HookAnswer::ToolCall(expected), "{stdout}");
    }
}

#[tokio::test]
async fn other_exit_codes_fail_open_naming_the_hook() {
    let d = dirs();
    let cmd = script(&d, "broken.sh", "echo oops >&2\nexit 1");
    let hooks = load(
        &d,
        hooks_setting("PreToolUse", "*", &cmd, 10),
        json!({}),
        false,
    );
    let error = answer(&hooks, bash_call("ls")).await.unwrap_err();
    assert!(error.contains("exited with code 1: oops"), "{error}");
    assert!(error.contains(&cmd), "{error}");
    let missing = load(
        &d,
        hooks_setting("PreToolUse", "*", "/no/such/hook", 10),
        json!({}),
        false,
    );
    let error = answer(&missing, bash_call("ls")).await.unwrap_err();
    assert!(error.contains("exited with code 127"), "{error}");
}

#[tokio::test]
async fn a_hook_past_its_timeout_or_cancelled_is_killed() {
    let d = dirs();
    let pid_file = d.cwd.join("sleeper.pid");
    let cmd = script(
        &d,
        "slow.sh",
        &format!("sleep 30 &\necho $! > {}\nwait", pid_file.display()),
    );
    let hooks = load(
        &d,
        hooks_setting("PreToolUse", "", &cmd, 1),
        json!({}),
        false,
    );
    let started = Instant::now();
    let error = answer(&hooks, bash_call("ls")).await.unwrap_err();
    assert!(error.contains("timed out after 1 s"), "{error}");
    assert!(started.elapsed() < Duration::from_secs(10));
    // What the command started went with it.
    let sleeper = std::fs::read_to_string(&pid_file).unwrap();
    assert!(
        gone(sleeper.trim()).await,
        "the hook's child {sleeper} survived"
    );

    let hooks = load(
        &d,
        hooks_setting("PreToolUse", "", &cmd, 60),
        json!({}),
        false,
    );
    let cancel = CancellationToken::new();
    let canceller = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        canceller.cancel();
    });
    let started = Instant::now();
    let error = hooks.hooks[0]
        .handle(bash_call("ls"), cancel)
        .await
        .unwrap_err();
    assert!(error.0.contains("cancelled"), "{}", error.0);
    assert!(started.elapsed() < Duration::from_secs(10));
}

/// Whether process `pid` ended (gone, or a zombie waiting to be reaped) within 5 s.
async fn gone(pid: &str) -> bool {
    for _ in 0..50 {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return true,
            Ok(stat)
                if stat
                    .rsplit(')')
                    .next()
                    .is_some_and(|s| s.trim_start().starts_with('Z')) =>
            {
                return true;
            }
            Ok(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    false
}

#[tokio::test]
async fn matchers_use_pi_and_claude_code_names() {
    let d = dirs();
    let cmd = script(&d, "edit.sh", "exit 2");
    let hooks = load(
        &d,
        hooks_setting("PreToolUse", "Edit|Write", &cmd, 10),
        json!({}),
        false,
    );
    let call = |tool: &str| {
        Arc::new(HookEvent::ToolCall {
            call_id: "c".into(),
            tool: tool.into(),
            input: json!({"path": "a"}),
        })
    };
    // Not matched: not run, no opinion.
    assert_eq!(
        answer(&hooks, call("bash")).await.unwrap(),
        HookAnswer::ToolCall(ToolCallAnswer::Allow)
    );
    assert!(stdin_of(&d, "edit.sh").is_none());
    assert_eq!(
        answer(&hooks, call("write")).await.unwrap(),
        HookAnswer::ToolCall(ToolCallAnswer::Block("blocked by a hook".into()))
    );
    assert_eq!(stdin_of(&d, "edit.sh").unwrap()["tool_name"], "write");
}

#[tokio::test]
async fn post_tool_use_block_adds_the_reason_to_the_result() {
    let d = dirs();
    let cmd = script(&d, "post.sh", "echo 'secret in output' >&2\nexit 2");
    let hooks = load(
        &d,
        hooks_setting("PostToolUse", "bash", &cmd, 10),
        json!({}),
        false,
    );
    let original = vec![UserBlock::Text(TextContent {
        text: "done".into(),
        text_signature: None,
    })];
    let event = Arc::new(HookEvent::ToolResult {
        call_id: "c".into(),
        tool: "bash".into(),
        input: json!({"command": "cat .env"}),
        content: original.clone(),
        is_error: false,
    });
    let HookAnswer::ToolResult(ToolResultAnswer::Replace { content, is_error }) =
        answer(&hooks, event).await.unwrap()
    else {
        panic!("not replaced");
    };
    assert!(!is_error);
    assert_eq!(content[0], original[0]);
    let UserBlock::Text(added) = &content[1] else {
        panic!("no text added")
    };
    assert_eq!(added.text, "PostToolUse hook: secret in output");
    assert_eq!(
        stdin_of(&d, "post.sh").unwrap()["tool_response"]["content"],
        "done"
    );
}

#[tokio::test]
async fn user_prompt_submit_can_drop_or_extend_the_prompt() {
    let d = dirs();
    let input = || {
        Arc::new(HookEvent::Input {
            text: "deploy now".into(),
            images: vec![],
            source: InputSource::Interactive,
        })
    };
    let stop = script(
        &d,
        "stop.sh",
        r#"echo '{"continue": false, "stopReason": "frozen"}'"#,
    );
    let hooks = load(
        &d,
        hooks_setting("UserPromptSubmit", "", &stop, 10),
        json!({}),
        false,
    );
    assert_eq!(
        answer(&hooks, input()).await.unwrap(),
        HookAnswer::Input(InputAnswer::Handled)
    );
    assert_eq!(stdin_of(&d, "stop.sh").unwrap()["prompt"], "deploy now");
    let context = script(&d, "ctx.sh", "echo 'branch: main'");
    let hooks = load(
        &d,
        hooks_setting("UserPromptSubmit", "", &context, 10),
        json!({}),
        false,
    );
    assert_eq!(
        answer(&hooks, input()).await.unwrap(),
        HookAnswer::Input(InputAnswer::Transform {
            text: "deploy now\n\nbranch: main".into(),
            images: vec![]
        })
    );
}

/// A user interface that answers every confirm with `yes` and counts the questions.
struct Answering {
    yes: bool,
    asked: Mutex<u32>,
}

impl UserInterface for Answering {
    fn notify(&self, _: &str, _: &str, _: NotifyLevel) {}
    fn set_status(&self, _: &str, _: &str, _: Option<&str>) {}
    fn attention(&self, _: &str, _: &str, _: &str) {}
    fn ask(&self, _: &str, dialog: Dialog, _: Option<Duration>) -> Option<DialogAnswer> {
        assert!(matches!(dialog, Dialog::Confirm { .. }));
        *self.asked.lock().unwrap() += 1;
        Some(DialogAnswer::Confirmed(self.yes))
    }
}

#[tokio::test]
async fn project_hooks_run_only_approved_or_after_a_yes() {
    let d = dirs();
    let cmd = script(&d, "proj.sh", "exit 2");
    let project = hooks_setting("PreToolUse", "", &cmd, 10);
    // Nobody to ask: skipped, and the warning says how to approve.
    let hooks = load(&d, json!({}), project.clone(), false);
    assert!(hooks.hooks.is_empty());
    assert!(
        hooks.warnings[0].contains("pi hooks approve") && hooks.warnings[0].contains(&cmd),
        "{:?}",
        hooks.warnings
    );
    // Asked at first use: a no skips it for the run, asked once.
    let no = Arc::new(Answering {
        yes: false,
        asked: Mutex::new(0),
    });
    let hooks = load_with(&d, json!({}), project.clone(), true, Some(no.clone()));
    assert!(hooks.hooks[0].source().ends_with(" (project)"));
    for _ in 0..2 {
        assert_eq!(
            answer(&hooks, bash_call("ls")).await.unwrap(),
            HookAnswer::ToolCall(ToolCallAnswer::Allow)
        );
    }
    assert_eq!(*no.asked.lock().unwrap(), 1);
    assert!(stdin_of(&d, "proj.sh").is_none());
    // A yes runs it and is remembered: the next start-up runs it without asking.
    let yes = Arc::new(Answering {
        yes: true,
        asked: Mutex::new(0),
    });
    let hooks = load(&d, json!({}), project.clone(), true);
    hooks.set_ui(yes.clone());
    assert_eq!(
        answer(&hooks, bash_call("ls")).await.unwrap(),
        HookAnswer::ToolCall(ToolCallAnswer::Block("blocked by a hook".into()))
    );
    assert_eq!(approved(&d.agent, &d.cwd), [cmd.clone()].into());
    let hooks = load(&d, json!({}), project, false);
    assert!(hooks.warnings.is_empty(), "{:?}", hooks.warnings);
    assert_eq!(hooks.hooks.len(), 1);
    // The command changed: the approval is dropped.
    let changed = hooks_setting("PreToolUse", "", &format!("{cmd} --v2"), 10);
    let hooks = load(&d, json!({}), changed, false);
    assert!(hooks.hooks.is_empty());
    assert!(approved(&d.agent, &d.cwd).is_empty());
}

#[tokio::test]
async fn the_flag_and_the_setting_turn_them_all_off() {
    let d = dirs();
    let global = hooks_setting("PreToolUse", "", "exit 2", 10);
    let settings = SettingsManager::from_values(global.clone(), json!({}));
    let options = |disabled| LoadOptions {
        settings: &settings,
        agent_dir: &d.agent,
        cwd: &d.cwd,
        disabled,
        can_ask: false,
    };
    assert_eq!(CommandHooks::load(&options(false), None).hooks.len(), 1);
    assert!(CommandHooks::load(&options(true), None).hooks.is_empty());
    let mut off = global;
    off["commandHooks"] = false.into();
    assert!(load(&d, off, json!({}), false).hooks.is_empty());
}
