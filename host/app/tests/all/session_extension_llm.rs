//! A compactor component granted `llm` inside a session (no binary): its model request goes
//! through the session's stream path on the session's (current-thread) runtime, and the
//! session's `abort` stops it.

use super::session_support::*;
use pi_ext_host::{ExtensionHost, ExtensionId, Grant, LazyComponent, WitVersion, World};
use pi_mock_llm::{Api, Reply, Turn};
use std::sync::Arc;
use std::time::Duration;

/// The test `llm_compactor` granted `llm`; the host's cache lives in `dir`.
fn llm_compactor(dir: &std::path::Path) -> Arc<LazyComponent> {
    let host = ExtensionHost::new(dir.join("cache")).unwrap();
    let mut grant = Grant::new(dir);
    grant.llm = true;
    host.component(
        Arc::new(ExtensionId {
            name: "llmsum".into(),
            version: "0.1.0".into(),
        }),
        pi_ext_test_artifacts::LLM_COMPACTOR.into(),
        World::Compactor,
        WitVersion::LATEST,
        Arc::new(grant),
    )
}

fn rig() -> Rig {
    let rig = RigBuilder::new(Api::OpenAiCompletions)
        .settings(serde_json::json!({"compaction": {"keepRecentTokens": 1}}))
        .seed(seed_history)
        .real_clock()
        .build();
    let component = llm_compactor(rig.dir.path());
    rig.app.add_extension_compactor(component);
    rig
}

#[tokio::test]
async fn the_compactors_request_runs_on_the_sessions_runtime() {
    let rig = rig();
    rig.mock.push(Turn::text("from the model"));
    let result = rig.app.compact(Some("llm")).await.unwrap();
    assert_eq!(result.summary, "model summary (mock-model): from the model");
    let requests = rig.mock.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].header("authorization"), Some("Bearer test-key"));
}

#[tokio::test]
async fn abort_stops_the_compactors_request() {
    let rig = rig();
    rig.mock.push(Reply::stall_before_headers());
    let session = rig.app.clone();
    let compaction = tokio::spawn(async move { session.compact(Some("llm")).await });
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while rig.mock.requests().is_empty() {
        assert!(std::time::Instant::now() < deadline, "no request was sent");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    rig.app.abort();
    let outcome = tokio::time::timeout(Duration::from_secs(10), compaction)
        .await
        .expect("the compaction ended after the abort")
        .unwrap();
    // The compactor either saw its request aborted (and said so) or was stopped itself and
    // pi's own summary was cancelled; it never waits for the stalled reply.
    match outcome {
        Ok(result) => assert_eq!(
            result.summary, "model unavailable: Request was aborted",
            "{result:?}"
        ),
        Err(error) => assert!(error.to_string().contains("cancelled"), "{error}"),
    }
    assert_eq!(rig.mock.requests().len(), 1);
}
