//! Fitting a conversation to the model it is about to be sent to (pi's `transformMessages`).
//!
//! Sessions keep messages exactly as they were produced, possibly by other models. Before a
//! request, this pass removes what the target cannot accept: images for text-only models,
//! thinking and signatures that only the producing model can verify, tool-call ids in another
//! provider's format, failed responses, and tool calls left without a result.

use crate::types::{
    AssistantBlock, AssistantMessage, Message, Model, StopReason, TextContent, ToolCall,
    ToolResultMessage, UserBlock, UserContent, UserMessage, now_ms,
};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Placeholder for images sent to a model without image input (one per run of images).
pub const USER_IMAGE_PLACEHOLDER: &str = "(image omitted: model does not support images)";
/// The same, inside tool results.
pub const TOOL_IMAGE_PLACEHOLDER: &str = "(tool image omitted: model does not support images)";
/// Text of the synthetic result given to a tool call that never got one.
pub const NO_RESULT_TEXT: &str = "No result provided";

/// A copy of `messages` fit for `model`. `normalize_id` rewrites tool-call ids produced by other
/// models into a form the target protocol accepts; the same mapping is applied to the matching
/// tool results. The input is never modified.
pub fn transform_messages(
    messages: &[Arc<Message>],
    model: &Model,
    normalize_id: &dyn Fn(&str) -> String,
) -> Vec<Arc<Message>> {
    let mut id_map: HashMap<String, String> = HashMap::new();
    let transformed: Vec<Message> = messages
        .iter()
        .map(|message| match &**message {
            Message::User(user) => Message::User(user_for(user, model)),
            Message::ToolResult(result) => {
                Message::ToolResult(tool_result_for(result, model, &id_map))
            }
            Message::Assistant(assistant) => {
                Message::from(assistant_for(assistant, model, normalize_id, &mut id_map))
            }
        })
        .collect();
    close_orphaned_tool_calls(transformed)
        .into_iter()
        .map(Arc::new)
        .collect()
}

/// Whether `messages` are already fit for `model`, so that [`transform_messages`] would return
/// them unchanged and the request can be built from them without a copy: every assistant turn
/// is the target model's own and succeeded, carries no thinking that would be dropped, and has
/// every tool call answered before the next turn; no image goes to a text-only model.
pub fn is_fit(messages: &[Arc<Message>], model: &Model) -> bool {
    let images = model.supports_images();
    let mut unanswered: Vec<&str> = Vec::new();
    for message in messages {
        match &**message {
            Message::User(user) => {
                let has_image = matches!(&user.content, UserContent::Blocks(blocks)
                    if blocks.iter().any(|b| matches!(b, UserBlock::Image(_))));
                if !unanswered.is_empty() || (has_image && !images) {
                    return false;
                }
            }
            Message::ToolResult(result) => {
                if !images
                    && result
                        .content
                        .iter()
                        .any(|b| matches!(b, UserBlock::Image(_)))
                {
                    return false;
                }
                unanswered.retain(|id| *id != result.tool_call_id);
            }
            Message::Assistant(assistant) => {
                let failed = matches!(
                    assistant.stop_reason,
                    StopReason::Error | StopReason::Aborted
                );
                if !unanswered.is_empty() || failed || !same_model(assistant, model) {
                    return false;
                }
                if assistant.content.iter().any(|b| {
                    matches!(b, AssistantBlock::Thinking(t)
                    if t.redacted != Some(true)
                        && t.thinking_signature.is_none()
                        && t.thinking.trim().is_empty())
                }) {
                    return false;
                }
                unanswered = assistant.tool_calls().map(|c| c.id.as_str()).collect();
            }
        }
    }
    unanswered.is_empty()
}

/// Whether `message` was produced by exactly `model` (provider, api and id).
fn same_model(message: &AssistantMessage, model: &Model) -> bool {
    message.provider == model.provider && message.api == model.api && message.model == model.id
}

