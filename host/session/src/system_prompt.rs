//! System prompt composition.
//!
//! The prompt is built as pi 1.6's named sections, in its order: `preamble` (a custom base
//! prompt, or the built-in template's opening), `tools`, `rules` and `docs` (the built-in
//! template's rest; a custom base drops them), `addendum` (appended content), `project_context`
//! (project rules), `skills` (only with the `read` tool) and `cwd` (an optional date line and
//! the working directory). The sections are what the session records (`role: "system"`
//! messages); their join is the prompt sent.
//!
//! [`PromptSources::load`] does the file lookups; [`sections`] and [`render`] are pure, so the
//! same inputs always give the same text.

use std::path::{Path, PathBuf};

use crate::context_files::{ContextFile, load_context_files};
use crate::skills::{Skill, escape_xml_attr, format_skills_for_prompt};
use pi_ext_api::ToolDescription;

/// Where pi's own documentation is on disk (shown in the built-in template). Empty paths (the
/// default) mean it is not available in this run, and the template says so instead.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocPaths {
    /// The README: the main documentation.
    pub readme: PathBuf,
    /// The folder of the topic pages (`extensions.md`, `themes.md`, …).
    pub docs: PathBuf,
    /// The folder of the examples (`guest-sdk/README.md`).
    pub examples: PathBuf,
}

/// Everything the system prompt depends on.
#[derive(Debug, Clone)]
pub struct SystemPromptOptions {
    /// The working directory: start of the rule-file walk, and the last line of the prompt.
    pub cwd: PathBuf,
    /// The global agent directory (`~/.pi/agent`): `SYSTEM.md`, `APPEND_SYSTEM.md`, `AGENTS.md`.
    pub agent_dir: PathBuf,
    /// Whether `<cwd>/.pi/SYSTEM.md` and `<cwd>/.pi/APPEND_SYSTEM.md` may be used. Default: false.
    pub project_trusted: bool,
    /// The tools enabled for the run, in display order. Default: none.
    pub tools: Vec<ToolDescription>,
    /// `--system-prompt`: text, or the path of a file holding it. Replaces the base prompt.
    pub system_prompt: Option<String>,
    /// `--append-system-prompt` values (text or file paths) and extension additions. When any
    /// is given, `APPEND_SYSTEM.md` files are not consulted.
    pub append_system_prompt: Vec<String>,
    /// `--no-context-files`: skip the rule files. Default: false.
    pub no_context_files: bool,
    /// Registered skills; only the ones visible to the model are listed.
    pub skills: Vec<Skill>,
    pub docs: DocPaths,
    /// A `Current date: …` line before the working directory line. Default: none (pi ≥ 0.84
    /// has no date line; callers that want one inject it, which keeps output deterministic).
    pub date: Option<String>,
    /// The run is in plan mode: the prompt says the agent can only read and should plan.
    /// Default: false.
    pub plan_mode: bool,
}

impl SystemPromptOptions {
    pub fn new(cwd: impl Into<PathBuf>, agent_dir: impl Into<PathBuf>) -> Self {
        SystemPromptOptions {
            cwd: cwd.into(),
            agent_dir: agent_dir.into(),
            project_trusted: false,
            tools: Vec::new(),
            system_prompt: None,
            append_system_prompt: Vec::new(),
            no_context_files: false,
            skills: Vec::new(),
            docs: DocPaths::default(),
            date: None,
            plan_mode: false,
        }
    }

    fn has_tool(&self, name: &str) -> bool {
        self.tools.iter().any(|t| t.name == name)
    }
}

/// The file-backed parts of the prompt, resolved from disk.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptSources {
    /// A custom base prompt; `None` means the built-in template.
    pub custom_base: Option<String>,
    /// Appended content (already joined); `None` when there is none.
    pub append: Option<String>,
    pub context_files: Vec<ContextFile>,
}

impl PromptSources {
    /// Resolves the custom base prompt (`--system-prompt`, trusted `.pi/SYSTEM.md`, global
    /// `SYSTEM.md`), the appended content (`--append-system-prompt` values, else trusted
    /// `.pi/APPEND_SYSTEM.md`, else global `APPEND_SYSTEM.md`) and the rule files.
    pub fn load(options: &SystemPromptOptions) -> Self {
        let custom_base = match &options.system_prompt {
            Some(value) => non_empty(text_or_file(value, &options.cwd)),
            None => first_file(options, "SYSTEM.md"),
        };
        let append = if options.append_system_prompt.is_empty() {
            first_file(options, "APPEND_SYSTEM.md")
        } else {
            let parts: Vec<String> = options
                .append_system_prompt
                .iter()
                .filter_map(|v| non_empty(text_or_file(v, &options.cwd)))
                .collect();
            non_empty(parts.join("\n\n"))
        };
        let context_files = if options.no_context_files {
            Vec::new()
        } else {
            load_context_files(&options.agent_dir, &options.cwd)
        };
        PromptSources {
            custom_base,
            append,
            context_files,
        }
    }
}

