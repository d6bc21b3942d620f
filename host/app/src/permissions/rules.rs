//! Approval rules: what one "allow for this session / always for this project" answer leaves
//! behind, and which later tool calls it lets through without asking.
//!
//! A rule is one of three kinds, each as precise as the issue asks:
//! - a **command** rule is a prefix of words of a `bash` command (`cargo test` allows
//!   `cargo test --all`, not `cargo testx`, not `cargo`). A compound command is split at its
//!   operators and every part must be allowed; a command this module cannot read with certainty
//!   (substitutions, subshells, here-docs, redirections to files, unbalanced quotes) is never
//!   allowed by any rule, so it asks;
//! - a **path** rule is a glob over workspace-relative paths of `write` and `edit` calls (`*` one
//!   segment, `**` any depth); a path outside the workspace never matches;
//! - a **tool** rule is a tool's name (built-in, extension or MCP tool).

use std::path::Path;

/// Where a rule is kept: in memory for this session, in the project's `.pi/approvals.json`, or
/// in the agent directory's `approvals.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    Session,
    Project,
    Global,
}

impl Scope {
    /// The letter the ids of this scope's rules start with.
    pub fn id_prefix(self) -> char {
        match self {
            Scope::Session => 's',
            Scope::Project => 'p',
            Scope::Global => 'g',
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Session => "session",
            Scope::Project => "project",
            Scope::Global => "global",
        }
    }
}

/// What a rule allows.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RuleKind {
    /// A `bash` command prefix, in words (`cargo test`).
    Command(String),
    /// A glob over workspace-relative paths of `write` and `edit` calls (`src/**`).
    Path(String),
    /// A tool by name.
    Tool(String),
}

/// A rule as the ledger keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// `s<n>`, `p<n>` or `g<n>`: unique within its scope, never reused.
    pub id: String,
    pub scope: Scope,
    pub kind: RuleKind,
}

impl Rule {
    /// What the rule allows, in the form the transcript and `pi grants list` show:
    /// `cargo test*`, `src/**`, `fetch_url`.
    pub fn describe(&self) -> String {
        self.kind.describe()
    }
}

/// The facts of one tool call a rule is checked against.
#[derive(Debug, Clone, Copy)]
pub struct CallFacts<'a> {
    pub tool: &'a str,
    pub args: &'a serde_json::Value,
    /// The session's working directory: the workspace path rules are relative to.
    pub cwd: &'a Path,
}

impl<'a> CallFacts<'a> {
    fn command(&self) -> Option<&'a str> {
        (self.tool == "bash")
            .then(|| self.args.get("command").and_then(serde_json::Value::as_str))
            .flatten()
    }

    fn is_file_write(&self) -> bool {
        matches!(self.tool, "write" | "edit")
    }

    /// The workspace-relative path a `write`/`edit` call names (`/`-separated). `Err(Some)`:
    /// the path it names when that is not a file inside the workspace (as written, or absolute
    /// with `..` folded); `Err(None)`: not a file call.
    fn workspace_path(&self) -> Result<String, Option<String>> {
        if !self.is_file_write() {
            return Err(None);
        }
        let raw = self
            .args
            .get("path")
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default();
        // The file tools drop a leading `@` (a mention the model copied).
        let raw = raw.strip_prefix('@').unwrap_or(raw);
        if raw.is_empty() || raw.starts_with('~') {
            return Err(Some(raw.to_owned()));
        }
        let absolute = pi_ai::lexical_path::fold(&self.cwd.join(raw));
        let outside = || absolute.to_string_lossy().into_owned();
        let relative = absolute
            .strip_prefix(pi_ai::lexical_path::fold(self.cwd))
            .map_err(|_| outside())?;
        let parts: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if parts.is_empty() {
            return Err(Some(outside()));
        }
        Ok(parts.join("/"))
    }
}

impl RuleKind {
    /// Whether this rule alone allows `call`. A compound command needs every part allowed by
    /// this one rule; the ledger ([`crate::permissions::Ledger::matching`]) lets each part be
    /// allowed by a different rule.
    pub fn matches(&self, call: &CallFacts<'_>) -> bool {
        match self {
            RuleKind::Tool(name) => name == call.tool,
            RuleKind::Command(_) => call.command().and_then(command_parts).is_some_and(|parts| {
                !parts.is_empty() && parts.iter().all(|part| self.allows_part(part))
            }),
            RuleKind::Path(glob) => call
                .workspace_path()
                .is_ok_and(|path| glob_matches(glob, &path)),
        }
    }