fn user_for(user: &UserMessage, model: &Model) -> UserMessage {
    match &user.content {
        UserContent::Blocks(blocks) if !model.supports_images() => UserMessage {
            content: UserContent::Blocks(replace_images(blocks, USER_IMAGE_PLACEHOLDER)),
            timestamp: user.timestamp,
        },
        _ => user.clone(),
    }
}

fn tool_result_for(
    result: &ToolResultMessage,
    model: &Model,
    id_map: &HashMap<String, String>,
) -> ToolResultMessage {
    let mut out = result.clone();
    if let Some(id) = id_map.get(&result.tool_call_id) {
        out.tool_call_id = id.clone();
    }
    if !model.supports_images() {
        out.content = replace_images(&result.content, TOOL_IMAGE_PLACEHOLDER);
    }
    out
}

/// Replaces each run of consecutive images with one placeholder text block.
fn replace_images(blocks: &[UserBlock], placeholder: &str) -> Vec<UserBlock> {
    let mut out = Vec::with_capacity(blocks.len());
    let mut in_run = false;
    for block in blocks {
        match block {
            UserBlock::Image(_) if in_run => {}
            UserBlock::Image(_) => {
                in_run = true;
                out.push(UserBlock::Text(TextContent {
                    text: placeholder.to_owned(),
                    text_signature: None,
                }));
            }
            other => {
                in_run = false;
                out.push(other.clone());
            }
        }
    }
    out
}

fn assistant_for(
    message: &AssistantMessage,
    model: &Model,
    normalize_id: &dyn Fn(&str) -> String,
    id_map: &mut HashMap<String, String>,
) -> AssistantMessage {
    let same = same_model(message, model);
    let content = message
        .content
        .iter()
        .filter_map(|block| match block {
            AssistantBlock::Thinking(thinking) => {
                if thinking.redacted == Some(true) {
                    // Opaque and verifiable only by the model that produced it.
                    return same.then(|| block.clone());
                }
                if same && thinking.thinking_signature.is_some() {
                    // Needed for replay even when the visible text is empty.
                    return Some(block.clone());
                }
                if thinking.thinking.trim().is_empty() {
                    return None;
                }
                if same {
                    return Some(block.clone());
                }
                Some(AssistantBlock::Text(TextContent {
                    text: thinking.thinking.clone(),
                    text_signature: None,
                }))
            }
            AssistantBlock::Text(text) if !same => Some(AssistantBlock::Text(TextContent {
                text: text.text.clone(),
                text_signature: None,
            })),
            AssistantBlock::ToolCall(call) if !same => Some(AssistantBlock::ToolCall(
                foreign_tool_call(call, normalize_id, id_map),
            )),
            other => Some(other.clone()),
        })
        .collect();
    AssistantMessage {
        content,
        ..message.clone()
    }
}

/// A tool call from another model: no Gemini signature, id in the target's format.
fn foreign_tool_call(
    call: &ToolCall,
    normalize_id: &dyn Fn(&str) -> String,
    id_map: &mut HashMap<String, String>,
) -> ToolCall {
    let id = normalize_id(&call.id);
    if id != call.id {
        id_map.insert(call.id.clone(), id.clone());
    }
    ToolCall {
        id,
        thought_signature: None,
        ..call.clone()
    }
}

/// Drops failed assistant messages and gives every tool call without a result a synthetic error
/// result, placed before the next user or assistant message (or at the end). Providers reject
/// a conversation with an unanswered tool call.
fn close_orphaned_tool_calls(messages: Vec<Message>) -> Vec<Message> {
    let mut out = Vec::with_capacity(messages.len());
    let mut pending: Vec<ToolCall> = Vec::new();
    let mut answered: HashSet<String> = HashSet::new();
    for message in messages {
        match message {
            Message::Assistant(assistant) => {
                flush_orphans(&mut out, &mut pending, &mut answered);
                if matches!(
                    assistant.stop_reason,
                    StopReason::Error | StopReason::Aborted
                ) {
                    continue;
                }
                pending = assistant.tool_calls().cloned().collect();
                out.push(Message::Assistant(assistant));
            }
            Message::ToolResult(result) => {
                answered.insert(result.tool_call_id.clone());
                out.push(Message::ToolResult(result));
            }
            Message::User(user) => {
                flush_orphans(&mut out, &mut pending, &mut answered);
                out.push(Message::User(user));
            }
        }
    }
    flush_orphans(&mut out, &mut pending, &mut answered);
    out
}

