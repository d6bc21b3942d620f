//! Conversions between the WIT types and pi-ai's types.

use crate::bindings::types as wit;
use pi_ai::{
    AssistantBlock, AssistantMessage, Context, ImageContent, Message, Model, StopReason,
    StreamOptions, TextContent, ThinkingLevel, UserBlock, UserContent,
};

pub fn user_block(block: wit::ContentBlock) -> UserBlock {
    match block {
        wit::ContentBlock::Text(text) => UserBlock::Text(TextContent {
            text,
            text_signature: None,
        }),
        wit::ContentBlock::Image(image) => UserBlock::Image(ImageContent {
            data: image.data,
            mime_type: image.mime_type,
        }),
    }
}

pub fn content_block(block: &UserBlock) -> wit::ContentBlock {
    match block {
        UserBlock::Text(t) => wit::ContentBlock::Text(t.text.clone()),
        UserBlock::Image(i) => wit::ContentBlock::Image(wit::Image {
            data: i.data.clone(),
            mime_type: i.mime_type.clone(),
        }),
    }
}

pub fn stop_reason(reason: StopReason) -> wit::StopReason {
    match reason {
        StopReason::Stop => wit::StopReason::Stop,
        StopReason::Length => wit::StopReason::Length,
        StopReason::ToolUse => wit::StopReason::ToolUse,
        StopReason::Error => wit::StopReason::Error,
        StopReason::Aborted => wit::StopReason::Aborted,
        // The contract has no `deferred`: to a component the reply ended as after `stop`.
        StopReason::Deferred => wit::StopReason::Stop,
    }
}

pub fn from_stop_reason(reason: wit::StopReason) -> StopReason {
    match reason {
        wit::StopReason::Stop => StopReason::Stop,
        wit::StopReason::Length => StopReason::Length,
        wit::StopReason::ToolUse => StopReason::ToolUse,
        wit::StopReason::Error => StopReason::Error,
        wit::StopReason::Aborted => StopReason::Aborted,
    }
}

pub fn assistant(message: &AssistantMessage) -> wit::AssistantMessage {
    wit::AssistantMessage {
        content: message
            .content
            .iter()
            .map(|b| match b {
                AssistantBlock::Text(t) => wit::AssistantBlock::Text(t.text.clone()),
                AssistantBlock::Thinking(t) => wit::AssistantBlock::Thinking(t.thinking.clone()),
                AssistantBlock::ToolCall(c) => {
                    wit::AssistantBlock::ToolCall(wit::AssistantToolCall {
                        id: c.id.clone(),
                        name: c.name.clone(),
                        arguments: c.arguments.to_string(),
                    })
                }
            })
            .collect(),
        stop_reason: stop_reason(message.stop_reason),
        usage: wit::Usage {
            input: message.usage.input,
            output: message.usage.output,
            cache_read: message.usage.cache_read,
            cache_write: message.usage.cache_write,
        },
        model: message.model.clone(),
        error_message: message.error_message.clone(),
    }
}

pub fn message(message: &Message) -> wit::Message {
    match message {
        Message::User(u) => wit::Message::User(match &u.content {
            UserContent::Text(t) => vec![wit::ContentBlock::Text(t.clone())],
            UserContent::Blocks(blocks) => blocks.iter().map(content_block).collect(),
        }),
        Message::Assistant(a) => wit::Message::Assistant(assistant(a)),
        Message::ToolResult(r) => wit::Message::ToolResult(wit::ToolResultMessage {
            tool_call_id: r.tool_call_id.clone(),
            tool_name: r.tool_name.clone(),
            content: r.content.iter().map(content_block).collect(),
            is_error: r.is_error,
        }),
    }
}

pub fn context(context: &Context) -> wit::LlmContext {
    wit::LlmContext {
        system_prompt: context.system_prompt.clone(),
        messages: context.messages.iter().map(|m| message(m)).collect(),
        tools: context
            .tools
            .iter()
            .map(|t| wit::ToolSpec {
                name: t.name.clone(),
                description: t.description.clone(),
                parameters_schema: t.parameters.text().to_owned(),
            })
            .collect(),
    }
}

pub fn model_info(model: &Model) -> wit::ModelInfo {
    wit::ModelInfo {
        id: model.id.clone(),
        name: model.name.clone(),
        api: model.api.clone(),
        provider: model.provider.clone(),
        base_url: model.base_url.clone(),
        reasoning: model.reasoning,
        images: model.input.contains(&pi_ai::Modality::Image),
        context_window: model.context_window,
        max_tokens: model.max_tokens,
    }
}

