//! Sanity checks of the mock server over real sockets (the adapters' HTTP tests in pi-ai are the
//! real proof).

use pi_mock_llm::{Api, MockLlm, Reply, Turn};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::time::{Duration, Instant};

fn url(mock: &MockLlm, api: Api) -> String {
    let base = mock.base_url(api);
    match api {
        Api::AnthropicMessages => format!("{base}/v1/messages"),
        Api::OpenAiCompletions => format!("{base}/chat/completions"),
        Api::OpenAiResponses => format!("{base}/responses"),
        Api::GoogleGenerativeAi => {
            format!("{base}/models/mock-model:streamGenerateContent?alt=sse")
        }
    }
}

/// The JSON of every `data:` line (skipping `[DONE]`).
fn data_lines(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter(|d| *d != "[DONE]")
        .map(|d| serde_json::from_str(d).unwrap_or_else(|e| panic!("bad JSON {d}: {e}")))
        .collect()
}

/// Joins every string found under `key` anywhere in `value`, in order.
fn collect(value: &Value, key: &str, out: &mut String) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                match v {
                    Value::String(s) if k == key => out.push_str(s),
                    _ => collect(v, key, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect(v, key, out)),
        _ => {}
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turns_render_on_every_route_and_requests_are_logged() {
    let mock = MockLlm::start();
    let client = reqwest::Client::new();
    let args = json!({"path": "src/main.rs", "limit": 20});
    for api in Api::ALL {
        mock.push(
            Turn::text("Hello there")
                .tool_call("call_1", "read", args.clone())
                .chunk(3),
        );
        let response = client
            .post(url(&mock, api))
            .header("X-Api-Key", "k")
            .body(json!({"system": "be brief"}).to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{api}");
        let content_type = response.headers()["content-type"]
            .to_str()
            .unwrap()
            .to_owned();
        assert_eq!(content_type, "text/event-stream", "{api}");
        let body = response.text().await.unwrap();
        let events = data_lines(&body);
        assert!(events.len() > 4, "{api}: {body}");
        let key = match api {
            Api::AnthropicMessages => "partial_json",
            Api::OpenAiCompletions => "arguments",
            Api::OpenAiResponses => "delta",
            Api::GoogleGenerativeAi => "text",
        };
        let mut joined = String::new();
        for event in &events {
            let is_args = match api {
                Api::OpenAiResponses => event["type"] == "response.function_call_arguments.delta",
                _ => true,
            };
            if is_args {
                collect(event, key, &mut joined);
            }
        }
        if api == Api::GoogleGenerativeAi {
            assert_eq!(joined, "Hello there");
            assert!(body.contains("\"functionCall\""));
        } else {
            assert_eq!(
                serde_json::from_str::<Value>(&joined).ok(),
                Some(args.clone()),
                "{api}"
            );
        }
    }
    let log = mock.requests();
    assert_eq!(log.len(), 4);
    assert_eq!(log[0].path, "/v1/messages");
    assert_eq!(log[0].header("x-api-key"), Some("k"));
    assert_eq!(log[0].body["system"], "be brief");
    assert_eq!(log[3].query, "alt=sse");
    assert_eq!(log[3].api, Some(Api::GoogleGenerativeAi));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn empty_queue_and_error_replies() {
    let mock = MockLlm::start();
    let client = reqwest::Client::new();
    let response = client
        .post(url(&mock, Api::OpenAiCompletions))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 500);
    assert!(
        response
            .text()
            .await
            .unwrap()
            .contains("mock: no scripted reply")
    );

    mock.push(Reply::rate_limited(Api::AnthropicMessages, 7).header("x-should-retry", "true"));
    let response = client
        .post(url(&mock, Api::AnthropicMessages))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 429);
    assert_eq!(response.headers()["retry-after"], "7");
    assert_eq!(response.headers()["x-should-retry"], "true");
    let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(body["error"]["type"], "rate_limit_error");

    mock.push(Reply::server_error(Api::AnthropicMessages, 529));
    let response = client
        .post(url(&mock, Api::AnthropicMessages))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 529);
    let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(body["error"]["message"], "Overloaded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faults_break_the_transport() {
    let mock = MockLlm::start();
    let client = reqwest::Client::new();
    mock.push(Reply::drop_mid_stream(
        Turn::text("partial text").chunk(2),
        3,
    ));
    let response = client
        .post(url(&mock, Api::OpenAiCompletions))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        response.text().await.is_err(),
        "a dropped stream must not end cleanly"
    );

    mock.push(Reply::stall_before_headers());
    let stalled = client
        .post(url(&mock, Api::OpenAiResponses))
        .timeout(Duration::from_millis(200))
        .body("{}")
        .send()
        .await;
    assert!(stalled.is_err());
    assert!(mock.wait_for_client_gone(1, Duration::from_secs(5)).await);

    mock.push(Reply::hang_after_headers(Turn::text("abc"), 1));
    let mut response = client
        .post(url(&mock, Api::GoogleGenerativeAi))
        .body("{}")
        .send()
        .await
        .unwrap();
    let first = response.chunk().await.unwrap().unwrap();
    assert!(first.starts_with(b"data: "));
    let next = tokio::time::timeout(Duration::from_millis(200), response.chunk()).await;
    assert!(next.is_err(), "nothing may follow the hang point");
    drop(response);
    assert!(mock.wait_for_client_gone(2, Duration::from_secs(5)).await);
}

#[test]
fn works_from_a_sync_test_with_raw_sockets_and_pieces() {
    let mock = MockLlm::start();
    let sse = "event: ping\ndata: {\"type\":\"ping\"}\n\n".repeat(5);
    let delay = Duration::from_millis(10);
    mock.push(Reply::sse_bytes(sse.clone(), 7).delay(delay));
    let sent = Instant::now();
    let mut socket = std::net::TcpStream::connect(("127.0.0.1", mock.port())).unwrap();
    let request = "POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}";
    socket.write_all(request.as_bytes()).unwrap();
    let mut raw = Vec::new();
    socket.read_to_end(&mut raw).unwrap();
    let closed = Instant::now();
    let raw = String::from_utf8(raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"));
    assert!(head.contains("transfer-encoding: chunked"));
    assert!(body.starts_with("7\r\nevent: \r\n"), "{body}");
    assert!(body.ends_with("0\r\n\r\n"));
    let log = mock.wait_for_requests_blocking(1, Duration::from_secs(1));
    assert_eq!(log[0].body, json!({}));
    // Arrival and end times bracket the scripted delay, and the close follows the end.
    let answered_at = log[0].answered_at.expect("the reply was played to its end");
    assert!(sent <= log[0].received);
    assert!(answered_at >= log[0].received + delay);
    assert!(answered_at <= closed);
}