fn flush_orphans(
    out: &mut Vec<Message>,
    pending: &mut Vec<ToolCall>,
    answered: &mut HashSet<String>,
) {
    for call in pending.drain(..) {
        if !answered.contains(&call.id) {
            out.push(Message::ToolResult(ToolResultMessage {
                tool_call_id: call.id,
                tool_name: call.name,
                content: vec![UserBlock::Text(TextContent {
                    text: NO_RESULT_TEXT.to_owned(),
                    text_signature: None,
                })],
                details: None,
                is_error: true,
                timestamp: now_ms(),
                duration_ms: None,
            }));
        }
    }
    answered.clear();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{ImageContent, Modality, ThinkingContent};
    use serde_json::json;

    /// [`super::transform_messages`] over owned messages, as the tests write them.
    fn transform_messages(
        messages: &[Message],
        model: &Model,
        normalize_id: &dyn Fn(&str) -> String,
    ) -> Vec<Message> {
        let shared: Vec<Arc<Message>> = messages.iter().cloned().map(Arc::new).collect();
        super::transform_messages(&shared, model, normalize_id)
            .into_iter()
            .map(Arc::unwrap_or_clone)
            .collect()
    }

    /// [`super::is_fit`] over owned messages.
    fn is_fit(messages: &[Message], model: &Model) -> bool {
        let shared: Vec<Arc<Message>> = messages.iter().cloned().map(Arc::new).collect();
        super::is_fit(&shared, model)
    }

    fn model(provider: &str, api: &str, id: &str, images: bool) -> Model {
        Model {
            id: id.into(),
            name: id.into(),
            api: api.into(),
            provider: provider.into(),
            base_url: "http://localhost".into(),
            reasoning: true,
            input: if images {
                vec![Modality::Text, Modality::Image]
            } else {
                vec![Modality::Text]
            },
            cost: Default::default(),
            context_window: 100_000,
            max_tokens: 1_000,
            headers: None,
            compat: None,
        }
    }

    fn claude() -> Model {
        model("anthropic", "anthropic-messages", "claude-sonnet-4-5", true)
    }

    fn gpt() -> Model {
        model("openai", "openai-responses", "gpt-5", true)
    }

    fn assistant(from: &Model, content: Vec<AssistantBlock>) -> AssistantMessage {
        AssistantMessage {
            content,
            stop_reason: StopReason::Stop,
            ..AssistantMessage::empty_for(from)
        }
    }

    fn text(t: &str) -> AssistantBlock {
        AssistantBlock::Text(TextContent {
            text: t.into(),
            text_signature: None,
        })
    }

    fn signed_text(t: &str, sig: &str) -> AssistantBlock {
        AssistantBlock::Text(TextContent {
            text: t.into(),
            text_signature: Some(sig.into()),
        })
    }

    fn thinking(t: &str, sig: Option<&str>, redacted: Option<bool>) -> AssistantBlock {
        AssistantBlock::Thinking(ThinkingContent {
            thinking: t.into(),
            thinking_signature: sig.map(str::to_owned),
            redacted,
        })
    }

    fn call(id: &str, sig: Option<&str>) -> AssistantBlock {
        AssistantBlock::ToolCall(ToolCall {
            id: id.into(),
            name: "read".into(),
            arguments: json!({"path": "a"}),
            thought_signature: sig.map(str::to_owned),
        })
    }

    fn result(id: &str) -> Message {
        Message::ToolResult(ToolResultMessage {
            tool_call_id: id.into(),
            tool_name: "read".into(),
            content: vec![UserBlock::Text(TextContent {
                text: "ok".into(),
                text_signature: None,
            })],
            details: None,
            is_error: false,
            timestamp: 1,
            duration_ms: None,
        })
    }

    fn image() -> UserBlock {
        UserBlock::Image(ImageContent {
            data: "AAAA".into(),
            mime_type: "image/png".into(),
        })
    }

    fn user_text(t: &str) -> UserBlock {
        UserBlock::Text(TextContent {
            text: t.into(),
            text_signature: None,
        })
    }

    fn identity(id: &str) -> String {
        id.to_owned()
    }

    fn only_assistant(messages: &[Message]) -> &AssistantMessage {
        match messages {
            [Message::Assistant(a)] => a,
            other => panic!("expected one assistant message, got {other:?}"),
        }
    }

    #[test]
    fn images_become_one_placeholder_per_run_for_text_only_models() {
        let target = model("groq", "openai-completions", "llama", false);
        let user = Message::User(UserMessage {
            content: UserContent::Blocks(vec![image(), image(), user_text("look"), image()]),
            timestamp: 5,
        });
        let out = transform_messages(&[user], &target, &identity);
        let Message::User(UserMessage {
            content: UserContent::Blocks(blocks),
            timestamp: 5,
        }) = &out[0]
        else {
            panic!("unexpected {out:?}");
        };
        assert_eq!(
            blocks,
            &vec![
                user_text(USER_IMAGE_PLACEHOLDER),
                user_text("look"),
                user_text(USER_IMAGE_PLACEHOLDER)
            ]
        );
    }

    #[test]
    fn tool_result_images_use_the_tool_placeholder_and_vision_models_keep_images() {
        let text_only = model("groq", "openai-completions", "llama", false);
        let from = model("groq", "openai-completions", "llama", false);
        let mut tool = ToolResultMessage {
            tool_call_id: "c1".into(),
            tool_name: "screenshot".into(),
            content: vec![image(), image()],
            details: None,
            is_error: false,
            timestamp: 1,
            duration_ms: None,
        };
        let messages = vec![
            Message::from(assistant(&from, vec![call("c1", None)])),
            Message::ToolResult(tool.clone()),
        ];
        let out = transform_messages(&messages, &text_only, &identity);
        let Message::ToolResult(got) = &out[1] else {
            panic!("{out:?}")
        };
        assert_eq!(got.content, vec![user_text(TOOL_IMAGE_PLACEHOLDER)]);

        tool.content = vec![image()];
        let vision = claude();
        let out = transform_messages(&[Message::ToolResult(tool.clone())], &vision, &identity);
        assert_eq!(out, vec![Message::ToolResult(tool)]);
    }

    #[test]
    fn redacted_thinking_is_kept_only_for_the_same_model() {
        let block = thinking("", Some("opaque"), Some(true));
        let message = Message::from(assistant(&claude(), vec![block.clone(), text("hi")]));
        let same = transform_messages(std::slice::from_ref(&message), &claude(), &identity);
        assert_eq!(only_assistant(&same).content, vec![block, text("hi")]);
        let other = transform_messages(&[message], &gpt(), &identity);
        assert_eq!(only_assistant(&other).content, vec![text("hi")]);
    }

    #[test]
    fn same_model_signed_thinking_is_kept_even_when_empty() {
        let block = thinking("", Some("encrypted"), None);
        let message = Message::from(assistant(&gpt(), vec![block.clone()]));
        let out = transform_messages(&[message], &gpt(), &identity);
        assert_eq!(only_assistant(&out).content, vec![block]);
    }

    #[test]
    fn empty_unsigned_thinking_is_dropped_for_any_model() {
        let message = Message::from(assistant(
            &claude(),
            vec![thinking("  \n", None, None), text("answer")],
        ));
        for target in [claude(), gpt()] {
            let out = transform_messages(std::slice::from_ref(&message), &target, &identity);
            assert_eq!(only_assistant(&out).content, vec![text("answer")]);
        }
    }

    #[test]
    fn same_model_unsigned_thinking_stays_thinking() {
        let block = thinking("hmm", None, None);
        let message = Message::from(assistant(&claude(), vec![block.clone()]));
        let out = transform_messages(&[message], &claude(), &identity);
        assert_eq!(only_assistant(&out).content, vec![block]);
    }

    #[test]
    fn cross_model_thinking_becomes_plain_text() {
        let message = Message::from(assistant(
            &claude(),
            vec![thinking("let me think", Some("sig"), None)],
        ));
        let out = transform_messages(&[message], &gpt(), &identity);
        assert_eq!(only_assistant(&out).content, vec![text("let me think")]);
    }

    #[test]
    fn text_signatures_are_stripped_only_across_models() {
        let message = Message::from(assistant(&gpt(), vec![signed_text("hi", "msg_1")]));
        let same = transform_messages(std::slice::from_ref(&message), &gpt(), &identity);
        assert_eq!(
            only_assistant(&same).content,
            vec![signed_text("hi", "msg_1")]
        );
        let other = transform_messages(&[message], &claude(), &identity);
        assert_eq!(only_assistant(&other).content, vec![text("hi")]);
    }

    #[test]
    fn same_model_means_same_provider_api_and_id() {
        // Same id through another provider counts as a different model.
        let via_router = model("openrouter", "openai-completions", "gpt-5", true);
        let message = Message::from(assistant(&via_router, vec![signed_text("hi", "s")]));
        let out = transform_messages(&[message], &gpt(), &identity);
        assert_eq!(only_assistant(&out).content, vec![text("hi")]);
    }

    #[test]
    fn thought_signatures_are_dropped_across_models_only() {
        let google = model("google", "google-generative-ai", "gemini-2.5-pro", true);
        let messages = vec![
            Message::from(assistant(&google, vec![call("c1", Some("gsig"))])),
            result("c1"),
        ];
        let same = transform_messages(&messages, &google, &identity);
        assert_eq!(same, messages);
        let other = transform_messages(&messages, &claude(), &identity);
        let Message::Assistant(a) = &other[0] else {
            panic!()
        };
        assert_eq!(a.content, vec![call("c1", None)]);
    }

    #[test]
    fn foreign_tool_call_ids_are_normalized_and_results_follow() {
        let normalize = |id: &str| id.replace('|', "_");
        let messages = vec![
            Message::from(assistant(&gpt(), vec![call("call_1|fc_2", None)])),
            result("call_1|fc_2"),
        ];
        let out = transform_messages(&messages, &claude(), &normalize);
        let Message::Assistant(a) = &out[0] else {
            panic!()
        };
        assert_eq!(a.content, vec![call("call_1_fc_2", None)]);
        let Message::ToolResult(r) = &out[1] else {
            panic!()
        };
        assert_eq!(r.tool_call_id, "call_1_fc_2");
        assert_eq!(out.len(), 2, "no synthetic result: the call was answered");

        // The producing model's own ids are left alone.
        let same = transform_messages(&messages, &gpt(), &normalize);
        assert_eq!(same, messages);
    }

    #[test]
    fn errored_and_aborted_assistant_messages_are_dropped() {
        for reason in [StopReason::Error, StopReason::Aborted] {
            let mut failed = assistant(&claude(), vec![text("partial")]);
            failed.stop_reason = reason;
            let messages = vec![
                Message::User(UserMessage::text("hi")),
                Message::from(failed),
                Message::User(UserMessage::text("again")),
            ];
            let out = transform_messages(&messages, &claude(), &identity);
            assert_eq!(out, vec![messages[0].clone(), messages[2].clone()]);
        }
    }

    #[test]
    fn orphaned_tool_calls_get_a_result_before_the_next_user_message() {
        let messages = vec![
            Message::from(assistant(&claude(), vec![call("a", None), call("b", None)])),
            result("a"),
            Message::User(UserMessage::text("stop")),
        ];
        let out = transform_messages(&messages, &claude(), &identity);
        assert_eq!(out.len(), 4);
        assert_eq!(out[..2], messages[..2]);
        let Message::ToolResult(synthetic) = &out[2] else {
            panic!("{out:?}")
        };
        assert_eq!(synthetic.tool_call_id, "b");
        assert_eq!(synthetic.tool_name, "read");
        assert!(synthetic.is_error);
        assert_eq!(synthetic.content, vec![user_text(NO_RESULT_TEXT)]);
        assert_eq!(out[3], messages[2]);
    }

    #[test]
    fn orphaned_tool_calls_are_closed_before_the_next_assistant_and_at_the_end() {
        let mut failed = assistant(&claude(), vec![]);
        failed.stop_reason = StopReason::Error;
        let messages = vec![
            Message::from(assistant(&claude(), vec![call("a", None)])),
            Message::from(failed),
            Message::from(assistant(&claude(), vec![call("b", None)])),
        ];
        let out = transform_messages(&messages, &claude(), &identity);
        let ids: Vec<String> = out
            .iter()
            .map(|m| match m {
                Message::ToolResult(r) => format!("result:{}", r.tool_call_id),
                Message::Assistant(a) => format!("assistant:{}", a.tool_calls().count()),
                Message::User(_) => "user".into(),
            })
            .collect();
        assert_eq!(ids, ["assistant:1", "result:a", "assistant:1", "result:b"]);
    }

    /// Every history of up to four messages drawn from a pool that touches each rule.
    fn small_histories() -> Vec<Vec<Message>> {
        let claude = claude();
        let mut failed = assistant(&claude, vec![text("half")]);
        failed.stop_reason = StopReason::Aborted;
        let mut with_image = result("c1");
        if let Message::ToolResult(r) = &mut with_image {
            r.content.push(image());
        }
        let pool = vec![
            Message::User(UserMessage::text("hi")),
            Message::User(UserMessage {
                content: UserContent::Blocks(vec![user_text("look"), image()]),
                timestamp: 1,
            }),
            Message::from(assistant(&claude, vec![text("a"), call("c1", None)])),
            Message::from(assistant(
                &claude,
                vec![thinking("  ", None, None), text("b")],
            )),
            Message::from(assistant(
                &claude,
                vec![thinking("", Some("s"), Some(true))],
            )),
            Message::from(assistant(&gpt(), vec![signed_text("x", "msg_1")])),
            Message::from(failed),
            result("c1"),
            with_image,
        ];
        let mut histories = vec![Vec::new()];
        let mut last = vec![Vec::new()];
        for _ in 0..4 {
            let next: Vec<Vec<Message>> = last
                .iter()
                .flat_map(|h: &Vec<Message>| {
                    pool.iter().map(move |m| {
                        let mut h = h.clone();
                        h.push(m.clone());
                        h
                    })
                })
                .collect();
            histories.extend(next.iter().cloned());
            last = next;
        }
        histories
    }

    #[test]
    fn a_history_is_fit_exactly_when_fitting_leaves_it_unchanged() {
        let text_only = model(
            "anthropic",
            "anthropic-messages",
            "claude-sonnet-4-5",
            false,
        );
        for target in [claude(), text_only] {
            for history in small_histories() {
                let unchanged = transform_messages(&history, &target, &identity) == history;
                assert_eq!(
                    is_fit(&history, &target),
                    unchanged,
                    "images: {}, history: {history:?}",
                    target.supports_images()
                );
            }
        }
    }

    #[test]
    fn input_is_not_modified() {
        let messages = vec![
            Message::from(assistant(
                &gpt(),
                vec![thinking("x", Some("s"), None), call("id|1", Some("g"))],
            )),
            Message::User(UserMessage {
                content: UserContent::Blocks(vec![image()]),
                timestamp: 1,
            }),
        ];
        let before = messages.clone();
        let text_only = model("groq", "openai-completions", "llama", false);
        let out = transform_messages(&messages, &text_only, &|id| id.replace('|', "_"));
        assert_ne!(out, before);
        assert_eq!(messages, before);
    }
}
