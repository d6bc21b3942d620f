//! Differences between Chat Completions servers. Each field of the model's `compat` record wins
//! when set; the rest is detected from the provider id and the base URL.

use crate::types::{MaxTokensField, Model, ThinkingFormat};

/// Every compat switch decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedCompat {
    /// Send `store: false` (only OpenAI knows the field).
    pub supports_store: bool,
    /// The system prompt may use the `developer` role (OpenAI reasoning models).
    pub supports_developer_role: bool,
    /// A reasoning request may be sent at all.
    pub supports_reasoning_effort: bool,
    /// Send `stream_options: {include_usage: true}`.
    pub supports_usage_in_streaming: bool,
    pub max_tokens_field: MaxTokensField,
    /// Tool results carry the tool's `name` (Mistral).
    pub requires_tool_result_name: bool,
    /// A user message may not follow a tool result directly (older Mistral).
    pub requires_assistant_after_tool_result: bool,
    /// Earlier thinking is replayed as `<thinking>` text (servers that reject reasoning fields).
    pub requires_thinking_as_text: bool,
    pub thinking_format: ThinkingFormat,
}

/// Which family of server a model talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    OpenAi,
    OpenRouter,
    DeepSeek,
    Groq,
    Mistral,
    Xai,
    Cerebras,
    Zai,
    Qwen,
    Local,
    Other,
}

fn family(model: &Model) -> Family {
    let provider = model.provider.to_ascii_lowercase();
    let url = model.base_url.to_ascii_lowercase();
    let is = |id: &str, host: &str| provider == id || url.contains(host);
    if is("openai", "api.openai.com") {
        Family::OpenAi
    } else if is("openrouter", "openrouter.ai") {
        Family::OpenRouter
    } else if is("deepseek", "api.deepseek.com") {
        Family::DeepSeek
    } else if is("groq", "api.groq.com") {
        Family::Groq
    } else if is("mistral", "mistral.ai") {
        Family::Mistral
    } else if is("xai", "api.x.ai") {
        Family::Xai
    } else if is("cerebras", "cerebras.ai") {
        Family::Cerebras
    } else if provider.starts_with("zai") || url.contains("api.z.ai") || url.contains("bigmodel.cn")
    {
        Family::Zai
    } else if provider.starts_with("qwen") || url.contains("dashscope") || url.contains("aliyuncs")
    {
        Family::Qwen
    } else if is_local(&url) {
        Family::Local
    } else {
        Family::Other
    }
}

fn is_local(url: &str) -> bool {
    let host = url
        .split("://")
        .nth(1)
        .unwrap_or(url)
        .split(['/', '?'])
        .next()
        .unwrap_or("");
    host.starts_with("localhost")
        || host.starts_with("127.")
        || host.starts_with("0.0.0.0")
        || host.starts_with("[::1]")
}

/// Defaults per family, before the model's explicit settings.
fn detected(family: Family) -> ResolvedCompat {
    // Conservative base: what any server that copies the API accepts.
    let base = ResolvedCompat {
        supports_store: false,
        supports_developer_role: false,
        supports_reasoning_effort: true,
        supports_usage_in_streaming: true,
        max_tokens_field: MaxTokensField::MaxTokens,
        requires_tool_result_name: false,
        requires_assistant_after_tool_result: false,
        requires_thinking_as_text: false,
        thinking_format: ThinkingFormat::Openai,
    };
    match family {
        Family::OpenAi => ResolvedCompat {
            supports_store: true,
            supports_developer_role: true,
            max_tokens_field: MaxTokensField::MaxCompletionTokens,
            ..base
        },
        Family::OpenRouter => ResolvedCompat {
            thinking_format: ThinkingFormat::Openrouter,
            ..base
        },
        Family::DeepSeek => ResolvedCompat {
            thinking_format: ThinkingFormat::Deepseek,
            ..base
        },
        Family::Groq | Family::Cerebras => ResolvedCompat {
            max_tokens_field: MaxTokensField::MaxCompletionTokens,
            ..base
        },
        Family::Xai => ResolvedCompat {
            // grok models reason on their own and reject `reasoning_effort` on most models.
            supports_reasoning_effort: false,
            max_tokens_field: MaxTokensField::MaxCompletionTokens,
            ..base
        },
        Family::Mistral => ResolvedCompat {
            supports_reasoning_effort: false,
            requires_tool_result_name: true,
            requires_thinking_as_text: true,
            thinking_format: ThinkingFormat::Other,
            ..base
        },
        Family::Zai => ResolvedCompat {
            thinking_format: ThinkingFormat::Zai,
            ..base
        },
        Family::Qwen => ResolvedCompat {
            thinking_format: ThinkingFormat::Qwen,
            ..base
        },
        // Local servers (llama.cpp, Ollama, vLLM, LM Studio) differ too much to guess a
        // reasoning switch: send none unless the model record asks for one.
        Family::Local | Family::Other => ResolvedCompat {
            thinking_format: ThinkingFormat::Other,
            ..base
        },
    }
}

