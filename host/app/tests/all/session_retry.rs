//! Session-level retry over real HTTP: transient failures retried after 2/4/8 s
//! (asserted on an injected clock), give-up after 3, quota and billing never retried, abort
//! stops the wait.

use crate::session_support::*;
use pi_app::SessionEvent;
use pi_mock_llm::{Api, Reply, Turn};
use serde_json::json;
use std::time::{Duration, Instant};

fn retry_starts(rig: &Rig) -> Vec<(u32, u64, String)> {
    rig.session_events()
        .into_iter()
        .filter_map(|e| match e {
            SessionEvent::AutoRetryStart {
                attempt,
                delay_ms,
                error_message,
                ..
            } => Some((attempt, delay_ms, error_message)),
            _ => None,
        })
        .collect()
}

fn retry_end(rig: &Rig) -> Option<(bool, u32, Option<String>)> {
    rig.session_events().into_iter().find_map(|e| match e {
        SessionEvent::AutoRetryEnd {
            success,
            attempt,
            final_error,
        } => Some((success, attempt, final_error)),
        _ => None,
    })
}

#[tokio::test]
async fn transient_failures_are_retried_with_2_4_8_second_waits() {
    let rig = RigBuilder::new(Api::AnthropicMessages).build();
    rig.mock
        .push(Reply::rate_limited(Api::AnthropicMessages, 0));
    rig.mock
        .push(Reply::server_error(Api::AnthropicMessages, 500));
    rig.mock
        .push(Reply::server_error(Api::AnthropicMessages, 529));
    rig.mock.push(Turn::text("finally"));
    rig.app.ask("hi").await.unwrap();
    let starts = retry_starts(&rig);
    assert_eq!(
        starts.iter().map(|s| (s.0, s.1)).collect::<Vec<_>>(),
        vec![(1, 2000), (2, 4000), (3, 8000)]
    );
    assert_eq!(rig.sleeps_ms(), vec![2000, 4000, 8000]);
    assert_eq!(retry_end(&rig), Some((true, 3, None)));
    assert_eq!(rig.mock.requests().len(), 4);
    // The failed replies left the agent's context but stay in the file.
    assert_eq!(rig.roles(), strs(&["system", "user", "assistant"]));
    let file = rig.file_entries();
    assert_eq!(file.iter().filter(|e| *e == "message:assistant").count(), 4);
    // Every failed run's agent_end said it would retry; the last did not.
    let ends: Vec<bool> = rig
        .session_events()
        .into_iter()
        .filter_map(|e| match e {
            SessionEvent::AgentEnd { will_retry, .. } => Some(will_retry),
            _ => None,
        })
        .collect();
    assert_eq!(ends, vec![true, true, true, false]);
    assert_eq!(rig.trace().last().unwrap(), "agent_settled");
}

#[tokio::test]
async fn overload_and_dropped_streams_are_retried_on_every_protocol() {
    for api in Api::ALL {
        let rig = RigBuilder::new(api).build();
        rig.mock.push(Reply::server_error(api, 503));
        rig.mock.push(Reply::drop_mid_stream(
            Turn::text("partial answer").chunk(2),
            3,
        ));
        rig.mock.push(Turn::text("ok"));
        rig.app.ask("hi").await.unwrap();
        let starts = retry_starts(&rig);
        assert_eq!(starts.len(), 2, "{api}: {starts:?}");
        assert_eq!(rig.sleeps_ms(), vec![2000, 4000], "{api}");
        assert_eq!(retry_end(&rig), Some((true, 2, None)), "{api}");
    }
}

#[tokio::test]
async fn gives_up_after_three_retries() {
    let rig = RigBuilder::new(Api::OpenAiCompletions).build();
    for _ in 0..4 {
        rig.mock
            .push(Reply::server_error(Api::OpenAiCompletions, 502));
    }
    rig.app.ask("hi").await.unwrap();
    assert_eq!(rig.mock.requests().len(), 4);
    assert_eq!(rig.sleeps_ms(), vec![2000, 4000, 8000]);
    let (success, attempt, error) = retry_end(&rig).unwrap();
    assert!(!success);
    assert_eq!(attempt, 3);
    assert!(error.unwrap().contains("502"));
    // The last failure stays in the context (it is what the user sees).
    assert_eq!(rig.roles(), strs(&["system", "user", "assistant"]));
}

#[tokio::test]
async fn quota_and_billing_errors_are_not_retried() {
    let bodies = [
        json!({"error": {"message": "You exceeded your current quota, please check your plan and billing details.", "type": "insufficient_quota", "code": "insufficient_quota"}}),
        json!({"error": {"message": "Monthly usage limit reached", "type": "requests", "code": null}}),
    ];
    for body in bodies {
        let rig = RigBuilder::new(Api::OpenAiResponses).build();
        rig.mock.push(Reply::json(429, &body));
        rig.app.ask("hi").await.unwrap();
        assert_eq!(rig.mock.requests().len(), 1, "{body}");
        assert!(retry_starts(&rig).is_empty());
        assert!(rig.sleeps_ms().is_empty());
    }
}

#[tokio::test]
async fn disabled_retry_does_not_retry() {
    let rig = RigBuilder::new(Api::AnthropicMessages)
        .settings(json!({"retry": {"enabled": false}}))
        .build();
    rig.mock
        .push(Reply::server_error(Api::AnthropicMessages, 500));
    rig.app.ask("hi").await.unwrap();
    assert_eq!(rig.mock.requests().len(), 1);
    assert!(retry_starts(&rig).is_empty());
}

#[tokio::test]
async fn abort_stops_the_retry_wait() {
    let rig = RigBuilder::new(Api::AnthropicMessages)
        .block_sleep()
        .build();
    rig.mock
        .push(Reply::server_error(Api::AnthropicMessages, 529));
    rig.mock.push(Turn::text("never requested"));
    let session = rig.app.clone();
    let run = tokio::spawn(async move { session.ask("hi").await });
    let deadline = Instant::now() + Duration::from_secs(10);
    while retry_starts(&rig).is_empty() {
        assert!(Instant::now() < deadline, "no retry started");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    rig.app.abort();
    tokio::time::timeout(Duration::from_secs(10), run)
        .await
        .expect("prompt returns after abort")
        .unwrap()
        .unwrap();
    assert_eq!(
        retry_end(&rig),
        Some((false, 1, Some("Retry cancelled".to_owned())))
    );
    assert_eq!(rig.mock.requests().len(), 1);
    assert_eq!(rig.mock.pending(), 1);
}

#[tokio::test]
async fn real_clock_waits_the_configured_base_delay() {
    let rig = RigBuilder::new(Api::GoogleGenerativeAi)
        .settings(json!({"retry": {"baseDelayMs": 40}}))
        .real_clock()
        .build();
    rig.mock
        .push(Reply::server_error(Api::GoogleGenerativeAi, 500));
    rig.mock
        .push(Reply::server_error(Api::GoogleGenerativeAi, 500));
    rig.mock.push(Turn::text("ok"));
    let started = Instant::now();
    rig.app.ask("hi").await.unwrap();
    let elapsed = started.elapsed();
    assert!(elapsed >= Duration::from_millis(120), "{elapsed:?}");
    let delays: Vec<u64> = retry_starts(&rig).iter().map(|s| s.1).collect();
    assert_eq!(delays, vec![40, 80]);
    assert_eq!(retry_end(&rig), Some((true, 2, None)));
}
