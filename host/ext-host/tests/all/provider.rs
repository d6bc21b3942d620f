use crate::*;
use pi_ai::{ApiRegistry, Context, Message, StopReason, StreamOptions, UserContent, UserMessage};
use pi_ext_host::ComponentProvider;
use pi_mock_llm::{Api, MockLlm, Turn};

fn provider(network: Vec<String>) -> Arc<ComponentProvider> {
    let ws = Workspace::create();
    let grant = Grant {
        network,
        ..ws.grant()
    };
    let component = component(
        pi_ext_test_artifacts::PROVIDER,
        World::Provider,
        grant,
        "wasm-provider",
    );
    let loaded = component.get().expect("load");
    Arc::new(ComponentProvider::load(loaded).expect("models"))
}

fn context() -> Context {
    Context {
        system_prompt: Some("Be brief.".into()),
        messages: vec![Message::User(UserMessage {
            content: UserContent::Text("Say hello".into()),
            timestamp: 0,
        })]
        .into_iter()
        .map(std::sync::Arc::new)
        .collect(),
        tools: vec![],
    }
}

fn authority(base_url: &str) -> String {
    base_url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn a_provider_component_streams_from_the_mock_through_wasi_http() {
    let mock = MockLlm::start();
    mock.push(
        Turn::text("Hello from the mock!")
            .usage(12, 5, 0, 0)
            .chunk(4),
    );
    let base = mock.base_url(Api::OpenAiCompletions);
    let provider = provider(vec![authority(&base)]);
    assert_eq!(provider.models().len(), 1);
    let mut model = provider.models()[0].clone();
    assert_eq!(model.api, "test-wasm-completions");
    model.base_url = base;

    let registry = ApiRegistry::default();
    provider.register(&registry);
    let options = StreamOptions {
        api_key: Some("sk-wasm".into()),
        ..StreamOptions::default()
    };
    let mut stream = registry.stream(&model, &context(), options);
    let mut deltas = Vec::new();
    let mut last = None;
    while let Some(event) = stream.next_event().await {
        if let pi_ai::AssistantMessageEvent::TextDelta { delta, .. } = &event {
            deltas.push(delta.clone());
        }
        last = Some(event);
    }
    let Some(pi_ai::AssistantMessageEvent::Done { message, .. }) = last else {
        panic!("expected done, got {last:?}");
    };
    assert!(deltas.len() > 1, "streamed in pieces: {deltas:?}");
    assert_eq!(deltas.concat(), "Hello from the mock!");
    assert_eq!(message.stop_reason, StopReason::Stop);
    assert_eq!((message.usage.input, message.usage.output), (12, 5));
    assert_eq!(message.provider, "wasm-test");

    let requests = mock.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(requests[0].header("authorization"), Some("Bearer sk-wasm"));
    assert_eq!(requests[0].body["model"], "wasm-mini");
    assert_eq!(requests[0].body["messages"][0]["content"], "Be brief.");
    assert_eq!(requests[0].body["messages"][1]["content"], "Say hello");
}

#[tokio::test]
async fn a_provider_streams_tool_calls() {
    let mock = MockLlm::start();
    mock.push(Turn::text("Let me look.").tool_call(
        "call_1",
        "read",
        serde_json::json!({"path": "a.txt"}),
    ));
    let base = mock.base_url(Api::OpenAiCompletions);
    let provider = provider(vec![authority(&base)]);
    let mut model = provider.models()[0].clone();
    model.base_url = base;
    let message = pi_ai::ApiProvider::stream(
        provider.as_ref(),
        &model,
        &context(),
        StreamOptions::default(),
    )
    .result()
    .await;
    assert_eq!(
        message.stop_reason,
        StopReason::ToolUse,
        "{:?}",
        message.error_message
    );
    let call = message.tool_calls().next().expect("tool call");
    assert_eq!((call.id.as_str(), call.name.as_str()), ("call_1", "read"));
    assert_eq!(call.arguments, serde_json::json!({"path": "a.txt"}));
}

/// One request to the mock from the test provider under `network`, which the mock must never
/// see: the provider's error message.
async fn refused_request(network: Vec<String>) -> Option<String> {
    let mock = MockLlm::start();
    mock.push(Turn::text("must not be served"));
    let provider = provider(network);
    let mut model = provider.models()[0].clone();
    model.base_url = mock.base_url(Api::OpenAiCompletions);
    let message = pi_ai::ApiProvider::stream(
        provider.as_ref(),
        &model,
        &context(),
        StreamOptions::default(),
    )
    .result()
    .await;
    assert_eq!(message.stop_reason, StopReason::Error);
    assert!(mock.requests().is_empty(), "nothing may reach the server");
    message.error_message
}

#[tokio::test]
async fn http_to_a_host_not_granted_is_denied() {
    let message = refused_request(vec!["api.example.com".into()])
        .await
        .expect("an error message");
    let (head, tail) = message
        .split_once(" denied: ")
        .unwrap_or_else(|| panic!("not a denial: {message}"));
    // The mock's own address: the message names the host the request went to.
    assert!(
        head.starts_with("extension wasm-provider@0.1.0: HTTP request to 127.0.0.1:"),
        "{message}"
    );
    assert_eq!(tail, "host not granted");
}

#[tokio::test]
async fn a_provider_without_any_network_grant_loads_and_its_requests_are_refused() {
    assert_eq!(
        refused_request(vec![]).await.as_deref(),
        Some(
            "extension wasm-provider@0.1.0: capability `network` was not granted to wasm-provider@0.1.0"
        )
    );
}

#[tokio::test]
async fn a_provider_component_is_never_asked_for_another_providers_model() {
    let mock = MockLlm::start();
    let base = mock.base_url(Api::OpenAiCompletions);
    let provider = provider(vec![authority(&base)]);
    let mut model = provider.models()[0].clone();
    model.base_url = base;
    model.provider = "openai".into();
    let registry = ApiRegistry::default();
    provider.register(&registry);
    let options = StreamOptions {
        api_key: Some("sk-openai".into()),
        ..StreamOptions::default()
    };
    let mut stream = registry.stream(&model, &context(), options);
    let mut last = None;
    while let Some(event) = stream.next_event().await {
        last = Some(event);
    }
    let Some(pi_ai::AssistantMessageEvent::Error { error, .. }) = last else {
        panic!("expected an error, got {last:?}");
    };
    let message = error.error_message.unwrap_or_default();
    assert!(
        message.contains("serves only its own models, not openai/wasm-mini"),
        "{message}"
    );
    assert!(mock.requests().is_empty(), "nothing was sent");
}
