//! Request-level retry over HTTP (`max_retries`, `max_retry_delay_ms`, server-requested delays).
//! Timing is checked with lower bounds only.

use crate::http_support::{APIS, options, run};
use pi_ai::StopReason;
use pi_mock_llm::{Api, MockLlm, Reply, Turn};
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_503s_then_success_with_two_retries() {
    for api in APIS {
        let mock = MockLlm::start();
        mock.push(Reply::server_error(api, 503).header("retry-after-ms", "20"));
        mock.push(Reply::server_error(api, 503).header("retry-after-ms", "20"));
        mock.push(Turn::text("finally"));
        let mut options = options();
        options.max_retries = 2;
        let (_, message) = run(&mock, api, options).await;
        assert_eq!(
            message.stop_reason,
            StopReason::Stop,
            "{api}: {:?}",
            message.error_message
        );
        assert_eq!(message.text(), "finally");
        assert_eq!(mock.requests().len(), 3, "{api}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waits_honour_retry_after_ms() {
    let api = Api::OpenAiCompletions;
    let mock = MockLlm::start();
    mock.push(Reply::rate_limited(api, 30).header("retry-after-ms", "150"));
    mock.push(Reply::server_error(api, 503).header("retry-after-ms", "250"));
    mock.push(Turn::text("done"));
    let mut options = options();
    options.max_retries = 3;
    let started = Instant::now();
    let (_, message) = run(&mock, api, options).await;
    assert_eq!(
        message.stop_reason,
        StopReason::Stop,
        "{:?}",
        message.error_message
    );
    assert!(
        started.elapsed() >= Duration::from_millis(400),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(mock.requests().len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn x_should_retry_false_stops_retrying() {
    let api = Api::AnthropicMessages;
    let mock = MockLlm::start();
    mock.push(Reply::server_error(api, 503).header("x-should-retry", "false"));
    mock.push(Turn::text("never sent"));
    let mut options = options();
    options.max_retries = 3;
    let (_, message) = run(&mock, api, options).await;
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(mock.requests().len(), 1);
    assert_eq!(mock.pending(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn too_long_retry_after_fails_at_once() {
    let api = Api::GoogleGenerativeAi;
    let mock = MockLlm::start();
    mock.push(Reply::rate_limited(api, 120));
    mock.push(Turn::text("never sent"));
    let mut options = options();
    options.max_retries = 2;
    options.max_retry_delay_ms = 1000;
    let (_, message) = run(&mock, api, options).await;
    assert_eq!(message.stop_reason, StopReason::Error);
    let text = message.error_message.clone().unwrap_or_default();
    assert!(text.contains("retry delay"), "{text}");
    assert!(text.contains("429"), "{text}");
    assert_eq!(mock.requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_during_the_retry_wait_aborts() {
    let api = Api::OpenAiResponses;
    let mock = MockLlm::start();
    mock.push(Reply::server_error(api, 503).header("retry-after-ms", "30000"));
    mock.push(Turn::text("never sent"));
    let mut options = options();
    options.max_retries = 2;
    let cancel = options.cancel.clone();
    let model = mock.model(api);
    let task = tokio::spawn(async move {
        crate::http_support::collect(pi_ai::stream(
            &model,
            &crate::http_support::context(),
            options,
        ))
        .await
    });
    assert_eq!(
        mock.wait_for_requests(1, Duration::from_secs(10))
            .await
            .len(),
        1
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    cancel.cancel();
    let (_, message) = task.await.expect("stream task");
    assert_eq!(message.stop_reason, StopReason::Aborted);
    assert_eq!(mock.requests().len(), 1);
    assert_eq!(mock.pending(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_retry_by_default() {
    let api = Api::AnthropicMessages;
    let mock = MockLlm::start();
    mock.push(Reply::server_error(api, 503));
    mock.push(Turn::text("never sent"));
    let (_, message) = run(&mock, api, options()).await;
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(mock.requests().len(), 1);
    assert_eq!(mock.pending(), 1);
}