    /// Whether this command rule allows one simple command of a split `bash` command.
    pub fn allows_part(&self, part: &CommandPart) -> bool {
        let RuleKind::Command(prefix) = self else {
            return false;
        };
        let Some(rule) = command_parts(prefix) else {
            return false;
        };
        let [rule] = rule.as_slice() else {
            return false;
        };
        !rule.words.is_empty()
            && part.words.starts_with(&rule.words)
            && part.redirect_words.iter().all(|at| *at < rule.words.len())
    }

    fn describe(&self) -> String {
        match self {
            RuleKind::Command(prefix) if prefix.trim().is_empty() => "(no command)".to_owned(),
            RuleKind::Command(prefix) => format!("{prefix}*"),
            RuleKind::Path(glob) if glob.is_empty() => "(no file)".to_owned(),
            RuleKind::Path(glob) | RuleKind::Tool(glob) => glob.clone(),
        }
    }
}

/// What "allow for this session / for this project" records for `call`: for `bash` its first
/// two words (one if it has one), for `write`/`edit` the file's workspace-relative path, for
/// anything else the tool's name.
pub fn rule_for(call: &CallFacts<'_>) -> RuleKind {
    if call.tool == "bash" {
        // No command: a rule allowing nothing rather than one for every command.
        return RuleKind::Command(call.command().map(first_words).unwrap_or_default());
    }
    match call.workspace_path() {
        Ok(path) => RuleKind::Path(escape_glob(&path)),
        // Not a file inside the workspace: a rule naming it, which no call matches (path rules
        // hold inside the workspace only), rather than one for every call of the tool.
        Err(Some(outside)) => RuleKind::Path(escape_glob(&outside)),
        Err(None) => RuleKind::Tool(call.tool.to_owned()),
    }
}

/// The first two words of the first command of `command` (one if it has one), quoted again
/// where a word needs it so that the rule reads back as the same words.
fn first_words(command: &str) -> String {
    let Some(parts) = command_parts(command) else {
        return command
            .split_whitespace()
            .take(2)
            .collect::<Vec<_>>()
            .join(" ");
    };
    let Some(first) = parts.first() else {
        return String::new();
    };
    first
        .words
        .iter()
        .enumerate()
        .take_while(|(at, _)| !first.redirect_words.contains(at))
        .take(2)
        .map(|(_, word)| quote(word))
        .collect::<Vec<_>>()
        .join(" ")
}

fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=+,@%^".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// `path` with the glob's special characters escaped, so the rule names that file only.
fn escape_glob(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn glob_matches(glob: &str, path: &str) -> bool {
    globset::GlobBuilder::new(glob)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .is_ok_and(|glob| glob.compile_matcher().is_match(path))
}

/// One simple command of a `bash` command line: its words with quotes removed, and which of
/// them are redirections to files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandPart {
    pub words: Vec<String>,
    /// Indexes into `words` of redirections that write or read files (`> out`, `< in`); those
    /// to `/dev/null` and between descriptors (`2>&1`) are harmless and not listed.
    pub redirect_words: Vec<usize>,
}

/// `command` split at `;`, `&&`, `||`, `|`, `&` and newlines into simple commands, quotes
/// respected; `None` when any part cannot be vouched for (command substitution, a subshell, a
/// here-doc, unbalanced quotes).
pub fn command_parts(command: &str) -> Option<Vec<CommandPart>> {
    let mut splitter = Splitter::default();
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                splitter.quoted = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        other => splitter.word.push(other),
                    }
                }
            }
            '"' => {
                splitter.quoted = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '`' => return None,
                        '$' if chars.peek() == Some(&'(') => return None,
                        '\\' => match chars.next()? {
                            '\n' => {}
                            escaped @ ('"' | '\\' | '$' | '`') => splitter.word.push(escaped),
                            other => {
                                splitter.word.push('\\');
                                splitter.word.push(other);
                            }
                        },
                        other => splitter.word.push(other),
                    }
                }
            }
            '\\' => match chars.next()? {
                '\n' => {}
                escaped => {
                    splitter.quoted = true;
                    splitter.word.push(escaped);
                }
            },
            '`' | '(' | ')' => return None,
            '$' if chars.peek() == Some(&'(') => return None,
            '#' if splitter.word.is_empty() && !splitter.quoted => {
                while chars.next_if(|c| *c != '\n').is_some() {}
            }
            ';' | '\n' => splitter.end_part(),
            '&' | '|' => {
                // `&&`, `||`, `|&`, `&`, `|`: all separate commands.
                chars.next_if(|n| *n == c || (c == '|' && *n == '&'));
                splitter.end_part();
            }
            '>' | '<' => {
                let mut op = String::from(c);
                while let Some(n) = chars.next_if(|n| matches!(n, '>' | '<' | '&' | '|')) {
                    op.push(n);
                }
                if op.starts_with("<<") || op.contains('|') && op != ">|" {
                    return None;
                }
                splitter.redirect(op, &mut chars)?;
            }
            c if c.is_whitespace() => splitter.end_word(),
            other => splitter.word.push(other),
        }
    }
    splitter.end_part();
    Some(splitter.parts)
}

