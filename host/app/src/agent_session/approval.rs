//! The permission gate of tool calls. The mode says which calls are put to the user: none in
//! `auto` (pi's behaviour) and in `plan` (whose tools cannot change anything: the host enforces
//! it, nothing is asked), those that can change something in `ask-writes` (`write`, `edit`,
//! `bash`, extension tools granted writes or processes), all but the read-only built-ins in
//! `ask-all`. Before asking, the approval rules may answer for the user; answering "for this
//! session" or "for this project" leaves a rule behind. Where nobody can answer (print and JSON
//! modes) the call is refused with a message saying how to allow it. A hook's `ask` goes
//! through the same rules and the same dialog.

use crate::permissions::{
    CallFacts, Ledger, LedgerError, ModeCell, PermissionMode, Scope, rule_for,
};
use pi_ai::lock;
use pi_ext_api::hooks::{ApprovalPreview, Dialog, DialogAnswer, NotifyLevel, UserInterface};
use serde_json::Value;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Who the gate's notices and dialogs come from.
const FROM: &str = "pi";

/// The built-ins that only read: `ask-all` lets them run.
const READ_ONLY_BUILTINS: [&str; 4] = ["read", "grep", "find", "ls"];

/// The built-ins that can change something: `ask-writes` asks before them.
const WRITING_BUILTINS: [&str; 3] = ["write", "edit", "bash"];

/// The answers of the approval dialog, in order.
pub(crate) const CHOICES: [&str; 4] = [
    "Allow once",
    "Allow for this session",
    "Always allow for this project",
    "Deny",
];

/// Why a call is put to the user.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Asking<'a> {
    /// The permission mode asks before it.
    Mode(PermissionMode),
    /// A hook answered `ask`.
    Hook { source: &'a str, question: &'a str },
}

/// The gate's state: the mode (shared with whoever switches it), the rules, and which
/// extension tools can change something.
pub(crate) struct Approvals {
    mode: ModeCell,
    ui: Arc<dyn UserInterface>,
    rules: Mutex<Option<(Arc<Ledger>, PathBuf)>>,
    writers: Mutex<HashSet<String>>,
    /// The MCP tools their servers do not mark read-only.
    mcp_writers: Mutex<HashSet<String>>,
}

impl Approvals {
    pub(crate) fn new(mode: ModeCell, ui: Arc<dyn UserInterface>) -> Self {
        Approvals {
            mode,
            ui,
            rules: Mutex::default(),
            writers: Mutex::default(),
            mcp_writers: Mutex::default(),
        }
    }

    /// The mode calls are gated by now.
    pub(crate) fn mode(&self) -> PermissionMode {
        self.mode.get()
    }

    /// The same rules and writers under another mode (a child run's gate).
    pub(crate) fn child(&self, mode: ModeCell) -> Approvals {
        Approvals {
            mode,
            ui: Arc::clone(&self.ui),
            rules: Mutex::new(lock(&self.rules).clone()),
            writers: Mutex::new(lock(&self.writers).clone()),
            mcp_writers: Mutex::new(lock(&self.mcp_writers).clone()),
        }
    }

    /// The rules of the session working in `cwd` (relative paths in calls are read against it).
    pub(crate) fn set_rules(&self, ledger: Arc<Ledger>, cwd: PathBuf) {
        *lock(&self.rules) = Some((ledger, cwd));
    }

    pub(crate) fn ledger(&self) -> Option<Arc<Ledger>> {
        lock(&self.rules)
            .as_ref()
            .map(|(ledger, _)| Arc::clone(ledger))
    }

    /// The extension tools whose grants let them change something.
    pub(crate) fn set_writers(&self, tools: impl IntoIterator<Item = String>) {
        *lock(&self.writers) = tools.into_iter().collect();
    }

    /// The MCP tools that can change something: all but those their server marks read-only.
    pub(crate) fn set_mcp_writers(&self, tools: impl IntoIterator<Item = String>) {
        *lock(&self.mcp_writers) = tools.into_iter().collect();
    }

    /// Whether the mode puts a call of `tool` to the user (`None`: it does not).
    pub(crate) fn must_ask(&self, tool: &str) -> Option<PermissionMode> {
        let mode = self.mode.get();
        let writer =
            || lock(&self.writers).contains(tool) || lock(&self.mcp_writers).contains(tool);
        let reads = READ_ONLY_BUILTINS.contains(&tool)
            || tool == crate::mcp::TOOL_SEARCH
            || crate::mcp::RESOURCE_TOOLS.contains(&tool);
        let asks = match mode {
            PermissionMode::Auto | PermissionMode::Plan => false,
            PermissionMode::AskWrites => WRITING_BUILTINS.contains(&tool) || writer(),
            PermissionMode::AskAll => !reads || writer(),
        };
        asks.then_some(mode)
    }

