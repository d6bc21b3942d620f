//! The `hook` world: the `hook-probe` and `hook-second` test components answer every event
//! through a real host; the answers come back typed, failures name the package, the `ui` and
//! `session` imports are refused without their grant, and time in a dialog is not the call's.

use crate::*;
use pi_ai::{AssistantMessage, ImageContent, Message, TextContent, UserBlock};
use pi_ext_api::hooks::{
    BeforeCompactAnswer, DeliverAs, Dialog, DialogAnswer, Hook, HookAnswer, HookEvent,
    HookEventKind, HookServices, InputAnswer, InputSource, NotifyLevel, OutgoingMessage,
    SessionAccess, SessionStartReason, SystemPromptChange, ToolCallAnswer, ToolResultAnswer,
    UserInterface,
};
use pi_ext_api::{CompactionReason, ExtensionFailure};
use pi_ext_host::HookComponent;
use serde_json::{Value, json};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What the doubles saw, in order.
#[derive(Default)]
struct Seen {
    notices: Vec<(String, String, NotifyLevel)>,
    statuses: Vec<(String, Option<String>)>,
    asked: Vec<Dialog>,
    entries: Vec<(String, Value)>,
    sent: Vec<(OutgoingMessage, DeliverAs)>,
}

/// A user who answers every dialog with `answer` after `delay`, and a session that stores
/// entries in memory.
struct Doubles {
    seen: Mutex<Seen>,
    answer: Option<DialogAnswer>,
    delay: Duration,
}

impl Doubles {
    fn new(answer: Option<DialogAnswer>, delay: Duration) -> Arc<Self> {
        Arc::new(Doubles {
            seen: Mutex::new(Seen::default()),
            answer,
            delay,
        })
    }

    fn services(self: &Arc<Self>) -> HookServices {
        HookServices {
            ui: self.clone(),
            session: self.clone(),
        }
    }

    fn seen(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.seen.lock().unwrap()
    }

    fn notices(&self) -> Vec<String> {
        self.seen().notices.iter().map(|n| n.1.clone()).collect()
    }
}

impl UserInterface for Doubles {
    fn notify(&self, from: &str, text: &str, level: NotifyLevel) {
        self.seen()
            .notices
            .push((from.to_owned(), text.to_owned(), level));
    }
    fn set_status(&self, _from: &str, key: &str, text: Option<&str>) {
        self.seen()
            .statuses
            .push((key.to_owned(), text.map(str::to_owned)));
    }
    fn attention(&self, _: &str, _: &str, _: &str) {}
    fn ask(&self, _from: &str, dialog: Dialog, _timeout: Option<Duration>) -> Option<DialogAnswer> {
        self.seen().asked.push(dialog);
        std::thread::sleep(self.delay);
        self.answer.clone()
    }
}

impl SessionAccess for Doubles {
    fn session_id(&self) -> Option<String> {
        Some("s-doubles".into())
    }
    fn send_message(
        &self,
        _from: &str,
        message: OutgoingMessage,
        deliver_as: DeliverAs,
    ) -> Result<(), String> {
        self.seen().sent.push((message, deliver_as));
        Ok(())
    }
    fn append_entry(&self, _from: &str, custom_type: &str, data: Value) -> Result<(), String> {
        self.seen().entries.push((custom_type.to_owned(), data));
        Ok(())
    }
    fn entries(&self, custom_type: &str) -> Result<Vec<Value>, String> {
        Ok(self
            .seen()
            .entries
            .iter()
            .filter(|(t, _)| t == custom_type)
            .map(|(_, d)| d.clone())
            .collect())
    }
    fn set_session_name(&self, _: &str) -> Result<(), String> {
        Ok(())
    }
    fn set_label(&self, _: Option<&str>, _: Option<&str>) -> Result<(), String> {
        Ok(())
    }
}

/// A host of its own (services are per host) sharing the test binary's compiled artifacts.
fn hook_host(services: HookServices) -> ExtensionHost {
    let host = ExtensionHost::new(crate::host().cache().dir()).expect("host");
    host.set_hook_services(services);
    host
}

