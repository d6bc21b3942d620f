//! The recorded-stream conformance corpus (`tests/fixtures/streams`): every case, fed whole and
//! in 37-byte and 1-byte pieces, must give the message the official SDK computed.

use pi_ai::event::apply_event;
use pi_ai::protocol::decode_chunks;
use pi_ai::{AssistantBlock, AssistantMessage, AssistantMessageEvent, Modality, Model, ModelCost};
use serde_json::{Value, json};
use std::path::PathBuf;

/// The corpus, vendored at `<repo>/tests/fixtures/streams`.
pub fn streams_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/streams")
}

pub struct Case {
    pub name: String,
    pub sse: Vec<u8>,
    pub expected: Value,
}

pub fn cases(api: &str) -> Vec<Case> {
    let dir = streams_dir().join(api);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(".sse")
                .map(str::to_owned)
        })
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no cases in {}", dir.display());
    names
        .into_iter()
        .map(|name| {
            let sse = std::fs::read(dir.join(format!("{name}.sse")))
                .unwrap_or_else(|e| panic!("{name}: cannot read .sse: {e}"));
            let expected = std::fs::read_to_string(dir.join(format!("{name}.expected.json")))
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok())
                .unwrap_or_else(|| panic!("{name}: bad expected.json"));
            Case {
                name,
                sse,
                expected,
            }
        })
        .collect()
}

pub fn test_model(api: &str) -> Model {
    Model {
        id: "test-model".into(),
        name: "Test model".into(),
        api: api.into(),
        provider: "test".into(),
        base_url: "http://127.0.0.1:9".into(),
        reasoning: true,
        input: vec![Modality::Text, Modality::Image],
        cost: ModelCost {
            input: 3.0,
            output: 15.0,
            cache_read: 0.3,
            cache_write: 3.75,
        },
        context_window: 200_000,
        max_tokens: 64_000,
        headers: None,
        compat: None,
    }
}

/// Decodes `sse` in pieces of `size` bytes.
pub fn decode(
    api: &str,
    sse: &[u8],
    size: usize,
) -> (Vec<AssistantMessageEvent>, AssistantMessage) {
    let protocol = pi_ai::providers::protocol(api).unwrap_or_else(|| panic!("no protocol {api}"));
    decode_chunks(protocol.as_ref(), &test_model(api), sse.chunks(size.max(1)))
}

/// Checks the event grammar: `start` first (unless the stream failed before anything arrived),
/// every block opened before its deltas and closed once, exactly one terminal event, last; and
/// replaying the events rebuilds the final message.
pub fn check_events(name: &str, events: &[AssistantMessageEvent], last: &AssistantMessage) {
    use AssistantMessageEvent as E;
    let terminal = events.iter().filter(|e| e.is_terminal()).count();
    assert_eq!(terminal, 1, "{name}: terminal events");
    assert!(
        events.last().is_some_and(|e| e.is_terminal()),
        "{name}: terminal not last"
    );
    if events.len() > 1 {
        assert!(
            matches!(events[0], E::Start { .. }),
            "{name}: first event {:?}",
            events[0]
        );
    }
    let mut open = std::collections::BTreeSet::new();
    for event in events {
        match event {
            E::TextStart { content_index }
            | E::ThinkingStart { content_index, .. }
            | E::ToolCallStart { content_index, .. } => {
                assert!(
                    open.insert(*content_index),
                    "{name}: {content_index} opened twice"
                )
            }
            E::TextDelta { content_index, .. }
            | E::ThinkingDelta { content_index, .. }
            | E::ToolCallDelta { content_index, .. } => {
                assert!(
                    open.contains(content_index),
                    "{name}: delta on closed {content_index}"
                )
            }
            E::TextEnd { content_index, .. }
            | E::ThinkingEnd { content_index, .. }
            | E::ToolCallEnd { content_index, .. } => {
                assert!(
                    open.remove(content_index),
                    "{name}: end of unopened {content_index}"
                )
            }
            _ => {}
        }
    }
    assert!(open.is_empty(), "{name}: blocks left open {open:?}");
    // Replaying everything but the terminal event must rebuild the content.
    let mut replay = AssistantMessage::default();
    let mut args = Vec::new();
    for event in &events[..events.len() - 1] {
        apply_event(&mut replay, &mut args, event);
    }
    if events.len() > 1 {
        assert_eq!(
            replay.content, last.content,
            "{name}: replayed content differs"
        );
    }
}

/// Compares a normalized result with the expectation. In `usage`, an expected `null` (the
/// provider did not send the field) must be 0 or null on our side.
pub fn assert_matches(name: &str, ours: &Value, expected: &Value) {
    let mut ours = ours.clone();
    if let (Some(u), Some(e)) = (ours.get_mut("usage"), expected.get("usage"))
        && let (Some(u), Some(e)) = (u.as_object_mut(), e.as_object())
    {
        for (k, v) in e {
            if v.is_null() && u.get(k).is_some_and(|x| x.is_null() || x == &json!(0)) {
                u.insert(k.clone(), Value::Null);
            }
        }
    }
    assert_eq!(
        &ours,
        expected,
        "{name}: ours\n{}\nexpected\n{}",
        serde_json::to_string_pretty(&ours).unwrap_or_default(),
        serde_json::to_string_pretty(expected).unwrap_or_default()
    );
}

/// Runs every case of `api` through `normalize` at three chunk sizes.
pub fn run_corpus(api: &str, normalize: fn(&AssistantMessage) -> Value) {
    for case in cases(api) {
        let mut first: Option<AssistantMessage> = None;
        for size in [case.sse.len(), 37, 1] {
            let label = format!("{api}/{} in {size}-byte pieces", case.name);
            let (events, message) = decode(api, &case.sse, size);
            check_events(&label, &events, &message);
            assert_matches(&label, &normalize(&message), &case.expected);
            match &first {
                None => first = Some(message),
                Some(m) => assert_eq!(
                    (&m.content, &m.usage, &m.stop_reason, &m.error_message),
                    (
                        &message.content,
                        &message.usage,
                        &message.stop_reason,
                        &message.error_message
                    ),
                    "{label}: differs from whole-body decode"
                ),
            }
        }
    }
}

/// Text blocks joined, as the corpus defines `text`.
pub fn joined_text(m: &AssistantMessage) -> String {
    m.text()
}

/// Non-redacted thinking blocks joined with `sep`.
pub fn joined_thinking(m: &AssistantMessage, sep: &str) -> String {
    m.content
        .iter()
        .filter_map(|b| match b {
            AssistantBlock::Thinking(t) if t.redacted != Some(true) => Some(t.thinking.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join(sep)
}