    /// Whether the gate has anything to do in this mode (the agent loop's gate is installed
    /// only when it or a hook has).
    pub(crate) fn active(&self) -> bool {
        matches!(
            self.mode.get(),
            PermissionMode::AskWrites | PermissionMode::AskAll
        )
    }

    /// Lets the call run when a rule allows it or the user does; otherwise the message the
    /// model gets instead of a result.
    pub(crate) async fn approve(
        &self,
        tool: &str,
        args: &Value,
        why: Asking<'_>,
    ) -> Result<(), String> {
        let rules = lock(&self.rules).clone();
        if let Some((ledger, cwd)) = &rules {
            let facts = CallFacts { tool, args, cwd };
            if let Some(rule) = ledger.matching(&facts) {
                let text = format!("{tool}: allowed by rule {}: {}", rule.id, rule.describe());
                self.ui.notify(FROM, &text, NotifyLevel::Info);
                return Ok(());
            }
        }
        if !self.ui.can_ask() {
            return Err(unanswered(tool, why));
        }
        let dialog = Dialog::Approval {
            title: title(tool, why),
            options: CHOICES.iter().map(|c| (*c).to_owned()).collect(),
            tool: tool.to_owned(),
            preview: preview(tool, args),
        };
        match self.ask(dialog).await {
            Some(DialogAnswer::Selected(0)) => Ok(()),
            Some(DialogAnswer::Selected(1)) => {
                self.remember(rules.as_ref(), Scope::Session, tool, args);
                Ok(())
            }
            Some(DialogAnswer::Selected(2)) => {
                self.remember(rules.as_ref(), Scope::Project, tool, args);
                Ok(())
            }
            Some(DialogAnswer::Selected(3)) => Err(denied(why, self.reason().await)),
            _ => Err(denied(why, None)),
        }
    }

    /// Asks on a blocking thread (the face answers through the session's runtime).
    async fn ask(&self, dialog: Dialog) -> Option<DialogAnswer> {
        let ui = Arc::clone(&self.ui);
        tokio::task::spawn_blocking(move || ui.ask(FROM, dialog, None))
            .await
            .ok()
            .flatten()
    }

    /// What the user tells the model about a denial, if anything.
    async fn reason(&self) -> Option<String> {
        let dialog = Dialog::Input {
            title: "Tell the model why (optional)".into(),
            placeholder: None,
        };
        match self.ask(dialog).await {
            Some(DialogAnswer::Text(text)) if !text.trim().is_empty() => {
                Some(text.trim().to_owned())
            }
            _ => None,
        }
    }

    /// Leaves the rule the answer stands for; a rule that cannot be saved still lets this
    /// call run (the user said yes), with a warning.
    fn remember(
        &self,
        rules: Option<&(Arc<Ledger>, PathBuf)>,
        scope: Scope,
        tool: &str,
        args: &Value,
    ) {
        let Some((ledger, cwd)) = rules else {
            return;
        };
        let facts = CallFacts { tool, args, cwd };
        let kind = rule_for(&facts);
        let added = match ledger.add(scope, kind.clone()) {
            // An untrusted project keeps no rules: the answer still holds for this session.
            Err(LedgerError::ProjectNotTrusted) => {
                let text = format!(
                    "{}; the rule lasts this session",
                    LedgerError::ProjectNotTrusted
                );
                self.ui.notify(FROM, &text, NotifyLevel::Warning);
                ledger.add(Scope::Session, kind)
            }
            other => other,
        };
        match added {
            Ok(rule) => {
                let text = format!("Rule {} added: {}", rule.id, rule.describe());
                self.ui.notify(FROM, &text, NotifyLevel::Info);
            }
            Err(error) => {
                let text = format!("The rule was not saved: {error}");
                self.ui.notify(FROM, &text, NotifyLevel::Warning);
            }
        }
    }
}

fn title(tool: &str, why: Asking<'_>) -> String {
    match why {
        Asking::Mode(mode) => format!("Allow {tool}? (permission mode {mode})"),
        Asking::Hook { source, question } => format!("{source} asks: {question}"),
    }
}

/// The refusal of a call nobody could be asked about.
fn unanswered(tool: &str, why: Asking<'_>) -> String {
    match why {
        Asking::Mode(mode) => format!(
            "Blocked: permission mode {mode} asks before each {tool} call and no one can \
             answer here. Run with --permission-mode auto, or allow it with a rule (answer \
             \"Always allow for this project\" in the interactive approval dialog)."
        ),
        Asking::Hook { source, question } => {
            format!("Blocked: {source} asked \"{question}\" and no one answered yes")
        }
    }
}

/// The refusal of a call the user denied, with their reason.
fn denied(why: Asking<'_>, reason: Option<String>) -> String {
    let head = match why {
        Asking::Mode(_) => "Denied by the user".to_owned(),
        Asking::Hook { source, question } => {
            format!("Blocked by the user ({source} asked: {question})")
        }
    };
    match reason {
        Some(reason) => format!("{head}: {reason}"),
        None => head,
    }
}

