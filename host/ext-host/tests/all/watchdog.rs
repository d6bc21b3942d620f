//! Calls that would hold their host thread — a ten-minute sleep, opening a FIFO, an HTTP
//! server that accepts and never answers, a `describe` that sleeps, a model bridge that never
//! returns — end at their (shortened) deadline or at an abort, with an error naming the
//! extension, and the host keeps working. Bounds are generous: the machine may be loaded.

use crate::*;
use pi_ai::{AssistantMessage, Context, Message, StopReason, StreamOptions, UserContent};
use pi_ext_api::{CompactionPreparation, LlmBridge, MessageRenderer, RenderTarget};
use pi_ext_host::{ComponentCompactor, ComponentProvider, ComponentRenderer, FsAccess};
use serde_json::json;
use std::net::TcpListener;
use std::time::{Duration, Instant};

/// Far above the shortened deadlines, far below the ten minutes the components ask for.
const BOUND: Duration = Duration::from_secs(10);

fn short(grant: Grant, ms: u64) -> Grant {
    let mut grant = grant;
    grant.limits.timeout = Duration::from_millis(ms);
    grant
}

fn assert_ended_in_time(started: Instant, at_least: Duration) {
    let took = started.elapsed();
    assert!(took >= at_least, "ended before its deadline: {took:?}");
    assert!(took < BOUND, "took {took:?}");
}

#[tokio::test]
async fn a_sleeping_tool_call_ends_at_its_deadline() {
    let ws = Workspace::create();
    let tool = test_tool(short(ws.grant(), 1000), "probe");
    let started = Instant::now();
    let err = run(&tool, json!({"op": "sleep"}))
        .await
        .expect_err("stopped");
    assert_eq!(
        err.message,
        "extension test-tool@0.1.0: deadline of 1s exceeded; the call was interrupted"
    );
    assert_ended_in_time(started, Duration::from_millis(900));
    let echo = test_tool(ws.grant(), "echo");
    assert_eq!(text(&run(&echo, json!({})).await.expect("works")), "{}");
}

/// Without a watchdog (a direct call on this thread) the sleep still ends at the deadline:
/// the bounded `wasi:io/poll` stops it, not only the caller's giving up.
#[test]
fn a_sleep_ends_at_the_deadline_inside_the_call_too() {
    let ws = Workspace::create();
    let lazy = component(
        pi_ext_test_artifacts::TOOL,
        World::Tool,
        short(ws.grant(), 1000),
        "test-tool",
    );
    let loaded = lazy.get().expect("load");
    let started = Instant::now();
    let err = pi_ext_host::tool::call_once(&loaded, "probe", r#"{"op":"sleep"}"#, 1 << 20)
        .expect_err("stopped");
    assert_eq!(
        err.to_string(),
        "extension test-tool@0.1.0: deadline of 1s exceeded; the call was interrupted"
    );
    assert_ended_in_time(started, Duration::from_millis(900));
}

#[tokio::test]
async fn a_sleeping_tool_call_ends_at_once_when_aborted() {
    let ws = Workspace::create();
    // The default deadline (30 s): only the abort can end this call in time.
    let tool = test_tool(ws.grant(), "probe");
    let cancel = CancellationToken::new();
    let abort = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        abort.cancel();
    });
    let started = Instant::now();
    let err = tool
        .run("call-1", &json!({"op": "sleep"}), cancel, None)
        .await
        .expect_err("aborted");
    assert_eq!(err.message, "extension test-tool@0.1.0: aborted");
    assert_ended_in_time(started, Duration::from_millis(250));
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success(), "mkfifo {path:?}");
}