fn granted(ui: bool, session: bool) -> Grant {
    let mut grant = Grant::new(std::env::temp_dir());
    grant.ui = ui;
    grant.session = session;
    grant
}

fn probe_in(host: &ExtensionHost, grant: Grant, fail_closed: bool) -> HookComponent {
    hook_of(host, pi_ext_test_artifacts::HOOK_PROBE, grant, fail_closed)
}

fn hook_of(host: &ExtensionHost, path: &str, grant: Grant, fail_closed: bool) -> HookComponent {
    let component = host.component(
        id("test-hook"),
        PathBuf::from(path),
        World::Hook,
        WitVersion::LATEST,
        Arc::new(grant),
    );
    host.hook(component, fail_closed).expect("hook")
}

/// The probe with both grants and doubles that answer dialogs "yes" at once.
fn probe() -> (HookComponent, Arc<Doubles>, ExtensionHost) {
    let doubles = Doubles::new(Some(DialogAnswer::Confirmed(true)), Duration::ZERO);
    let host = hook_host(doubles.services());
    let hook = probe_in(&host, granted(true, true), false);
    (hook, doubles, host)
}

async fn ask(hook: &HookComponent, event: HookEvent) -> Result<HookAnswer, ExtensionFailure> {
    hook.handle(Arc::new(event), CancellationToken::new()).await
}

fn tool_call(input: Value) -> HookEvent {
    HookEvent::ToolCall {
        call_id: "call-7".into(),
        tool: "bash".into(),
        input,
    }
}

fn user(text: &str) -> Arc<Message> {
    Arc::new(Message::User(pi_ai::UserMessage {
        content: pi_ai::UserContent::Blocks(vec![UserBlock::Text(TextContent {
            text: text.into(),
            text_signature: None,
        })]),
        timestamp: 42,
    }))
}

fn user_text(message: &Message) -> String {
    match message {
        Message::User(u) => match &u.content {
            pi_ai::UserContent::Text(t) => t.clone(),
            pi_ai::UserContent::Blocks(blocks) => blocks
                .iter()
                .filter_map(|b| match b {
                    UserBlock::Text(t) => Some(t.text.clone()),
                    UserBlock::Image(_) => None,
                })
                .collect(),
        },
        other => panic!("not a user message: {other:?}"),
    }
}

#[tokio::test]
async fn describe_lists_every_event_and_the_probe_command_and_is_kept_for_the_next_start() {
    let (hook, _doubles, host) = probe();
    assert_eq!(hook.source(), "test-hook@0.1.0");
    for kind in [
        HookEventKind::SessionStart,
        HookEventKind::Input,
        HookEventKind::ToolCall,
        HookEventKind::AgentEnd,
    ] {
        assert!(hook.wants(kind), "{kind:?}");
    }
    assert_eq!(hook.info().events.len(), 10);
    let commands = hook.commands();
    assert_eq!(commands.len(), 1);
    assert_eq!(commands[0].name, "probe");
    assert_eq!(commands[0].description, "Probe the hook world");
    assert_eq!(commands[0].argument_hint.as_deref(), Some("<what>"));
    assert!(!hook.fails_closed());
    // A second start answers from the cache: nothing is loaded.
    let again = hook_host(HookServices::none());
    let cached = probe_in(&again, granted(false, false), false);
    assert_eq!(cached.info(), hook.info());
    assert_eq!(cached.component().loads(), 0);
    drop(host);
}

#[tokio::test]
async fn input_is_handled_transformed_or_left() {
    let (hook, _d, _h) = probe();
    let input = |text: &str| HookEvent::Input {
        text: text.into(),
        images: vec![ImageContent {
            data: "aGk=".into(),
            mime_type: "image/png".into(),
        }],
        source: InputSource::Rpc,
    };
    assert_eq!(
        ask(&hook, input("hook:handled now")).await.unwrap(),
        HookAnswer::Input(InputAnswer::Handled)
    );
    assert_eq!(
        ask(&hook, input("hook:transform the new text"))
            .await
            .unwrap(),
        HookAnswer::Input(InputAnswer::Transform {
            text: "the new text".into(),
            images: vec![ImageContent {
                data: "aGk=".into(),
                mime_type: "image/png".into(),
            }],
        })
    );
    assert_eq!(
        ask(&hook, input("plain")).await.unwrap(),
        HookAnswer::Input(InputAnswer::Continue)
    );
}

