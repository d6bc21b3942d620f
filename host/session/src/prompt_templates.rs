//! Prompt templates: Markdown files invoked as `/name args`.
//!
//! A template's command name is its file name without `.md`. Its description comes from the
//! front matter, else from the first non-empty body line. On expansion the arguments are split
//! shell-style and substituted into the body (`$1`, `$@`, `$ARGUMENTS`, `${1:-default}`,
//! `${@:2}`, `${@:2:3}`, …) in a single pass.

use std::path::{Path, PathBuf};

use crate::frontmatter;

/// Longest description taken from the first body line before it is cut with `...`.
pub const MAX_DERIVED_DESCRIPTION: usize = 60;

/// Where a template was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TemplateSource {
    /// `<agentDir>/prompts`.
    User,
    /// `<cwd>/.pi/prompts` of a trusted project.
    Project,
    /// A path from the settings `prompts` array or a package.
    Path,
    /// A `--prompt-template` path.
    Cli,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptTemplate {
    pub name: String,
    pub description: String,
    /// `argument-hint` from the front matter, for completion UIs.
    pub argument_hint: Option<String>,
    /// The body without front matter.
    pub content: String,
    pub file_path: PathBuf,
    pub source: TemplateSource,
}

/// A problem found while loading templates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateDiagnostic {
    pub message: String,
    pub path: PathBuf,
}

/// Where to look for templates; paths are plain inputs.
#[derive(Debug, Clone, Copy)]
pub struct TemplateSearch<'a> {
    pub agent_dir: &'a Path,
    pub cwd: &'a Path,
    pub project_trusted: bool,
    /// `--no-prompt-templates`: only `cli_paths` are loaded.
    pub no_templates: bool,
    /// Settings and package paths (files or directories), already resolved.
    pub extra_paths: &'a [PathBuf],
    /// `--prompt-template` values; relative ones resolve against `cwd`.
    pub cli_paths: &'a [String],
}

/// The templates of the session, first-found wins on a name clash.
#[derive(Debug, Clone, Default)]
pub struct PromptTemplates {
    pub templates: Vec<PromptTemplate>,
    pub diagnostics: Vec<TemplateDiagnostic>,
}

impl PromptTemplates {
    /// Loads global, trusted project, extra and command-line templates, in that order.
    pub fn discover(search: &TemplateSearch<'_>) -> Self {
        let mut out = PromptTemplates::default();
        if !search.no_templates {
            out.add_path(
                &search.agent_dir.join("prompts"),
                TemplateSource::User,
                false,
            );
            if search.project_trusted {
                let dir = search.cwd.join(".pi").join("prompts");
                out.add_path(&dir, TemplateSource::Project, false);
                out.refuse_links_out(&dir);
            }
            for path in search.extra_paths {
                out.add_path(path, TemplateSource::Path, true);
            }
        }
        for raw in search.cli_paths {
            out.add_path(&search.cwd.join(raw), TemplateSource::Cli, true);
        }
        out
    }

    pub fn get(&self, name: &str) -> Option<&PromptTemplate> {
        self.templates.iter().find(|t| t.name == name)
    }

    /// Adds the `.md` files directly in a directory (not recursive), or one `.md` file. A
    /// missing path is only reported when `explicit`.
    /// Drops the project templates that are links out of the project's `dir`, saying so.
    fn refuse_links_out(&mut self, dir: &Path) {
        let (out, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut self.templates)
            .into_iter()
            .partition(|t| {
                t.source == TemplateSource::Project && crate::paths::leaves_tree(&t.file_path, dir)
            });
        self.templates = kept;
        self.diagnostics
            .extend(out.into_iter().map(|t| TemplateDiagnostic {
                message: "prompt template not loaded: it is a link out of the project".to_string(),
                path: t.file_path,
            }));
    }

    pub fn add_path(&mut self, path: &Path, source: TemplateSource, explicit: bool) {
        let diagnostic = |message: &str| TemplateDiagnostic {
            message: message.to_string(),
            path: path.to_path_buf(),
        };
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => {
                for file in markdown_files(path) {
                    self.add_file(&file, source);
                }
            }
            Ok(_) if is_markdown(path) => self.add_file(path, source),
            Ok(_) => self
                .diagnostics
                .push(diagnostic("prompt template path is not a markdown file")),
            Err(_) if explicit => self
                .diagnostics
                .push(diagnostic("prompt template path does not exist")),
            Err(_) => {}
        }
    }

    fn add_file(&mut self, path: &Path, source: TemplateSource) {
        let template = match load_template(path, source) {
            Ok(t) => t,
            Err(message) => {
                self.diagnostics.push(TemplateDiagnostic {
                    message,
                    path: path.to_path_buf(),
                });
                return;
            }
        };
        if let Some(winner) = self.get(&template.name) {
            let message = format!(
                "prompt template \"{}\" collision: {} is kept",
                template.name,
                winner.file_path.display()
            );
            self.diagnostics.push(TemplateDiagnostic {
                message,
                path: template.file_path,
            });
            return;
        }
        self.templates.push(template);
    }

    /// Expands `/name args` when `name` is a template; other text is returned unchanged.
    pub fn expand(&self, text: &str) -> String {
        let Some(rest) = text.strip_prefix('/') else {
            return text.to_string();
        };
        let (name, args) = match rest.find(char::is_whitespace) {
            Some(at) => (&rest[..at], &rest[at..]),
            None => (rest, ""),
        };
        match self.get(name) {
            Some(template) => substitute(&template.content, &parse_args(args)),
            None => text.to_string(),
        }
    }
}