/// What the call would do, in a form to read.
pub(crate) fn preview(tool: &str, args: &Value) -> ApprovalPreview {
    let text = |key: &str| args.get(key).and_then(Value::as_str).map(str::to_owned);
    match (tool, text("command"), text("path")) {
        ("bash", Some(command), _) => ApprovalPreview::Command { command },
        ("edit", _, Some(path)) => ApprovalPreview::Edit {
            path,
            diff: edit_diff(args),
        },
        ("write", _, Some(path)) => ApprovalPreview::Write {
            path,
            content: text("content").unwrap_or_default(),
        },
        _ => ApprovalPreview::Arguments {
            json: serde_json::to_string_pretty(args).unwrap_or_default(),
        },
    }
}

/// The replaced passages of an edit as `-` and `+` lines: pi 1.x's `edits` list, or the
/// single `oldText`/`newText` pair of older calls.
fn edit_diff(args: &Value) -> String {
    let pair = |edit: &Value| {
        let side = |key: &str| edit.get(key).and_then(Value::as_str).unwrap_or_default();
        (side("oldText").to_owned(), side("newText").to_owned())
    };
    let edits: Vec<(String, String)> = match args.get("edits").and_then(Value::as_array) {
        Some(list) => list.iter().map(pair).collect(),
        None => vec![pair(args)],
    };
    let mut diff = String::new();
    for (old, new) in edits {
        for line in old.lines() {
            diff.push_str(&format!("-{line}\n"));
        }
        for line in new.lines() {
            diff.push_str(&format!("+{line}\n"));
        }
    }
    diff
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn approvals(mode: PermissionMode) -> Approvals {
        Approvals::new(
            ModeCell::new(mode),
            pi_ext_api::hooks::HookServices::none().ui,
        )
    }

    #[test]
    fn each_mode_asks_about_its_own_calls() {
        let ask = |mode, tool| approvals(mode).must_ask(tool).is_some();
        for tool in ["read", "bash", "write", "edit", "grep", "fetch_url"] {
            assert!(!ask(PermissionMode::Auto, tool), "{tool}");
            assert!(!ask(PermissionMode::Plan, tool), "{tool}");
        }
        assert!(ask(PermissionMode::AskWrites, "bash"));
        assert!(ask(PermissionMode::AskWrites, "edit"));
        assert!(!ask(PermissionMode::AskWrites, "read"));
        assert!(!ask(PermissionMode::AskWrites, "fetch_url"));
        assert!(ask(PermissionMode::AskAll, "fetch_url"));
        assert!(!ask(PermissionMode::AskAll, "grep"));
        let writers = approvals(PermissionMode::AskWrites);
        writers.set_writers(["scribe".to_owned()]);
        assert!(writers.must_ask("scribe").is_some());
        // An extension tool that replaced a read-only built-in and can write still asks.
        let shadow = approvals(PermissionMode::AskAll);
        shadow.set_writers(["read".to_owned()]);
        assert!(shadow.must_ask("read").is_some());
    }

    #[tokio::test]
    async fn nobody_to_ask_refuses_with_how_to_allow_it() {
        let gate = approvals(PermissionMode::AskWrites);
        let error = gate
            .approve(
                "bash",
                &json!({"command": "ls"}),
                Asking::Mode(PermissionMode::AskWrites),
            )
            .await
            .unwrap_err();
        assert!(error.contains("permission mode ask-writes"), "{error}");
        assert!(error.contains("--permission-mode auto"), "{error}");
    }

    #[test]
    fn previews_show_the_command_the_diff_or_the_file() {
        assert_eq!(
            preview("bash", &json!({"command": "cargo test"})),
            ApprovalPreview::Command {
                command: "cargo test".into()
            }
        );
        let edit = json!({"path": "a.rs", "edits": [{"oldText": "x\ny", "newText": "z"}]});
        assert_eq!(
            preview("edit", &edit),
            ApprovalPreview::Edit {
                path: "a.rs".into(),
                diff: "-x\n-y\n+z\n".into()
            }
        );
        let old_style = json!({"path": "b", "oldText": "1", "newText": "2"});
        assert!(matches!(
            preview("edit", &old_style),
            ApprovalPreview::Edit { diff, .. } if diff == "-1\n+2\n"
        ));
        assert!(matches!(
            preview("write", &json!({"path": "c", "content": "hi"})),
            ApprovalPreview::Write { content, .. } if content == "hi"
        ));
        assert!(matches!(
            preview("fetch_url", &json!({"url": "u"})),
            ApprovalPreview::Arguments { json } if json.contains("\"url\": \"u\"")
        ));
    }
}