/// The compat switches for `model`: explicit `model.compat` fields, else detected ones.
pub fn detect_compat(model: &Model) -> ResolvedCompat {
    let auto = detected(family(model));
    let Some(c) = &model.compat else {
        return auto;
    };
    ResolvedCompat {
        supports_store: c.supports_store.unwrap_or(auto.supports_store),
        supports_developer_role: c
            .supports_developer_role
            .unwrap_or(auto.supports_developer_role),
        supports_reasoning_effort: c
            .supports_reasoning_effort
            .unwrap_or(auto.supports_reasoning_effort),
        supports_usage_in_streaming: c
            .supports_usage_in_streaming
            .unwrap_or(auto.supports_usage_in_streaming),
        max_tokens_field: c.max_tokens_field.unwrap_or(auto.max_tokens_field),
        requires_tool_result_name: c
            .requires_tool_result_name
            .unwrap_or(auto.requires_tool_result_name),
        requires_assistant_after_tool_result: c
            .requires_assistant_after_tool_result
            .unwrap_or(auto.requires_assistant_after_tool_result),
        requires_thinking_as_text: c
            .requires_thinking_as_text
            .unwrap_or(auto.requires_thinking_as_text),
        thinking_format: c.thinking_format.clone().unwrap_or(auto.thinking_format),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::types::{Compat, Modality, Model};

    pub(crate) fn model(provider: &str, base_url: &str) -> Model {
        Model {
            id: "m".into(),
            name: "m".into(),
            api: "openai-completions".into(),
            provider: provider.into(),
            base_url: base_url.into(),
            reasoning: true,
            input: vec![Modality::Text, Modality::Image],
            cost: Default::default(),
            context_window: 128_000,
            max_tokens: 16_000,
            headers: None,
            compat: None,
        }
    }

    #[test]
    fn openai_proper() {
        let c = detect_compat(&model("openai", "https://api.openai.com/v1"));
        assert!(c.supports_store && c.supports_developer_role);
        assert_eq!(c.max_tokens_field, MaxTokensField::MaxCompletionTokens);
        assert_eq!(c.thinking_format, ThinkingFormat::Openai);
    }

    #[test]
    fn openrouter_by_url() {
        let c = detect_compat(&model("custom", "https://openrouter.ai/api/v1"));
        assert!(!c.supports_store && !c.supports_developer_role);
        assert_eq!(c.max_tokens_field, MaxTokensField::MaxTokens);
        assert_eq!(c.thinking_format, ThinkingFormat::Openrouter);
    }

    #[test]
    fn deepseek_zai_qwen_formats() {
        let f = |p: &str, u: &str| detect_compat(&model(p, u)).thinking_format;
        assert_eq!(
            f("deepseek", "https://api.deepseek.com"),
            ThinkingFormat::Deepseek
        );
        assert_eq!(
            f("zai", "https://api.z.ai/api/coding/paas/v4"),
            ThinkingFormat::Zai
        );
        assert_eq!(
            f("x", "https://open.bigmodel.cn/api/coding/paas/v4"),
            ThinkingFormat::Zai
        );
        assert_eq!(
            f(
                "qwen-token-plan",
                "https://token-plan.x.aliyuncs.com/compatible-mode/v1"
            ),
            ThinkingFormat::Qwen
        );
    }

    #[test]
    fn groq_cerebras_xai() {
        let groq = detect_compat(&model("groq", "https://api.groq.com/openai/v1"));
        assert!(!groq.supports_store && groq.supports_reasoning_effort);
        let cerebras = detect_compat(&model("cerebras", "https://api.cerebras.ai/v1"));
        assert!(!cerebras.supports_developer_role);
        let xai = detect_compat(&model("xai", "https://api.x.ai/v1"));
        assert!(!xai.supports_reasoning_effort && !xai.supports_store);
    }

    #[test]
    fn mistral_needs_names_and_text_thinking() {
        let c = detect_compat(&model("mistral", "https://api.mistral.ai/v1"));
        assert!(c.requires_tool_result_name && c.requires_thinking_as_text);
        assert_eq!(c.max_tokens_field, MaxTokensField::MaxTokens);
    }

    #[test]
    fn local_servers_are_conservative() {
        for url in [
            "http://127.0.0.1:8080/v1",
            "http://localhost:11434/v1",
            "http://0.0.0.0:8000/v1",
        ] {
            let c = detect_compat(&model("ollama", url));
            assert!(!c.supports_store, "{url}");
            assert!(!c.supports_developer_role, "{url}");
            assert_eq!(c.max_tokens_field, MaxTokensField::MaxTokens, "{url}");
            assert_eq!(c.thinking_format, ThinkingFormat::Other, "{url}");
        }
    }

    #[test]
    fn explicit_fields_win() {
        let mut m = model("openai", "https://api.openai.com/v1");
        m.compat = Some(Compat {
            supports_store: Some(false),
            max_tokens_field: Some(MaxTokensField::MaxTokens),
            thinking_format: Some(ThinkingFormat::ChatTemplate),
            ..Default::default()
        });
        let c = detect_compat(&m);
        assert!(!c.supports_store);
        assert!(c.supports_developer_role, "unset fields stay detected");
        assert_eq!(c.max_tokens_field, MaxTokensField::MaxTokens);
        assert_eq!(c.thinking_format, ThinkingFormat::ChatTemplate);
    }
}
