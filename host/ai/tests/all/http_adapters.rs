//! The four adapters over real HTTP against the mock server: content, events, usage, the request
//! they send, and every recorded corpus stream served in 37-byte pieces.

use crate::corpus;
use crate::http_support::{APIS, SYSTEM_PROMPT, contains_text, event_kinds, options, run};
use pi_ai::{AssistantBlock, AssistantMessageEvent, StopReason};
use pi_mock_llm::{Api, MockLlm, Reply, Turn};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_streams_in_deltas() {
    let mock = MockLlm::start();
    let text = "Hello from the mock server, in small pieces.";
    for api in APIS {
        mock.push(Turn::text(text).chunk(4));
        let (events, message) = run(&mock, api, options()).await;
        corpus::check_events(api.as_str(), &events, &message);
        assert_eq!(
            message.stop_reason,
            StopReason::Stop,
            "{api}: {:?}",
            message.error_message
        );
        assert_eq!(message.text(), text, "{api}");
        let deltas: Vec<&str> = events
            .iter()
            .filter_map(|e| match e {
                AssistantMessageEvent::TextDelta { delta, .. } => Some(delta.as_str()),
                _ => None,
            })
            .collect();
        assert!(
            deltas.len() > 5,
            "{api}: text came in {} deltas",
            deltas.len()
        );
        assert_eq!(deltas.concat(), text, "{api}");
        assert_eq!(message.api, api.as_str());
        assert_eq!(message.provider, "mock");
        assert_eq!(message.model, "mock-model");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thinking_then_text() {
    let mock = MockLlm::start();
    let thinking = "The user wants files listed; I should answer directly.";
    for api in APIS {
        mock.push(Turn::text("Here they are.").thinking(thinking).chunk(7));
        let (events, message) = run(&mock, api, options()).await;
        corpus::check_events(api.as_str(), &events, &message);
        assert_eq!(
            message.stop_reason,
            StopReason::Stop,
            "{api}: {:?}",
            message.error_message
        );
        match message.content.as_slice() {
            [AssistantBlock::Thinking(t), AssistantBlock::Text(x)] => {
                assert_eq!(t.thinking, thinking, "{api}");
                assert_eq!(x.text, "Here they are.", "{api}");
                if api == Api::AnthropicMessages {
                    assert_eq!(t.thinking_signature.as_deref(), Some("sig_mock_1"));
                }
            }
            other => panic!("{api}: content {other:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_tool_calls_with_arguments_in_small_pieces() {
    let mock = MockLlm::start();
    let calls = [
        (
            "call_a1",
            "read_file",
            json!({"path": "src/main.rs", "limit": 40}),
        ),
        (
            "call_b2",
            "bash",
            json!({"command": "ls -la \"my dir\"", "timeout": 5}),
        ),
        (
            "call_c3",
            "edit",
            json!({"path": "ünïcode.txt", "edits": [{"old": "a\nb", "new": "c"}]}),
        ),
    ];
    for api in APIS {
        let mut turn = Turn::text("Let me look.").chunk(3);
        for (id, name, args) in &calls {
            turn = turn.tool_call(*id, *name, args.clone());
        }
        mock.push(turn);
        let (events, message) = run(&mock, api, options()).await;
        corpus::check_events(api.as_str(), &events, &message);
        assert_eq!(
            message.stop_reason,
            StopReason::ToolUse,
            "{api}: {:?}",
            message.error_message
        );
        let got: Vec<_> = message
            .tool_calls()
            .map(|c| (c.id.as_str(), c.name.as_str(), c.arguments.clone()))
            .collect();
        let want: Vec<_> = calls.iter().map(|(i, n, a)| (*i, *n, a.clone())).collect();
        let got: Vec<_> = got
            .into_iter()
            .map(|(id, name, args)| {
                // Responses ids are pi's `call_id|item_id`; the call id is the first half.
                let id = if api == Api::OpenAiResponses {
                    id.split_once('|').map_or(id, |(call, _)| call)
                } else {
                    id
                };
                (id, name, args)
            })
            .collect();
        assert_eq!(got, want, "{api}");
        if api == Api::OpenAiResponses {
            assert!(
                message.tool_calls().all(|c| c.id.contains("|fc_mock_")),
                "{api}"
            );
        }
        let arg_deltas = events
            .iter()
            .filter(|e| matches!(e, AssistantMessageEvent::ToolCallDelta { .. }))
            .count();
        if api != Api::GoogleGenerativeAi {
            // Gemini sends arguments whole; the others stream them in 3-character pieces.
            assert!(arg_deltas > 20, "{api}: {arg_deltas} argument deltas");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn usage_and_cost_on_the_final_message() {
    let mock = MockLlm::start();
    for api in APIS {
        // Only Anthropic reports cache writes.
        let cache_write = if api == Api::AnthropicMessages { 40 } else { 0 };
        mock.push(Turn::text("ok").usage(1000, 200, 300, cache_write));
        let (_, message) = run(&mock, api, options()).await;
        assert_eq!(
            message.stop_reason,
            StopReason::Stop,
            "{api}: {:?}",
            message.error_message
        );
        let u = message.usage;
        assert_eq!(
            (u.input, u.output, u.cache_read, u.cache_write),
            (1000, 200, 300, cache_write),
            "{api}"
        );
        assert_eq!(u.total_tokens, 1500 + cache_write, "{api}");
        // Rates of the mock model: 3 / 15 / 0.3 / 3.75 $ per million tokens.
        let want = [
            3.0 * 1000.0 / 1e6,
            15.0 * 200.0 / 1e6,
            0.3 * 300.0 / 1e6,
            3.75 * cache_write as f64 / 1e6,
        ];
        let got = [
            u.cost.input,
            u.cost.output,
            u.cost.cache_read,
            u.cost.cache_write,
        ];
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-12, "{api}: cost {got:?} want {want:?}");
        }
        assert!(
            (u.cost.total - want.iter().sum::<f64>()).abs() < 1e-12,
            "{api}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn event_sequence_per_block() {
    let mock = MockLlm::start();
    for api in APIS {
        mock.push(
            Turn::text("Checking.")
                .thinking("plan")
                .tool_call("call_1", "read_file", json!({"path": "a"}))
                .tool_call("call_2", "read_file", json!({"path": "b"}))
                .chunk(2),
        );
        let (events, message) = run(&mock, api, options()).await;
        corpus::check_events(api.as_str(), &events, &message);
        let kinds = event_kinds(&events);
        assert_eq!(
            kinds.first().map(String::as_str),
            Some("start"),
            "{api}: {kinds:?}"
        );
        assert_eq!(
            kinds.last().map(String::as_str),
            Some("done"),
            "{api}: {kinds:?}"
        );
        // Per block: start, deltas, end; blocks start in content order.
        let per_block = block_kinds(&events);
        let want = |kind: &str| {
            vec![
                format!("{kind}_start"),
                format!("{kind}_delta"),
                format!("{kind}_end"),
            ]
        };
        let expected = [
            want("thinking"),
            want("text"),
            want("toolcall"),
            want("toolcall"),
        ];
        assert_eq!(per_block, expected, "{api}: {kinds:?}");
        let starts: Vec<usize> = events.iter().filter_map(start_index).collect();
        assert_eq!(starts, [0, 1, 2, 3], "{api}");
        if api != Api::OpenAiCompletions {
            // One block at a time. (The Chat adapter keeps parallel tool calls open until the
            // finish chunk, since their deltas may interleave by index.)
            let flat: Vec<String> = std::iter::once("start".to_owned())
                .chain(expected.concat())
                .chain(std::iter::once("done".to_owned()))
                .collect();
            assert_eq!(kinds, flat, "{api}");
        }
    }
}

fn start_index(event: &AssistantMessageEvent) -> Option<usize> {
    match event {
        AssistantMessageEvent::TextStart { content_index }
        | AssistantMessageEvent::ThinkingStart { content_index, .. }
        | AssistantMessageEvent::ToolCallStart { content_index, .. } => Some(*content_index),
        _ => None,
    }
}

/// Each content block's event kinds in order (runs of deltas collapsed), by content index.
fn block_kinds(events: &[AssistantMessageEvent]) -> Vec<Vec<String>> {
    let mut blocks: Vec<Vec<String>> = Vec::new();
    for event in events {
        let value = serde_json::to_value(event).unwrap_or_default();
        let Some(index) = value["contentIndex"].as_u64() else {
            continue;
        };
        let index = index as usize;
        if blocks.len() <= index {
            blocks.resize(index + 1, Vec::new());
        }
        let kinds = event_kinds(std::slice::from_ref(event));
        let block = &mut blocks[index];
        for kind in kinds {
            if !(kind.ends_with("_delta") && block.last() == Some(&kind)) {
                block.push(kind);
            }
        }
    }
    blocks
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_carries_system_prompt_and_tools_in_protocol_fields() {
    let mock = MockLlm::start();
    for api in APIS {
        mock.push(Turn::text("ok"));
        let (_, message) = run(&mock, api, options()).await;
        assert_eq!(
            message.stop_reason,
            StopReason::Stop,
            "{api}: {:?}",
            message.error_message
        );
    }
    let log = mock.requests();
    assert_eq!(log.len(), APIS.len());
    for (request, api) in log.iter().zip(APIS) {
        assert_eq!(request.api, Some(api), "{api}: path {}", request.path);
        assert_eq!(request.method, "POST");
        let body = &request.body;
        let (system, tool_names) = match api {
            Api::AnthropicMessages => (&body["system"], &body["tools"]),
            Api::OpenAiCompletions => (&body["messages"][0], &body["tools"]),
            Api::OpenAiResponses if body.get("instructions").is_some_and(|v| !v.is_null()) => {
                (&body["instructions"], &body["tools"])
            }
            Api::OpenAiResponses => (&body["input"][0], &body["tools"]),
            Api::GoogleGenerativeAi => (&body["systemInstruction"], &body["tools"]),
        };
        assert!(
            contains_text(system, SYSTEM_PROMPT),
            "{api}: system prompt not in {system}"
        );
        assert!(
            contains_text(tool_names, "read_file"),
            "{api}: tool not in {tool_names}"
        );
        assert!(
            contains_text(tool_names, "Reads a file"),
            "{api}: description not in tools"
        );
        assert!(
            contains_text(body, "List the files, please."),
            "{api}: user message missing"
        );
        let (auth, value) = match api {
            Api::AnthropicMessages => ("x-api-key", "mock-key"),
            Api::OpenAiCompletions | Api::OpenAiResponses => ("authorization", "Bearer mock-key"),
            Api::GoogleGenerativeAi => ("x-goog-api-key", "mock-key"),
        };
        assert_eq!(
            request.header(auth),
            Some(value),
            "{api}: headers {:?}",
            request.headers
        );
        match api {
            Api::AnthropicMessages => {
                assert_eq!(request.path, "/v1/messages");
                assert_eq!(
                    body["tools"][0]["input_schema"]["required"],
                    json!(["path"])
                );
                assert_eq!(body["stream"], true);
            }
            Api::OpenAiCompletions => {
                assert_eq!(request.path, "/v1/chat/completions");
                assert_eq!(body["tools"][0]["function"]["name"], "read_file");
                assert_eq!(body["stream"], true);
            }
            Api::OpenAiResponses => {
                assert_eq!(request.path, "/v1/responses");
                assert_eq!(body["tools"][0]["name"], "read_file");
                assert_eq!(body["stream"], true);
            }
            Api::GoogleGenerativeAi => {
                assert_eq!(
                    request.path,
                    "/v1beta/models/mock-model:streamGenerateContent"
                );
                assert!(request.query.contains("alt=sse"), "query {}", request.query);
                assert!(contains_text(&body["tools"][0], "read_file"));
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn corpus_through_http_matches_in_process_decoding() {
    let mock = MockLlm::start();
    for api in APIS {
        for case in corpus::cases(api.as_str()) {
            let label = format!("{api}/{}", case.name);
            mock.push(Reply::sse_bytes(case.sse.clone(), 37));
            let (events, message) = run(&mock, api, options()).await;
            corpus::check_events(&label, &events, &message);
            let (_, mut expected) = corpus::decode(api.as_str(), &case.sse, 37);
            let mut message = message;
            if api == Api::GoogleGenerativeAi {
                // Gemini 2.x sends no call ids; the adapter invents unique ones each time.
                blank_generated_ids(&mut message, &case.expected);
                blank_generated_ids(&mut expected, &case.expected);
            }
            assert_eq!(
                (
                    &message.content,
                    &message.usage,
                    &message.stop_reason,
                    &message.error_message
                ),
                (
                    &expected.content,
                    &expected.usage,
                    &expected.stop_reason,
                    &expected.error_message
                ),
                "{label}"
            );
        }
    }
}

fn blank_generated_ids(message: &mut pi_ai::AssistantMessage, expected: &serde_json::Value) {
    let calls = expected["toolCalls"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut index = 0;
    for block in &mut message.content {
        if let AssistantBlock::ToolCall(call) = block {
            if calls.get(index).is_none_or(|c| c["id"].is_null()) {
                call.id.clear();
            }
            index += 1;
        }
    }
}

/// A history past the size a body is kept in memory is written into the connection as it is
/// sent: each protocol's server gets the whole body with its `content-length` (not chunked), and
/// a retry after a 503 sends it again whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_history_is_sent_whole_with_its_length_and_resent_on_retry() {
    use pi_ai::{Message, UserMessage};
    let long: String = (0..40_000)
        .map(|i| format!("line {i} of a \"long\" tool result\n"))
        .collect();
    let mut context = crate::http_support::context();
    context
        .messages
        .push(std::sync::Arc::new(Message::User(UserMessage::text(long))));
    for api in APIS {
        let mock = MockLlm::start();
        mock.push(Reply::server_error(api, 503).header("retry-after-ms", "10"));
        mock.push(Turn::text("read it"));
        let model = mock.model(api);
        let mut options = options();
        options.max_retries = 1;
        let expected = pi_ai::providers::protocol(api.as_str())
            .unwrap()
            .build_request(&model, &context, &options, options.api_key.as_deref())
            .unwrap()
            .body;
        assert!(expected.len() > 1 << 20, "{api}: {} bytes", expected.len());
        let expected_json: serde_json::Value =
            serde_json::from_slice(&expected.to_bytes().unwrap()).unwrap();
        let (_, message) =
            crate::http_support::collect(pi_ai::stream(&model, &context, options)).await;
        assert_eq!(
            message.text(),
            "read it",
            "{api}: {:?}",
            message.error_message
        );
        let log = mock.requests();
        assert_eq!(log.len(), 2, "{api}");
        for request in log {
            let length = expected.len().to_string();
            assert_eq!(
                request.header("content-length"),
                Some(length.as_str()),
                "{api}"
            );
            assert_eq!(request.header("transfer-encoding"), None, "{api}");
            assert!(request.body == expected_json, "{api}: the body differs");
        }
    }
}
