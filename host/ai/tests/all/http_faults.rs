//! Failures over HTTP: error statuses, context overflow, abort, broken and stalled streams.
//! Every one must end the stream with a single error event, never a hang.

use crate::corpus;
use crate::http_support::{APIS, collect, context, options, run};
use pi_ai::{AssistantMessageEvent, StopReason};
use pi_mock_llm::{MockLlm, Reply, Turn, errors};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_statuses_carry_status_and_provider_message() {
    let mock = MockLlm::start();
    for api in APIS {
        for status in [429u16, 500, 503, 529] {
            let (reply, provider_message) = if status == 429 {
                (Reply::rate_limited(api, 1), errors::rate_limit_message(api))
            } else {
                (
                    Reply::server_error(api, status),
                    errors::server_error_message(api, status),
                )
            };
            mock.push(reply);
            let (events, message) = run(&mock, api, options()).await;
            let label = format!("{api} {status}");
            corpus::check_events(&label, &events, &message);
            assert!(
                matches!(events.last(), Some(AssistantMessageEvent::Error { .. })),
                "{label}"
            );
            assert_eq!(message.stop_reason, StopReason::Error, "{label}");
            let text = message.error_message.clone().unwrap_or_default();
            assert!(text.contains(&status.to_string()), "{label}: {text}");
            assert!(text.contains(provider_message), "{label}: {text}");
        }
    }
    // No retries by default: one request per reply.
    assert_eq!(mock.requests().len(), 4 * APIS.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn context_overflow_keeps_the_provider_wording() {
    let mock = MockLlm::start();
    for api in APIS {
        mock.push(Reply::context_overflow(api));
        let (_, message) = run(&mock, api, options()).await;
        assert_eq!(message.stop_reason, StopReason::Error, "{api}");
        let text = message.error_message.clone().unwrap_or_default();
        assert!(text.contains("400"), "{api}: {text}");
        assert!(
            text.contains(errors::context_overflow_message(api)),
            "{api}: {text}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abort_mid_stream_keeps_the_partial_text() {
    let mock = MockLlm::start();
    let text = "This answer is long enough to be cancelled somewhere in the middle of it.";
    for (n, api) in APIS.into_iter().enumerate() {
        mock.push(
            Turn::text(text)
                .chunk(2)
                .delay_between_events(Duration::from_millis(30)),
        );
        let options = options();
        let cancel = options.cancel.clone();
        let mut stream = pi_ai::stream(&mock.model(api), &context(), options);
        let mut seen = String::new();
        while let Some(event) = stream.next_event().await {
            if let AssistantMessageEvent::TextDelta { delta, .. } = &event {
                seen.push_str(delta);
                if seen.len() >= 6 {
                    break;
                }
            }
            assert!(
                !event.is_terminal(),
                "{api}: ended before the abort: {event:?}"
            );
        }
        cancel.cancel();
        let (events, message) = collect(stream).await;
        assert!(
            matches!(events.last(), Some(AssistantMessageEvent::Error { .. })),
            "{api}"
        );
        assert_eq!(message.stop_reason, StopReason::Aborted, "{api}");
        let partial = message.text();
        assert!(
            partial.len() >= 6 && partial.len() < text.len(),
            "{api}: kept {partial:?}"
        );
        assert!(text.starts_with(&partial), "{api}: kept {partial:?}");
        assert!(
            mock.wait_for_client_gone(n, Duration::from_secs(5)).await,
            "{api}: the connection stayed open after the abort"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_sse_is_an_error() {
    let mock = MockLlm::start();
    for api in APIS {
        mock.push(Reply::malformed_sse(api));
        let (events, message) = run(&mock, api, options()).await;
        corpus::check_events(api.as_str(), &events, &message);
        assert_eq!(message.stop_reason, StopReason::Error, "{api}");
        assert!(
            message
                .error_message
                .as_deref()
                .is_some_and(|m| !m.is_empty()),
            "{api}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropped_connection_keeps_the_partial_text() {
    let mock = MockLlm::start();
    let text = "partial answer here";
    for api in APIS {
        // Six events always include the first text deltas and never the end of the stream.
        mock.push(Reply::drop_mid_stream(Turn::text(text).chunk(3), 6));
        let (events, message) = run(&mock, api, options()).await;
        corpus::check_events(api.as_str(), &events, &message);
        assert_eq!(message.stop_reason, StopReason::Error, "{api}");
        let partial = message.text();
        assert!(
            !partial.is_empty() && partial.len() < text.len(),
            "{api}: kept {partial:?}"
        );
        assert!(text.starts_with(&partial), "{api}: kept {partial:?}");
        assert!(message.error_message.is_some(), "{api}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stall_before_headers_times_out() {
    let mock = MockLlm::start();
    for (n, api) in APIS.into_iter().enumerate() {
        mock.push(Reply::stall_before_headers());
        let mut options = options();
        options.header_timeout = Duration::from_millis(300);
        let (_, message) = run(&mock, api, options).await;
        assert_eq!(message.stop_reason, StopReason::Error, "{api}");
        let text = message.error_message.clone().unwrap_or_default();
        assert!(text.contains("timed out"), "{api}: {text}");
        assert!(
            mock.wait_for_client_gone(n, Duration::from_secs(5)).await,
            "{api}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hang_after_headers_hits_the_idle_timeout() {
    let mock = MockLlm::start();
    for api in APIS {
        mock.push(Reply::hang_after_headers(
            Turn::text("some words that never finish").chunk(3),
            4,
        ));
        let mut options = options();
        options.idle_timeout = Duration::from_millis(300);
        let (events, message) = run(&mock, api, options).await;
        corpus::check_events(api.as_str(), &events, &message);
        assert_eq!(message.stop_reason, StopReason::Error, "{api}");
        let text = message.error_message.clone().unwrap_or_default();
        assert!(text.contains("timed out"), "{api}: {text}");
    }
}