/// A request's options for a provider component: `headers` are the model's (models.json)
/// under the request's own, as pi-ai's adapters merge them.
pub fn options(
    model: &Model,
    options: &StreamOptions,
    api_key: Option<String>,
) -> wit::StreamOptions {
    let headers = pi_ai::auth::merge_headers(
        model.headers.as_ref(),
        &Default::default(),
        &options.headers,
    );
    wit::StreamOptions {
        max_tokens: options.max_tokens,
        temperature: options.temperature,
        reasoning: options.reasoning_level().map(|level| match level {
            ThinkingLevel::Minimal => wit::ThinkingLevel::Minimal,
            ThinkingLevel::Low => wit::ThinkingLevel::Low,
            ThinkingLevel::Medium => wit::ThinkingLevel::Medium,
            ThinkingLevel::High | ThinkingLevel::Off => wit::ThinkingLevel::High,
            ThinkingLevel::Xhigh | ThinkingLevel::Max => wit::ThinkingLevel::Xhigh,
        }),
        api_key,
        session_id: options.session_id.clone(),
        headers: headers.into_iter().collect(),
    }
}

/// A pi model record for a model a provider component serves.
pub fn model(info: &wit::ModelInfo) -> Model {
    Model {
        id: info.id.clone(),
        name: info.name.clone(),
        api: info.api.clone(),
        provider: info.provider.clone(),
        base_url: info.base_url.clone(),
        reasoning: info.reasoning,
        input: if info.images {
            vec![pi_ai::Modality::Text, pi_ai::Modality::Image]
        } else {
            vec![pi_ai::Modality::Text]
        },
        context_window: info.context_window,
        max_tokens: info.max_tokens,
        cost: pi_ai::ModelCost::default(),
        headers: None,
        compat: None,
    }
}

/// A request context a guest built (`llm.complete`), as pi-ai's. Assistant messages carry no
/// api or provider (the guest does not know them), so providers replay them as foreign turns.
pub fn from_context(context: wit::LlmContext) -> Context {
    Context {
        system_prompt: context.system_prompt,
        messages: context
            .messages
            .into_iter()
            .map(from_message)
            .map(std::sync::Arc::new)
            .collect(),
        tools: context
            .tools
            .into_iter()
            .map(|t| pi_ai::Tool {
                parameters: pi_ai::Schema::from_text_or_object(&t.parameters_schema),
                name: t.name,
                description: t.description,
                constrained_sampling: None,
            })
            .collect(),
    }
}

pub fn from_message(message: wit::Message) -> Message {
    let now = pi_ai::now_ms();
    match message {
        wit::Message::User(blocks) => Message::User(pi_ai::UserMessage {
            content: UserContent::Blocks(blocks.into_iter().map(user_block).collect()),
            timestamp: now,
        }),
        wit::Message::Assistant(a) => Message::from(from_assistant(a)),
        wit::Message::ToolResult(r) => Message::ToolResult(pi_ai::ToolResultMessage {
            tool_call_id: r.tool_call_id,
            tool_name: r.tool_name,
            content: r.content.into_iter().map(user_block).collect(),
            details: None,
            is_error: r.is_error,
            timestamp: now,
            duration_ms: None,
        }),
    }
}

pub fn from_assistant(message: wit::AssistantMessage) -> AssistantMessage {
    let usage = pi_ai::Usage {
        input: message.usage.input,
        output: message.usage.output,
        cache_read: message.usage.cache_read,
        cache_write: message.usage.cache_write,
        ..pi_ai::Usage::default()
    };
    AssistantMessage {
        content: message
            .content
            .into_iter()
            .map(|b| match b {
                wit::AssistantBlock::Text(text) => AssistantBlock::Text(TextContent {
                    text,
                    text_signature: None,
                }),
                wit::AssistantBlock::Thinking(thinking) => {
                    AssistantBlock::Thinking(pi_ai::ThinkingContent {
                        thinking,
                        thinking_signature: None,
                        redacted: None,
                    })
                }
                wit::AssistantBlock::ToolCall(c) => AssistantBlock::ToolCall(pi_ai::ToolCall {
                    arguments: serde_json::from_str(&c.arguments)
                        .unwrap_or_else(|_| serde_json::json!({})),
                    id: c.id,
                    name: c.name,
                    thought_signature: None,
                }),
            })
            .collect(),
        model: message.model,
        usage,
        stop_reason: from_stop_reason(message.stop_reason),
        error_message: message.error_message,
        timestamp: pi_ai::now_ms(),
        ..AssistantMessage::default()
    }
}