#[tokio::test]
async fn before_agent_start_appends_to_the_system_prompt_and_adds_a_message() {
    let (hook, _d, _h) = probe();
    let start = |prompt: &str| HookEvent::BeforeAgentStart {
        prompt: prompt.into(),
        system_prompt: "You are pi.".into(),
    };
    let answer = ask(&hook, start("do hook:system and hook:message"))
        .await
        .unwrap();
    assert_eq!(
        answer,
        HookAnswer::BeforeAgentStart {
            system_prompt: Some(SystemPromptChange::Append("HOOK-SYSTEM-ADDITION".into())),
            message: Some(OutgoingMessage {
                custom_type: "probe".into(),
                content: "HOOK-MESSAGE".into(),
                display: true,
                details: None,
            }),
        }
    );
    assert_eq!(
        ask(&hook, start("nothing")).await.unwrap(),
        HookAnswer::BeforeAgentStart {
            system_prompt: None,
            message: None
        }
    );
}

#[tokio::test]
async fn context_changes_only_the_last_user_message_and_keeps_the_others_as_they_were() {
    let (hook, _d, _h) = probe();
    let assistant = Arc::new(Message::from(AssistantMessage {
        model: "m".into(),
        timestamp: 7,
        ..AssistantMessage::default()
    }));
    let messages = vec![
        user("first hook:context"),
        assistant.clone(),
        user("hook:context last"),
    ];
    let answer = ask(
        &hook,
        HookEvent::Context {
            messages: messages.clone(),
        },
    )
    .await
    .unwrap();
    let HookAnswer::Context(Some(changed)) = answer else {
        panic!("{answer:?}")
    };
    assert_eq!(changed.len(), 3);
    assert_eq!(changed[0], *messages[0], "unchanged, timestamp and all");
    assert_eq!(changed[1], *assistant);
    assert_eq!(user_text(&changed[2]), "HOOK-CONTEXT-CHANGED");
    let none = ask(
        &hook,
        HookEvent::Context {
            messages: vec![user("hook:context"), user("plain")],
        },
    )
    .await
    .unwrap();
    assert_eq!(none, HookAnswer::Context(None));
}

#[tokio::test]
async fn tool_calls_are_blocked_asked_rewritten_or_allowed() {
    let (hook, _d, _h) = probe();
    let answer = |input| {
        let hook = &hook;
        async move { ask(hook, tool_call(input)).await.unwrap() }
    };
    assert_eq!(
        answer(json!({"command": "rm hook-block"})).await,
        HookAnswer::ToolCall(ToolCallAnswer::Block("probe blocked it".into()))
    );
    assert_eq!(
        answer(json!({"command": "hook-ask"})).await,
        HookAnswer::ToolCall(ToolCallAnswer::Ask("Let the probe run this?".into()))
    );
    assert_eq!(
        answer(json!({"command": "echo hook-rewrite; hook-rewrite", "n": 1})).await,
        HookAnswer::ToolCall(ToolCallAnswer::Rewrite(
            json!({"command": "echo hook-rewritten; hook-rewritten", "n": 1})
        ))
    );
    assert_eq!(
        answer(json!({"command": "ls"})).await,
        HookAnswer::ToolCall(ToolCallAnswer::Allow)
    );
}