#[tokio::test]
async fn opening_a_fifo_in_the_workspace_is_refused() {
    let ws = Workspace::create();
    mkfifo(&ws.dir.join("pipe"));
    let grant = Grant {
        filesystem: FsAccess::Read,
        ..short(ws.grant(), 5000)
    };
    let started = Instant::now();
    let err = run(&test_tool(grant.clone(), "probe"), json!({"op": "fifo"}))
        .await
        .expect_err("refused");
    assert!(
        err.message
            .starts_with("extension test-tool@0.1.0: cannot open pipe:"),
        "{}",
        err.message
    );
    let read = run(&test_tool(grant, "read_file"), json!({"path": "pipe"}))
        .await
        .expect_err("refused");
    assert!(
        read.message
            .starts_with("extension test-tool@0.1.0: cannot read pipe:"),
        "{}",
        read.message
    );
    // Refused, not waited for until the deadline.
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    let hello = run(
        &test_tool(
            Grant {
                filesystem: FsAccess::Read,
                ..ws.grant()
            },
            "read_file",
        ),
        json!({"path": "hello.txt"}),
    )
    .await
    .expect("regular files still open");
    assert_eq!(text(&hello), "hello from the workspace");
}

/// A loopback server that accepts connections and never answers; holds them until dropped.
struct SilentServer {
    addr: String,
}

impl SilentServer {
    fn start() -> SilentServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("addr").to_string();
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for stream in listener.incoming().flatten() {
                held.push(stream);
            }
        });
        SilentServer { addr }
    }
}

fn silent_provider(
    server: &SilentServer,
    timeout_ms: u64,
) -> (Arc<ComponentProvider>, pi_ai::Model) {
    let ws = Workspace::create();
    let grant = Grant {
        network: vec![server.addr.clone()],
        ..short(ws.grant(), timeout_ms)
    };
    let component = component(
        pi_ext_test_artifacts::PROVIDER,
        World::Provider,
        grant,
        "wasm-provider",
    );
    let provider =
        Arc::new(ComponentProvider::load(component.get().expect("load")).expect("models"));
    let mut model = provider.models()[0].clone();
    model.base_url = format!("http://{}/v1", server.addr);
    (provider, model)
}

fn hello() -> Context {
    Context {
        system_prompt: None,
        messages: vec![Message::User(pi_ai::UserMessage {
            content: UserContent::Text("hello".into()),
            timestamp: 0,
        })]
        .into_iter()
        .map(std::sync::Arc::new)
        .collect(),
        tools: vec![],
    }
}

#[tokio::test]
async fn a_provider_waiting_on_a_silent_server_ends_at_its_deadline() {
    let server = SilentServer::start();
    let (provider, model) = silent_provider(&server, 1500);
    let started = Instant::now();
    let message = pi_ai::ApiProvider::stream(
        provider.as_ref(),
        &model,
        &hello(),
        StreamOptions::default(),
    )
    .result()
    .await;
    assert_ended_in_time(started, Duration::from_millis(1400));
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(
        message.error_message.as_deref(),
        Some("extension wasm-provider@0.1.0: deadline of 1.5s exceeded; the call was interrupted")
    );
}

#[tokio::test]
async fn a_provider_waiting_on_a_silent_server_ends_at_once_when_aborted() {
    let server = SilentServer::start();
    let (provider, model) = silent_provider(&server, 30_000);
    let options = StreamOptions::default();
    let abort = options.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        abort.cancel();
    });
    let started = Instant::now();
    let message = pi_ai::ApiProvider::stream(provider.as_ref(), &model, &hello(), options)
        .result()
        .await;
    assert_ended_in_time(started, Duration::from_millis(250));
    assert_eq!(
        message.stop_reason,
        StopReason::Aborted,
        "{:?}",
        message.error_message
    );
}

#[test]
fn a_describe_that_sleeps_ends_at_its_deadline() {
    let ws = Workspace::create();
    let component = component(
        pi_ext_test_artifacts::SLOW_DESCRIBE,
        World::Tool,
        short(ws.grant(), 1000),
        "slow-describe",
    );
    let started = Instant::now();
    let err = host().describe(&component).expect_err("stopped");
    assert_eq!(
        err.to_string(),
        "extension slow-describe@0.1.0: deadline of 1s exceeded; the call was interrupted"
    );
    assert_ended_in_time(started, Duration::from_millis(900));
}