/// Builds the system prompt for `options`, reading the files it refers to.
pub fn build_system_prompt(options: &SystemPromptOptions) -> String {
    render(options, &PromptSources::load(options))
}

/// Assembles the prompt from already-loaded sources: the join of its [`sections`].
pub fn render(options: &SystemPromptOptions, sources: &PromptSources) -> String {
    join(&sections(options, sources))
}

/// One named part of the system prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptSection {
    /// pi 1.6's section name (`preamble`, `tools`, `rules`, …).
    pub name: &'static str,
    /// What joins it to the section before (`""` for the first).
    separator: &'static str,
    pub text: String,
}

impl PromptSection {
    /// A section of the host's own after the others, as pi 1.6 writes the sections extensions
    /// add: `<name>` … `</name>`, after a blank line.
    pub fn tagged(name: &'static str, body: &str) -> Self {
        PromptSection {
            name,
            separator: "\n\n",
            text: format!("<{name}>\n{body}\n</{name}>"),
        }
    }

    /// A section from a piece of the prompt: the blank line or line break the piece starts
    /// with becomes its separator, so the section's text is the part itself.
    fn from_piece(name: &'static str, piece: String) -> Self {
        let (separator, text) = if let Some(rest) = piece.strip_prefix("\n\n") {
            ("\n\n", rest.to_owned())
        } else if let Some(rest) = piece.strip_prefix('\n') {
            ("\n", rest.to_owned())
        } else {
            ("", piece)
        };
        PromptSection {
            name,
            separator,
            text,
        }
    }
}

/// What plan mode adds after the base prompt (a section of our own; pi has no plan mode).
const PLAN_MODE: &str = "\n\nYou are in plan mode. You can read files and run commands that only \
read: bash runs in a read-only sandbox without network, and the write and edit tools are not \
available. Any attempt to change files, start servers or reach the network is refused, so do \
not try. Study what you need, then answer with a plan: the steps, the files each step changes \
and how, and what to check afterwards. The user leaves plan mode to carry it out.";

/// The prompt's sections in pi 1.6's order; empty parts are left out.
pub fn sections(options: &SystemPromptOptions, sources: &PromptSources) -> Vec<PromptSection> {
    let mut pieces: Vec<(&'static str, String)> = match &sources.custom_base {
        Some(custom) => vec![("preamble", custom.clone())],
        None => builtin_parts(options).to_vec(),
    };
    if options.plan_mode {
        pieces.push(("plan_mode", PLAN_MODE.to_owned()));
    }
    if let Some(append) = &sources.append {
        pieces.push(("addendum", format!("\n\n{append}")));
    }
    pieces.push(("project_context", project_context(&sources.context_files)));
    if options.has_tool("read") {
        pieces.push(("skills", format_skills_for_prompt(&options.skills)));
    }
    let mut cwd = String::new();
    if let Some(date) = &options.date {
        cwd.push_str("\nCurrent date: ");
        cwd.push_str(date);
    }
    cwd.push_str("\nCurrent working directory: ");
    cwd.push_str(&options.cwd.to_string_lossy().replace('\\', "/"));
    pieces.push(("cwd", cwd));
    pieces
        .into_iter()
        .filter(|(_, piece)| !piece.is_empty())
        .enumerate()
        .map(|(i, (name, piece))| match i {
            // The first section is the prompt's start, kept whole.
            0 => PromptSection {
                name,
                separator: "",
                text: piece,
            },
            _ => PromptSection::from_piece(name, piece),
        })
        .collect()
}

/// The prompt text of `sections`.
pub fn join(sections: &[PromptSection]) -> String {
    let mut out = String::new();
    for (i, section) in sections.iter().enumerate() {
        if i > 0 {
            out.push_str(section.separator);
        }
        out.push_str(&section.text);
    }
    out
}

/// The `<project_context>` block with one `<project_instructions>` per rule file, or `""`.
pub fn project_context(files: &[ContextFile]) -> String {
    if files.is_empty() {
        return String::new();
    }
    let mut out =
        String::from("\n\n<project_context>\n\nInstructions and guidelines for this project:\n\n");
    for file in files {
        out.push_str(&format!(
            "<project_instructions path=\"{}\">\n{}\n</project_instructions>\n\n",
            escape_xml_attr(&file.path.to_string_lossy()),
            file.content
        ));
    }
    out.push_str("</project_context>\n");
    out
}

