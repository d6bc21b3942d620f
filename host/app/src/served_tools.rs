//! The tool set `pi mcp serve` offers to an MCP client, built without a session or a model:
//! the loaded extension packages' tools, each under its package's grant exactly as a session
//! runs it (same [`ToolSource`], same extension host), and with `builtin` the built-in tools
//! under the run's path policy and `tools.sandbox`.

use crate::permissions::PermissionMode;
use crate::startup::{Base, StartupError, StartupOptions, policy_flags};
use crate::tools::{SessionFacts, ToolSource};
use pi_agent::AgentTool;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// The tools of a served run, in order: the built-ins first when `builtin` (an extension tool
/// of the same name replaces one, as in a session), then the extensions' tools.
/// `session_id` is what extension components see as `host.session-id`. Warnings (a writable
/// root that is not a directory) are appended to `warnings`; a bad policy setting is an error.
pub fn served_tools(
    opts: &StartupOptions,
    base: &Base,
    builtin: bool,
    session_id: &str,
    warnings: &mut Vec<String>,
) -> Result<Vec<Arc<dyn AgentTool>>, StartupError> {
    let names = served_names(builtin, &base.extensions.tool_names());
    let policy = crate::tool_policy::tool_policy(
        policy_flags(opts, &base.env),
        &base.settings,
        Vec::new(),
        warnings,
    )?;
    let env = &base.env;
    let source = ToolSource::new(
        &names,
        (&env.cwd, &env.agent_dir),
        &base.extensions,
        &base.settings,
        &policy,
    );
    // No model decides whether `read` attaches images: the client shows them.
    let images = Arc::new(AtomicBool::new(true));
    Ok(source.tools(
        &base.host,
        SessionFacts {
            session_id,
            command_env: Vec::new(),
            model_images: &images,
        },
        PermissionMode::Auto,
    ))
}

/// The names served: the built-ins (when asked) then the extensions' tools, each once.
fn served_names(builtin: bool, extension_names: &[String]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    if builtin {
        names.extend(pi_builtins::TOOL_NAMES.iter().map(|n| (*n).to_owned()));
    }
    for name in extension_names {
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::served_names;

    #[test]
    fn builtins_come_first_and_an_extension_tool_of_the_same_name_is_listed_once() {
        let extensions = vec!["checksum".to_owned(), "read".to_owned()];
        let names = served_names(true, &extensions);
        assert_eq!(names.first().map(String::as_str), Some("read"));
        assert_eq!(names.iter().filter(|n| *n == "read").count(), 1);
        assert_eq!(names.last().map(String::as_str), Some("checksum"));
        assert_eq!(names.len(), pi_builtins::TOOL_NAMES.len() + 1);
    }

    #[test]
    fn without_builtin_only_the_extension_tools_are_served() {
        let extensions = vec!["checksum".to_owned()];
        assert_eq!(served_names(false, &extensions), extensions);
    }
}