#[tokio::test]
async fn rewrites_chain_through_a_second_hook_which_records_the_call() {
    let doubles = Doubles::new(None, Duration::ZERO);
    let host = hook_host(doubles.services());
    let first = probe_in(&host, granted(false, false), false);
    let second = hook_of(
        &host,
        pi_ext_test_artifacts::HOOK_SECOND,
        granted(false, true),
        false,
    );
    assert!(second.wants(HookEventKind::ToolCall));
    assert!(!second.wants(HookEventKind::Input));
    let HookAnswer::ToolCall(ToolCallAnswer::Rewrite(input)) =
        ask(&first, tool_call(json!({"p": "hook-rewrite"})))
            .await
            .unwrap()
    else {
        panic!("no rewrite")
    };
    let twice = ask(&second, tool_call(input)).await.unwrap();
    assert_eq!(
        twice,
        HookAnswer::ToolCall(ToolCallAnswer::Rewrite(
            json!({"p": "hook-rewritten-twice"})
        ))
    );
    assert_eq!(
        doubles.seen().entries,
        [("second-called".to_owned(), json!({"call": "call-7"}))]
    );
    // An event it did not subscribe to is not sent to it.
    let input = HookEvent::Input {
        text: "hook:handled".into(),
        images: vec![],
        source: InputSource::Interactive,
    };
    assert_eq!(
        ask(&second, input).await.unwrap(),
        HookAnswer::Input(InputAnswer::Continue)
    );
}

#[tokio::test]
async fn tool_results_are_replaced_or_kept() {
    let (hook, _d, _h) = probe();
    let result = |text: &str| HookEvent::ToolResult {
        call_id: "c".into(),
        tool: "read".into(),
        input: json!({"path": "a"}),
        content: vec![UserBlock::Text(TextContent {
            text: text.into(),
            text_signature: None,
        })],
        is_error: true,
    };
    assert_eq!(
        ask(&hook, result("says hook-replace")).await.unwrap(),
        HookAnswer::ToolResult(ToolResultAnswer::Replace {
            content: vec![UserBlock::Text(TextContent {
                text: "HOOK-REPLACED".into(),
                text_signature: None,
            })],
            is_error: false,
        })
    );
    assert_eq!(
        ask(&hook, result("fine")).await.unwrap(),
        HookAnswer::ToolResult(ToolResultAnswer::Keep)
    );
}