fn is_markdown(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "md")
}

fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = read
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| is_markdown(p) && p.is_file())
        .collect();
    files.sort();
    files
}

/// Reads one template file. Invalid front matter is an error (the file is skipped).
pub fn load_template(path: &Path, source: TemplateSource) -> Result<PromptTemplate, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("cannot read prompt template: {e}"))?;
    let document =
        frontmatter::parse_document(&text).map_err(|e| format!("invalid front matter: {e}"))?;
    let fm = &document.frontmatter;
    let description = match fm
        .get_str("description")
        .map(str::trim)
        .filter(|d| !d.is_empty())
    {
        Some(d) => d.to_string(),
        None => derived_description(&document.body),
    };
    Ok(PromptTemplate {
        name: path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        description,
        argument_hint: fm.get_str("argument-hint").map(str::to_string),
        content: document.body,
        file_path: path.to_path_buf(),
        source,
    })
}

/// The first non-empty line, cut to 60 characters plus `...` when longer.
fn derived_description(body: &str) -> String {
    let Some(line) = body.lines().map(str::trim).find(|l| !l.is_empty()) else {
        return String::new();
    };
    if line.chars().count() > MAX_DERIVED_DESCRIPTION {
        let cut: String = line.chars().take(MAX_DERIVED_DESCRIPTION).collect();
        format!("{cut}...")
    } else {
        line.to_string()
    }
}

/// Splits arguments like a shell, minus escapes: whitespace separates, `"…"` and `'…'` group
/// (quotes may start mid-word and are removed), an empty pair adds nothing.
pub fn parse_args(text: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => current.push(c),
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c.is_whitespace() => {
                if !current.is_empty() {
                    args.push(std::mem::take(&mut current));
                }
            }
            None => current.push(c),
        }
    }
    if !current.is_empty() {
        args.push(current);
    }
    args
}

/// Substitutes argument references into `content` in one pass (inserted text is not scanned
/// again). Missing positional arguments become empty text.
pub fn substitute(content: &str, args: &[String]) -> String {
    let mut out = String::with_capacity(content.len());
    let mut rest = content;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        match reference(after, args) {
            Some((value, used)) => {
                out.push_str(&value);
                rest = &after[used..];
            }
            None => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Parses the reference after a `$`: returns its value and how many bytes it spans.
fn reference(text: &str, args: &[String]) -> Option<(String, usize)> {
    let all = || args.join(" ");
    if let Some(inner) = text.strip_prefix('{') {
        let end = inner.find('}')?;
        let value = braced(&inner[..end], args)?;
        return Some((value, end + 2));
    }
    if text.starts_with("ARGUMENTS") {
        return Some((all(), "ARGUMENTS".len()));
    }
    if text.starts_with('@') {
        return Some((all(), 1));
    }
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let n: usize = text[..digits].parse().ok()?;
    Some((positional(args, n).unwrap_or_default(), digits))
}

/// `${N:-default}`, `${@:-default}`, `${ARGUMENTS:-default}`, `${@:N}`, `${@:N:L}`.
fn braced(inner: &str, args: &[String]) -> Option<String> {
    if let Some((head, default)) = inner.split_once(":-") {
        let value = match head {
            "@" | "ARGUMENTS" => Some(args.join(" ")).filter(|v| !args.is_empty() && !v.is_empty()),
            n => positional(args, n.parse().ok()?).filter(|v| !v.is_empty()),
        };
        return Some(value.unwrap_or_else(|| default.to_string()));
    }
    let slice = inner.strip_prefix("@:")?;
    let (start, len) = match slice.split_once(':') {
        Some((s, l)) => (s.parse::<usize>().ok()?, Some(l.parse::<usize>().ok()?)),
        None => (slice.parse::<usize>().ok()?, None),
    };
    // Offsets are the user's text: `${@:2:18446744073709551615}` must not overflow.
    let from = start.saturating_sub(1).min(args.len());
    let to = len.map_or(args.len(), |l| from.saturating_add(l).min(args.len()));
    Some(args[from..to].join(" "))
}

/// The 1-based argument `n`; `$0` has no value.
fn positional(args: &[String], n: usize) -> Option<String> {
    n.checked_sub(1).and_then(|i| args.get(i)).cloned()
}
