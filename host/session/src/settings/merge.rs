//! The merge of two layers, as pi does it: a key the project sets wins, objects merge key by
//! key (recursively), arrays and everything else replace.

use super::keys::{
    BranchSummary, Codemode, Compaction, CompactionOverride, Images, Markdown, ProviderRetry,
    Retry, Settings, Subagents, Terminal, ThinkingBudgets, Tools, Warnings,
};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Layers `over` onto `self`.
pub trait Merge {
    fn merge(&mut self, over: &Self);
}

/// Implements [`Merge`] for a settings object: `leaf` fields replace, `objects` merge,
/// `records` (maps of name → value) merge entry by entry, `extra` merges as JSON.
macro_rules! merge_fields {
    ($ty:ty { leaf: [$($leaf:ident),*], objects: [$($object:ident),*], records: [$($record:ident),*] }) => {
        impl Merge for $ty {
            fn merge(&mut self, over: &Self) {
                $(if over.$leaf.is_some() {
                    self.$leaf = over.$leaf.clone();
                })*
                $(merge_option(&mut self.$object, &over.$object);)*
                $(merge_record(&mut self.$record, &over.$record);)*
                merge_json(&mut self.extra, &over.extra);
            }
        }
    };
}

fn merge_option<T: Merge + Clone>(base: &mut Option<T>, over: &Option<T>) {
    match (base.as_mut(), over) {
        (Some(base), Some(over)) => base.merge(over),
        (None, Some(over)) => *base = Some(over.clone()),
        (_, None) => {}
    }
}

fn merge_record<T: Clone>(
    base: &mut Option<BTreeMap<String, T>>,
    over: &Option<BTreeMap<String, T>>,
) {
    if let Some(over) = over {
        let base = base.get_or_insert_with(BTreeMap::new);
        for (key, value) in over {
            base.insert(key.clone(), value.clone());
        }
    }
}

impl Merge for BTreeMap<String, CompactionOverride> {
    fn merge(&mut self, over: &Self) {
        for (key, value) in over {
            match self.get_mut(key) {
                Some(existing) => existing.merge(value),
                None => {
                    self.insert(key.clone(), value.clone());
                }
            }
        }
    }
}

/// Deep merge of JSON objects (the keys this version does not know).
pub fn merge_json(base: &mut Map<String, Value>, over: &Map<String, Value>) {
    for (key, value) in over {
        match (base.get_mut(key), value) {
            (Some(Value::Object(existing)), Value::Object(value)) => merge_json(existing, value),
            _ => {
                base.insert(key.clone(), value.clone());
            }
        }
    }
}

merge_fields!(Settings {
    leaf: [
        schema,
        last_changelog_version,
        default_provider,
        default_model,
        default_thinking_level,
        transport,
        session_share_destination,
        steering_mode,
        follow_up_mode,
        theme,
        hide_thinking_block,
        show_cache_miss_notices,
        external_editor,
        shell_path,
        quiet_startup,
        default_project_trust,
        shell_command_prefix,
        npm_command,
        self_update_command,
        collapse_changelog,
        enable_install_telemetry,
        enable_analytics,
        tracking_id,
        device_id,
        packages,
        extensions,
        skills,
        prompts,
        themes,
        enable_skill_commands,
        enabled_models,
        default_tools,
        double_escape_action,
        tree_filter_mode,
        editor_padding_x,
        output_pad,
        autocomplete_max_visible,
        show_hardware_cursor,
        session_dir,
        http_proxy,
        http_idle_timeout_ms,
        cache_warming,
        websocket_connect_timeout_ms,
        tui_mode,
        fullscreen_exit_output,
        fullscreen_scrollbar,
        fullscreen_copy_on_select,
        fullscreen_wheel_scroll_lines,
        probe_local_servers,
        min_oauth_validity_ms,
        hooks,
        command_hooks,
        expose_session_environment,
        checkpoints,
        permission_mode
    ],
    objects: [
        compaction,
        branch_summary,
        retry,
        terminal,
        images,
        thinking_budgets,
        markdown,
        warnings,
        codemode,
        tools,
        subagents
    ],
    records: [extension_changelog_versions, model_thinking_levels]
});
merge_fields!(Compaction {
    leaf: [enabled, reserve_tokens, keep_recent_tokens],
    objects: [model_overrides],
    records: []
});
merge_fields!(CompactionOverride {
    leaf: [reserve_tokens, keep_recent_tokens],
    objects: [],
    records: []
});
merge_fields!(BranchSummary {
    leaf: [reserve_tokens, skip_prompt],
    objects: [],
    records: []
});
merge_fields!(Retry {
    leaf: [enabled, max_retries, base_delay_ms, max_agent_delay_ms],
    objects: [provider],
    records: []
});
merge_fields!(ProviderRetry {
    leaf: [timeout_ms, max_retries, max_retry_delay_ms],
    objects: [],
    records: []
});
merge_fields!(Terminal {
    leaf: [
        show_images,
        image_width_cells,
        clear_on_shrink,
        show_terminal_progress,
        hyperlinks,
        images,
        true_color
    ],
    objects: [],
    records: []
});
merge_fields!(Images {
    leaf: [auto_resize, block_images],
    objects: [],
    records: []
});
merge_fields!(ThinkingBudgets {
    leaf: [minimal, low, medium, high],
    objects: [],
    records: []
});
merge_fields!(Markdown {
    leaf: [code_block_indent, mermaid],
    objects: [],
    records: []
});
merge_fields!(Warnings {
    leaf: [anthropic_extra_usage],
    objects: [],
    records: []
});
merge_fields!(Codemode {
    leaf: [mode, inline_budget],
    objects: [],
    records: []
});
merge_fields!(Subagents {
    leaf: [max_parallel, timeout_ms],
    objects: [],
    records: []
});
merge_fields!(Tools {
    leaf: [path_scope, writable_roots, sandbox, sandbox_network],
    objects: [],
    records: []
});