#[tokio::test]
async fn compaction_is_cancelled_while_the_session_holds_a_nocompact_entry() {
    let (hook, doubles, _h) = probe();
    let compact = || HookEvent::BeforeCompact {
        reason: CompactionReason::Threshold,
        tokens_before: 12_345,
    };
    assert_eq!(
        ask(&hook, compact()).await.unwrap(),
        HookAnswer::BeforeCompact(BeforeCompactAnswer::Continue)
    );
    hook.run_command("probe", "nocompact", CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(
        doubles.seen().entries,
        [("probe-nocompact".to_owned(), json!({}))]
    );
    assert_eq!(
        ask(&hook, compact()).await.unwrap(),
        HookAnswer::BeforeCompact(BeforeCompactAnswer::Cancel(
            "probe keeps the context".into()
        ))
    );
}

#[tokio::test]
async fn observed_events_reach_the_component_and_its_imports() {
    let (hook, doubles, _h) = probe();
    let start = HookEvent::SessionStart {
        reason: SessionStartReason::Resume,
        session_id: "s-1".into(),
        cwd: PathBuf::from("/work"),
    };
    assert_eq!(ask(&hook, start).await.unwrap(), HookAnswer::Observed);
    assert_eq!(
        doubles.seen().entries,
        [(
            "probe-start".to_owned(),
            json!({"reason": "resume", "host_session": "s-doubles"})
        )]
    );
    let end = HookEvent::AgentEnd {
        duration_ms: 1200,
        last_message: Some(AssistantMessage::default()),
    };
    assert_eq!(ask(&hook, end).await.unwrap(), HookAnswer::Observed);
    let turn = HookEvent::TurnEnd {
        turn_index: 0,
        message: AssistantMessage::default(),
        tool_results: vec![],
    };
    assert_eq!(ask(&hook, turn).await.unwrap(), HookAnswer::Observed);
    assert_eq!(
        ask(&hook, HookEvent::SessionShutdown).await.unwrap(),
        HookAnswer::Observed
    );
    let seen = doubles.seen();
    assert_eq!(seen.notices.len(), 1);
    assert_eq!(
        seen.notices[0],
        (
            "test-hook@0.1.0".to_owned(),
            "probe: run ended".to_owned(),
            NotifyLevel::Info
        )
    );
}

#[tokio::test]
async fn commands_talk_to_the_user_and_the_session() {
    let (hook, doubles, _h) = probe();
    let run = |args: &'static str| hook.run_command("probe", args, CancellationToken::new());
    run("confirm").await.unwrap();
    run("send hello there").await.unwrap();
    run("status busy").await.unwrap();
    run("anything else").await.unwrap();
    {
        let seen = doubles.seen();
        assert_eq!(
            seen.asked,
            [Dialog::Confirm {
                title: "Probe".into(),
                text: "Proceed?".into()
            }]
        );
        let notices: Vec<&str> = seen.notices.iter().map(|n| n.1.as_str()).collect();
        assert_eq!(notices, ["probe confirmed: yes", "probe: anything else"]);
        assert_eq!(
            seen.statuses,
            [("probe".to_owned(), Some("busy".to_owned()))]
        );
        assert_eq!(seen.sent.len(), 1);
        assert_eq!(seen.sent[0].0.content, "hello there");
        assert_eq!(seen.sent[0].1, DeliverAs::FollowUp);
    }
    let unknown = hook
        .run_command("nope", "", CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(unknown.0, "test-hook@0.1.0: serves no command `nope`");
}

#[tokio::test]
async fn session_calls_without_the_grant_are_refused_naming_the_capability() {
    let doubles = Doubles::new(None, Duration::ZERO);
    let host = hook_host(doubles.services());
    let hook = probe_in(&host, granted(true, false), false);
    hook.run_command("probe", "send hi", CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(
        doubles.notices(),
        ["capability `session` was not granted to test-hook@0.1.0"]
    );
    assert!(doubles.seen().sent.is_empty());
    let err = hook
        .run_command("probe", "nocompact", CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(
        err.0,
        "test-hook@0.1.0: capability `session` was not granted to test-hook@0.1.0"
    );
    assert!(doubles.seen().entries.is_empty());
}

#[tokio::test]
async fn dialogs_without_the_ui_grant_answer_none_and_notices_are_dropped() {
    let doubles = Doubles::new(Some(DialogAnswer::Confirmed(true)), Duration::ZERO);
    let host = hook_host(doubles.services());
    let hook = probe_in(&host, granted(false, true), false);
    hook.run_command("probe", "confirm", CancellationToken::new())
        .await
        .unwrap();
    hook.run_command("probe", "status x", CancellationToken::new())
        .await
        .unwrap();
    let seen = doubles.seen();
    assert!(seen.asked.is_empty(), "the user was asked");
    assert!(seen.notices.is_empty(), "{:?}", seen.notices);
    assert!(seen.statuses.is_empty());
}

#[tokio::test]
async fn time_in_a_dialog_does_not_count_against_the_deadline() {
    let doubles = Doubles::new(
        Some(DialogAnswer::Confirmed(false)),
        Duration::from_millis(900),
    );
    let host = hook_host(doubles.services());
    let mut grant = granted(true, true);
    grant.limits.timeout = Duration::from_millis(300);
    let hook = probe_in(&host, grant, false);
    let started = Instant::now();
    hook.run_command("probe", "confirm", CancellationToken::new())
        .await
        .expect("the dialog's time is not the call's");
    assert!(started.elapsed() >= Duration::from_millis(900));
    assert_eq!(doubles.notices(), ["probe confirmed: no"]);
}

fn short_deadline_probe(fail_closed: bool) -> (HookComponent, ExtensionHost) {
    let host = hook_host(HookServices::none());
    let mut grant = granted(false, false);
    grant.limits.timeout = Duration::from_millis(300);
    (probe_in(&host, grant, fail_closed), host)
}

#[tokio::test]
async fn a_hanging_hook_is_stopped_at_its_deadline() {
    let (hook, _h) = short_deadline_probe(false);
    let started = Instant::now();
    let err = ask(&hook, tool_call(json!({"c": "hook-hang"})))
        .await
        .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert!(
        err.0
            .starts_with("test-hook@0.1.0: deadline of 300ms exceeded"),
        "{err}"
    );
}

#[tokio::test]
async fn the_hook_deadline_is_two_seconds_unless_the_package_sets_less() {
    let host = hook_host(HookServices::none());
    let hook = probe_in(&host, granted(false, false), false);
    let loaded = hook.component().get().unwrap();
    assert_eq!(
        pi_ext_host::hook::deadline(&loaded.grant),
        Duration::from_secs(2)
    );
    let (short, _h) = short_deadline_probe(false);
    let loaded = short.component().get().unwrap();
    assert_eq!(
        pi_ext_host::hook::deadline(&loaded.grant),
        Duration::from_millis(300)
    );
}

#[tokio::test]
async fn a_trapping_hook_and_a_garbage_answer_are_failures_naming_the_package() {
    let (hook, _h) = short_deadline_probe(true);
    assert!(hook.fails_closed());
    let trap = ask(&hook, tool_call(json!({"c": "hook-trap"})))
        .await
        .unwrap_err();
    assert!(trap.0.starts_with("test-hook@0.1.0: trap"), "{trap}");
    let garbage = ask(&hook, tool_call(json!({"c": "hook-garbage"})))
        .await
        .unwrap_err();
    assert!(
        garbage
            .0
            .starts_with("test-hook@0.1.0: the rewritten tool input is not JSON"),
        "{garbage}"
    );
    // The component is still usable afterwards.
    assert_eq!(
        ask(&hook, tool_call(json!({"c": "ls"}))).await.unwrap(),
        HookAnswer::ToolCall(ToolCallAnswer::Allow)
    );
}

async fn count(hook: &HookComponent) -> String {
    match ask(hook, tool_call(json!({"c": "hook-count"})))
        .await
        .unwrap()
    {
        HookAnswer::ToolCall(ToolCallAnswer::Block(reason)) => reason,
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn one_instance_answers_event_after_event_until_a_call_fails_or_prints() {
    let (hook, _doubles, _host) = probe();
    assert_eq!(count(&hook).await, "count 1");
    assert_eq!(count(&hook).await, "count 2");
    // A trap leaves the instance in an unknown state: the next call gets a new one.
    ask(&hook, tool_call(json!({"c": "hook-trap"})))
        .await
        .unwrap_err();
    assert_eq!(count(&hook).await, "count 1");
    assert_eq!(count(&hook).await, "count 2");
    // What a component prints fills its pipes, which last as long as its store.
    assert_eq!(
        ask(&hook, tool_call(json!({"c": "hook-print"})))
            .await
            .unwrap(),
        HookAnswer::ToolCall(ToolCallAnswer::Allow)
    );
    assert_eq!(count(&hook).await, "count 1");
}

#[tokio::test]
async fn a_prepared_hook_is_loaded_before_its_first_event() {
    let (hook, _doubles, _host) = probe();
    assert!(!hook.component().is_resident());
    let loads = hook.component().loads();
    hook.prepare();
    assert!(hook.component().is_resident());
    assert_eq!(hook.component().loads(), loads + 1);
    // The first event finds the instance made ahead (its count starts there).
    assert_eq!(count(&hook).await, "count 1");
    assert_eq!(hook.component().loads(), loads + 1);
}

#[test]
fn a_package_saying_fail_closed_opens_hooks_that_fail_closed() {
    let tmp = tempfile::tempdir().unwrap();
    let wasm = std::fs::read(pi_ext_test_artifacts::HOOK_PROBE).unwrap();
    for (name, table) in [("closed", "\n[hook]\nfail = \"closed\"\n"), ("open", "")] {
        let dir = tmp.path().join("extensions").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("probe.wasm"), &wasm).unwrap();
        let manifest = format!(
            "[package]\nname = \"{name}\"\nversion = \"1.0.0\"\nwit = \"0.3.0\"\n\n\
             [[component]]\npath = \"probe.wasm\"\nworld = \"hook\"\n\n\
             [capabilities]\nui = true\nsession = true\n{table}"
        );
        std::fs::write(dir.join("pi-extension.toml"), manifest).unwrap();
    }
    let host = ExtensionHost::new(tmp.path().join("cache")).unwrap();
    let paths = pi_ext_host::SearchPaths {
        global: Some(tmp.path().join("extensions")),
        ..Default::default()
    };
    let (found, errors) = host.discover(&paths);
    assert!(errors.is_empty(), "{errors:?}");
    let mut closed = Vec::new();
    for package in &found {
        let grant = Grant::from_manifest(&package.manifest, tmp.path());
        assert!(grant.ui && grant.session);
        let opened = host.open(package, grant).unwrap();
        assert!(opened.tools.is_empty());
        assert_eq!(opened.hooks.len(), 1);
        let hook = &opened.hooks[0];
        assert_eq!(hook.commands()[0].name, "probe");
        closed.push((package.manifest.name.clone(), hook.fails_closed()));
    }
    closed.sort();
    assert_eq!(
        closed,
        [("closed".to_owned(), true), ("open".to_owned(), false)]
    );
}

/// A 0.3.0 tool opened by the host reaches the same services, under the same grants.
#[tokio::test]
async fn a_tool_uses_ui_and_session_only_as_granted() {
    let tmp = tempfile::tempdir().unwrap();
    let wasm = std::fs::read(pi_ext_test_artifacts::TOOL).unwrap();
    let dir = tmp.path().join("extensions").join("talker");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("tool.wasm"), &wasm).unwrap();
    let manifest = "[package]\nname = \"talker\"\nversion = \"1.0.0\"\nwit = \"0.3.0\"\n\n\
                    [[component]]\npath = \"tool.wasm\"\nworld = \"tool\"\n\n\
                    [capabilities]\nui = true\nsession = true\n";
    std::fs::write(dir.join("pi-extension.toml"), manifest).unwrap();
    let doubles = Doubles::new(None, Duration::ZERO);
    let host = ExtensionHost::new(tmp.path().join("cache")).unwrap();
    host.set_hook_services(doubles.services());
    let paths = pi_ext_host::SearchPaths {
        global: Some(tmp.path().join("extensions")),
        ..Default::default()
    };
    let (found, _) = host.discover(&paths);
    let talk = |grant: Grant| {
        let opened = host.open(&found[0], grant).unwrap();
        let tool = opened
            .tools
            .iter()
            .find(|t| t.tool_description().name == "probe")
            .unwrap()
            .clone();
        async move { run(&tool, json!({"op": "talk"})).await }
    };
    let all = Grant::from_manifest(&found[0].manifest, tmp.path());
    assert_eq!(text(&talk(all).await.unwrap()), "stored");
    assert_eq!(doubles.notices(), ["the tool says hi"]);
    assert_eq!(
        doubles.seen().entries,
        [("tool-entry".to_owned(), json!({"n": 1}))]
    );
    let refused = talk(Grant::new(tmp.path())).await.unwrap_err();
    assert_eq!(
        refused.message,
        "extension talker@1.0.0: capability `session` was not granted to talker@1.0.0"
    );
    assert_eq!(
        doubles.notices().len(),
        1,
        "a notice without `ui` is dropped"
    );
}

#[tokio::test]
async fn a_hook_granted_writes_has_a_read_only_copy_for_plan_mode() {
    use pi_ext_api::hooks::Hook;
    let doubles = Doubles::new(Some(DialogAnswer::Confirmed(true)), Duration::ZERO);
    let host = hook_host(doubles.services());
    let mut writer = granted(true, true);
    writer.filesystem = pi_ext_host::FsAccess::Write;
    let hook = probe_in(&host, writer, false);
    let copy = hook.read_only().expect("a copy for a hook that can write");
    // The copy is the same hook: same source, events and answers.
    assert_eq!(copy.source(), hook.source());
    let event = Arc::new(tool_call(json!({"command": "rm hook-block"})));
    let answer = copy.handle(event, CancellationToken::new()).await.unwrap();
    assert_eq!(
        answer,
        HookAnswer::ToolCall(ToolCallAnswer::Block("probe blocked it".into()))
    );
    // A hook that can change nothing needs no copy.
    let reader = probe_in(&host, granted(true, true), false);
    assert!(reader.read_only().is_none());
}