#[derive(Default)]
struct Splitter {
    parts: Vec<CommandPart>,
    words: Vec<String>,
    redirects: Vec<usize>,
    word: String,
    /// The word being read had quotes (so an empty word is still a word).
    quoted: bool,
}

impl Splitter {
    fn end_word(&mut self) {
        if !self.word.is_empty() || self.quoted {
            self.words.push(std::mem::take(&mut self.word));
        }
        self.quoted = false;
    }

    fn end_part(&mut self) {
        self.end_word();
        if !self.words.is_empty() {
            self.parts.push(CommandPart {
                words: std::mem::take(&mut self.words),
                redirect_words: std::mem::take(&mut self.redirects),
            });
        }
    }

    /// Reads a redirection whose operator `op` was just read (a descriptor number written
    /// before it is the word in progress) and its target, as one word.
    fn redirect(
        &mut self,
        op: String,
        chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    ) -> Option<()> {
        let fd = if !self.quoted && self.word.chars().all(|c| c.is_ascii_digit()) {
            std::mem::take(&mut self.word)
        } else {
            self.end_word();
            String::new()
        };
        while chars.next_if(|c| *c == ' ' || *c == '\t').is_some() {}
        let mut target = String::new();
        while let Some(c) = chars.next_if(|c| !c.is_whitespace() && !";&|<>()'\"`$\\".contains(*c))
        {
            target.push(c);
        }
        let harmless = op.ends_with('&') && target.chars().all(|c| c.is_ascii_digit() || c == '-')
            || target == "/dev/null";
        if target.is_empty() || op.ends_with('&') && !harmless {
            return None;
        }
        if !harmless {
            self.redirects.push(self.words.len());
        }
        self.words.push(format!("{fd}{op}{target}"));
        self.quoted = false;
        Some(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn bash(rule: &str, command: &str) -> bool {
        let args = json!({ "command": command });
        let call = CallFacts {
            tool: "bash",
            args: &args,
            cwd: Path::new("/work/project"),
        };
        RuleKind::Command(rule.to_owned()).matches(&call)
    }

    fn file(tool: &str, glob: &str, path: &str) -> bool {
        let args = json!({ "path": path, "content": "x" });
        let call = CallFacts {
            tool,
            args: &args,
            cwd: Path::new("/work/project"),
        };
        RuleKind::Path(glob.to_owned()).matches(&call)
    }

    #[test]
    fn a_command_rule_is_a_prefix_of_whole_words() {
        assert!(bash("cargo test", "cargo test"));
        assert!(bash("cargo test", "cargo test --all"));
        assert!(bash("cargo test", "  cargo   test -p pi-app  "));
        assert!(!bash("cargo test", "cargo testx"));
        assert!(!bash("cargo test", "cargo"));
        assert!(!bash("cargo test", "cargo build"));
        assert!(!bash("", "cargo test"));
        assert!(bash("cargo test", "'cargo' \"test\" --doc"));
    }

    #[test]
    fn every_part_of_a_compound_command_must_be_allowed() {
        assert!(!bash("cargo test", "cargo testx; rm -rf /"));
        assert!(!bash("cargo test", "cargo test && curl http://x"));
        assert!(!bash("cargo test", "cargo test || rm -rf /"));
        assert!(!bash("cargo test", "cargo test | sh"));
        assert!(!bash("cargo test", "cargo test & rm -rf /"));
        assert!(!bash("cargo test", "cargo test\nrm -rf /"));
        assert!(bash("cargo test", "cargo test && cargo test --doc"));
        assert!(bash(
            "cargo test",
            "cargo test; cargo test --doc\ncargo test -q"
        ));
        // Quotes keep operators inside one word.
        assert!(bash("echo", "echo \"a && b\"; echo 'c | d'"));
        assert!(!bash("echo", "echo a && b"));
    }

    #[test]
    fn what_cannot_be_vouched_for_never_matches() {
        for command in [
            "cargo test $(rm -rf /)",
            "cargo test `rm -rf /`",
            "cargo test \"$(rm -rf /)\"",
            "cargo test > Cargo.toml",
            "cargo test >> log",
            "cargo test < input",
            "(cargo test)",
            "cargo test <<EOF\nx\nEOF",
            "cargo test 'unbalanced",
            "cargo test \"unbalanced",
            "FOO=1 cargo test",
            "cargo test <(rm -rf /)",
            "cargo test >&file",
        ] {
            assert!(!bash("cargo test", command), "{command}");
        }
    }

    #[test]
    fn harmless_redirections_and_comments_are_read_as_bash_reads_them() {
        assert!(bash("cargo test", "cargo test 2>&1"));
        assert!(bash("cargo test", "cargo test 2>/dev/null"));
        assert!(bash("cargo test", "cargo test > /dev/null 2>&1"));
        assert!(bash("cargo test", "cargo test # ; rm -rf /"));
        assert!(!bash("cargo test", "cargo test # x\nrm -rf /"));
        // A rule that names the redirection allows it.
        assert!(bash("make log>out.txt", "make log>out.txt"));
        assert!(bash("make log >out.txt", "make log > out.txt -j2"));
    }

    #[test]
    fn path_rules_are_globs_inside_the_workspace() {
        assert!(file("write", "src/**", "src/a.rs"));
        assert!(file("edit", "src/**", "src/deep/er/a.rs"));
        assert!(file("write", "src/**", "/work/project/src/a.rs"));
        assert!(file("write", "src/*.rs", "src/a.rs"));
        assert!(!file("write", "src/*.rs", "src/deep/a.rs"));
        assert!(file("write", "src/a.rs", "./src/x/../a.rs"));
        assert!(file("write", "src/a.rs", "@src/a.rs"));
        assert!(!file("write", "**", "../other/a.rs"));
        assert!(!file("write", "**", "/etc/passwd"));
        assert!(!file("write", "**", "~/a.rs"));
        assert!(!file("read", "src/**", "src/a.rs"));
        assert!(!file("bash", "src/**", "src/a.rs"));
    }

    #[test]
    fn tool_rules_match_by_name() {
        let args = json!({});
        let call = |tool| CallFacts {
            tool,
            args: &args,
            cwd: Path::new("/w"),
        };
        let rule = RuleKind::Tool("mcp__github__create_issue".into());
        assert!(rule.matches(&call("mcp__github__create_issue")));
        assert!(!rule.matches(&call("mcp__github__create")));
        assert!(RuleKind::Tool("bash".into()).matches(&call("bash")));
    }

    #[test]
    fn rule_for_records_what_the_user_saw_narrowly() {
        let cwd = Path::new("/work/project");
        let for_call = |tool, args: serde_json::Value| {
            rule_for(&CallFacts {
                tool,
                args: &args,
                cwd,
            })
        };
        assert_eq!(
            for_call("bash", json!({"command": "cargo test --all"})),
            RuleKind::Command("cargo test".into())
        );
        assert_eq!(
            for_call("bash", json!({"command": "ls"})),
            RuleKind::Command("ls".into())
        );
        assert_eq!(
            for_call("write", json!({"path": "/work/project/src/a[1].rs"})),
            RuleKind::Path("src/a\\[1\\].rs".into())
        );
        assert!(file("write", "src/a\\[1\\].rs", "src/a[1].rs"));
        assert!(!file("write", "src/a\\[1\\].rs", "src/a1.rs"));
        assert_eq!(
            for_call("edit", json!({"path": "../elsewhere.rs"})),
            RuleKind::Path("/work/elsewhere.rs".into())
        );
        assert!(!file("edit", "/work/elsewhere.rs", "../elsewhere.rs"));
        // Nothing the rule could name: a rule allowing nothing, never the whole tool.
        let nothing = for_call("write", json!({"path": "~/x.rs"}));
        assert_eq!(nothing, RuleKind::Path("~/x.rs".into()));
        assert!(!file("write", "~/x.rs", "~/x.rs"));
        let empty = for_call("bash", json!({"command": "  "}));
        assert_eq!(empty, RuleKind::Command(String::new()));
        assert!(!bash("", "  "));
        assert!(!bash("", "ls"));
        assert_eq!(for_call("edit", json!({})), RuleKind::Path(String::new()));
        assert_eq!(
            for_call("bash", json!({"command": "'my tool' run > out; ls"})),
            RuleKind::Command("'my tool' run".into())
        );
        assert!(bash("'my tool' run", "\"my tool\" run --fast"));
        assert_eq!(
            for_call("bash", json!({"command": "make >out"})),
            RuleKind::Command("make".into())
        );
        assert_eq!(
            for_call("fetch_url", json!({"url": "x"})),
            RuleKind::Tool("fetch_url".into())
        );
        let rule = Rule {
            id: "g1".into(),
            scope: Scope::Global,
            kind: RuleKind::Command("cargo test".into()),
        };
        assert_eq!(rule.describe(), "cargo test*");
    }
}