fn preparation(instructions: &str) -> CompactionPreparation {
    let user = |text: &str| {
        Message::User(pi_ai::UserMessage {
            content: UserContent::Text(text.into()),
            timestamp: 0,
        })
    };
    CompactionPreparation {
        messages_to_summarize: vec![user("one"), user("two")],
        first_kept_entry_id: "e1".into(),
        custom_instructions: Some(instructions.into()),
        ..CompactionPreparation::default()
    }
}

#[tokio::test]
async fn a_sleeping_compactor_ends_at_its_deadline() {
    let ws = Workspace::create();
    let component = component(
        pi_ext_test_artifacts::COMPACTOR,
        World::Compactor,
        short(ws.grant(), 1000),
        "compactor",
    );
    let compactor = ComponentCompactor::new(component.get().expect("load"));
    ends_at_one_second(&compactor, "sleep", "compactor@0.1.0").await;
}

/// Compacts with `instructions` and checks the call ended at its 1 s deadline.
async fn ends_at_one_second(compactor: &ComponentCompactor, instructions: &str, id: &str) {
    let started = Instant::now();
    let err = compactor
        .compact(&preparation(instructions), CancellationToken::new())
        .await
        .expect_err("stopped");
    assert_eq!(
        err.to_string(),
        format!("extension {id}: deadline of 1s exceeded; the call was interrupted")
    );
    assert_ended_in_time(started, Duration::from_millis(900));
}

/// A model bridge that never answers: the compactor's thread is stuck in the host, where no
/// interrupt reaches it; only the watchdog can give the caller its answer.
struct StuckLlm;

impl LlmBridge for StuckLlm {
    fn complete(
        &self,
        _model: Option<String>,
        _context: Context,
    ) -> Result<AssistantMessage, String> {
        loop {
            std::thread::park();
        }
    }
}

/// The llm test compactor under `grant` (plus `llm`), answered by [`StuckLlm`].
fn stuck_compactor(mut grant: Grant) -> ComponentCompactor {
    grant.llm = true;
    let lazy = component(
        pi_ext_test_artifacts::LLM_COMPACTOR,
        World::Compactor,
        grant,
        "stuck-compactor",
    );
    ComponentCompactor::new(lazy.get().expect("load")).with_llm(Arc::new(StuckLlm))
}

#[tokio::test]
async fn a_compactor_stuck_in_the_host_is_abandoned_at_its_deadline() {
    let ws = Workspace::create();
    let compactor = stuck_compactor(short(ws.grant(), 1000));
    ends_at_one_second(&compactor, "llm", "stuck-compactor@0.1.0").await;

    // And an abort ends such a call at once (default deadline).
    let compactor = stuck_compactor(ws.grant());
    let cancel = CancellationToken::new();
    let abort = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        abort.cancel();
    });
    let started = Instant::now();
    let err = compactor
        .compact(&preparation("llm"), cancel)
        .await
        .expect_err("aborted");
    assert_eq!(err.to_string(), "extension stuck-compactor@0.1.0: aborted");
    assert_ended_in_time(started, Duration::from_millis(250));
}

#[test]
fn a_sleeping_renderer_ends_at_its_deadline() {
    let ws = Workspace::create();
    let component = component(
        pi_ext_test_artifacts::RENDERER,
        World::Renderer,
        short(ws.grant(), 1000),
        "notes",
    );
    let renderer = ComponentRenderer::load(component.get().expect("load")).expect("renderer");
    let payload = json!({});
    let target = RenderTarget::CustomMessage {
        custom_type: "sleepy",
        payload: &payload,
    };
    let started = Instant::now();
    let err = renderer.render(&target, 40).expect_err("stopped");
    assert_eq!(
        err.0,
        "extension notes@0.1.0: deadline of 1s exceeded; the call was interrupted"
    );
    assert_ended_in_time(started, Duration::from_millis(900));
}