/// The built-in template as pi 1.6's `preamble`, `tools`, `rules` and `docs` sections (each
/// after the first starting with the blank line that joins it).
fn builtin_parts(options: &SystemPromptOptions) -> [(&'static str, String); 4] {
    let tools: Vec<String> = options
        .tools
        .iter()
        .filter_map(|t| {
            let snippet = t.prompt_snippet.as_ref().filter(|s| !s.is_empty())?;
            Some(format!("- {}: {}", t.name, snippet))
        })
        .collect();
    let tools = if tools.is_empty() {
        "(none)".to_string()
    } else {
        tools.join("\n")
    };
    let guidelines: Vec<String> = guidelines(options)
        .iter()
        .map(|g| format!("- {g}"))
        .collect();
    [
        (
            "preamble",
            "You are an expert coding assistant working inside pi, a coding agent harness. You help \
users by reading files, running commands, editing code and writing new files."
                .to_owned(),
        ),
        (
            "tools",
            format!(
                "\n\nAvailable tools:\n{tools}\n\nBesides the tools above, the project may provide \
further custom tools."
            ),
        ),
        ("rules", format!("\n\nGuidelines:\n{}", guidelines.join("\n"))),
        ("docs", format!("\n\n{}", docs_section(&options.docs))),
    ]
}

/// Where pi's documentation is, with the topic pages it ships; a short note when it is not on
/// disk in this run.
fn docs_section(docs: &DocPaths) -> String {
    if docs.readme.as_os_str().is_empty() {
        return "Pi documentation: not available in this run (it could not be written to pi's agent \
directory)."
            .to_string();
    }
    format!(
        "Pi documentation (read it only when the user asks about pi itself, extensions, themes, skills or the TUI):
- Main documentation: {readme}
- Additional docs: {docs_dir}
- Examples: {examples} (guest-sdk/README.md: writing an extension in Rust, from an empty folder to an installed tool; \
extensions/ollama: a provider package for a new protocol; extensions/json-query: a tool in Python; \
extensions/md-table: a tool in JavaScript; extensions/checksum: a tool in C)
- Look up docs/... paths in the \"Additional docs\" directory and examples/... paths in the \"Examples\" directory, \
not in the current working directory.
- Where to look per topic: extensions (docs/extensions.md, examples/guest-sdk/README.md; in Python: docs/extensions-python.md; \
in JavaScript: docs/extensions-javascript.md; in C: docs/extensions-c.md; a new package: `pi ext new`), \
themes (docs/themes.md), \
skills (docs/skills.md), prompt templates (docs/prompt-templates.md), the TUI's keys and commands (docs/tui.md), \
keybindings (docs/keybindings.md), adding models and providers (docs/models.md), pi packages (docs/packages.md), \
settings (docs/settings.md), environment variables (docs/environment-variables.md).
- For pi-related work, read the relevant docs and examples first and follow the links between the Markdown docs \
before implementing anything.
- Read pi's Markdown files in full, then the related docs they link to (for example packages.md when an extension \
is to be installed).",
        readme = docs.readme.display(),
        docs_dir = docs.docs.display(),
        examples = docs.examples.display(),
    )
}

/// Guideline lines: a bash hint when bash is the only way to explore files, each tool's own
/// guidelines in tool order without repeats, then the two fixed lines.
pub fn guidelines(options: &SystemPromptOptions) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let explorers = ["grep", "find", "ls"];
    if options.has_tool("bash") && !explorers.iter().any(|t| options.has_tool(t)) {
        lines.push("Use bash for file operations such as ls, rg and find.".to_string());
    }
    for tool in &options.tools {
        for line in &tool.prompt_guidelines {
            let line = line.trim();
            if !line.is_empty() && !lines.iter().any(|l| l == line) {
                lines.push(line.to_string());
            }
        }
    }
    lines.push("Keep responses concise.".to_string());
    lines.push("Show file paths clearly when working with files.".to_string());
    lines
}

/// A command-line value is a file path when such a file exists (relative to `cwd`), else text.
fn text_or_file(value: &str, cwd: &Path) -> String {
    let path = cwd.join(value);
    if !value.contains('\n') && path.is_file() {
        match std::fs::read_to_string(&path) {
            Ok(text) => return text,
            Err(err) => tracing::warn!(path = %path.display(), %err, "cannot read prompt file"),
        }
    }
    value.to_string()
}

/// `<cwd>/.pi/<name>` if the project is trusted and it exists, else `<agentDir>/<name>`.
fn first_file(options: &SystemPromptOptions, name: &str) -> Option<String> {
    let project = options
        .project_trusted
        .then(|| options.cwd.join(".pi").join(name));
    let global = Some(options.agent_dir.join(name));
    [project, global]
        .into_iter()
        .flatten()
        .filter(|p| p.is_file())
        .find_map(|p| match std::fs::read_to_string(&p) {
            Ok(text) => non_empty(text),
            Err(err) => {
                tracing::warn!(path = %p.display(), %err, "cannot read prompt file");
                None
            }
        })
}

fn non_empty(text: String) -> Option<String> {
    (!text.trim().is_empty()).then_some(text)
}
