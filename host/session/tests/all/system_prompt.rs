//! System prompt golden tests. `UPDATE_GOLDEN=1 cargo test -p pi-session` rewrites the
//! files under `tests/golden/`; review the diff before committing.

// Test helpers may panic: a failed setup step is a failed test.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use pi_ext_api::ToolDescription;
use pi_session::skills::{SkillSearch, discover};
use pi_session::system_prompt::{
    DocPaths, PromptSources, SystemPromptOptions, build_system_prompt, join, sections,
};

/// A tool as the system prompt sees it: a name, its one-line snippet and guidelines.
fn prompt_tool(name: &str, snippet: Option<&str>, guidelines: &[&str]) -> ToolDescription {
    ToolDescription {
        name: name.to_owned(),
        label: name.to_owned(),
        description: String::new(),
        parameters: serde_json::json!({"type": "object"}).into(),
        prompt_snippet: snippet.map(str::to_owned),
        prompt_guidelines: guidelines.iter().map(|g| (*g).to_owned()).collect(),
        sequential: false,
    }
}

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Compares `actual` with `tests/golden/<name>.txt`, or rewrites it with `UPDATE_GOLDEN=1`.
fn assert_golden(name: &str, actual: &str) {
    let path = golden_dir().join(format!("{name}.txt"));
    if std::env::var("UPDATE_GOLDEN").is_ok_and(|v| v == "1") {
        std::fs::create_dir_all(golden_dir()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run with UPDATE_GOLDEN=1 to create it)",
            path.display()
        )
    });
    assert_eq!(actual, expected, "golden file {} differs", path.display());
}

/// A temporary layout: `<root>/agent` is the agent dir, `<root>/home` the home,
/// `<root>/work/proj` the project; paths in the output are scrubbed to `<ROOT>`.
struct Layout {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Layout {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("agent")).unwrap();
        std::fs::create_dir_all(root.join("work/proj/sub")).unwrap();
        Layout { _tmp: tmp, root }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn options(&self, cwd: &str) -> SystemPromptOptions {
        let mut options = SystemPromptOptions::new(self.path(cwd), self.path("agent"));
        options.tools = default_tools();
        options.docs = DocPaths {
            readme: "/opt/pi/README.md".into(),
            docs: "/opt/pi/docs".into(),
            examples: "/opt/pi/examples".into(),
        };
        options
    }

    fn skills(&self, cwd: &str, trusted: bool) -> Vec<pi_session::skills::Skill> {
        let cwd = self.path(cwd);
        discover(&SkillSearch {
            agent_dir: &self.path("agent"),
            home_dir: None,
            cwd: &cwd,
            project_trusted: trusted,
            no_skills: false,
            settings_paths: &[],
            package_dirs: &[],
            cli_paths: &[],
        })
        .skills
    }

    fn build(&self, options: &SystemPromptOptions) -> String {
        build_system_prompt(options).replace(&self.root.to_string_lossy().into_owned(), "<ROOT>")
    }
}

fn default_tools() -> Vec<ToolDescription> {
    vec![
        prompt_tool(
            "read",
            Some("Read the contents of a file"),
            &["Read files with read rather than cat or sed."],
        ),
        prompt_tool(
            "bash",
            Some("Run a shell command (ls, grep, find, ...)"),
            &[],
        ),
        prompt_tool(
            "edit",
            Some("Replace exact text in a file; several separate replacements per call"),
            &[
                "Each edits[].oldText must match exactly once.",
                "Keep edits minimal.",
            ],
        ),
        prompt_tool(
            "write",
            Some("Create a file or overwrite it"),
            &["Use write only for new files or full rewrites."],
        ),
    ]
}

fn skill_md(name: &str, extra: &str) -> String {
    format!("---\nname: {name}\ndescription: Helps with {name} & <stuff>.\n{extra}---\n# {name}\n")
}

#[test]
fn golden_no_files() {
    let layout = Layout::new();
    let prompt = layout.build(&layout.options("work/proj"));
    assert!(prompt.ends_with("\nCurrent working directory: <ROOT>/work/proj"));
    assert!(!prompt.contains("<project_context>"));
    assert_golden("no_files", &prompt);
}

/// Documentation that could not be put on disk is not named as an empty path.
#[test]
fn golden_docs_unavailable() {
    let layout = Layout::new();
    let mut options = layout.options("work/proj");
    options.docs = DocPaths::default();
    let prompt = layout.build(&options);
    assert!(!prompt.contains("Main documentation"));
    assert_golden("docs_unavailable", &prompt);
}

#[test]
fn golden_plan_mode() {
    let layout = Layout::new();
    layout.write("work/proj/AGENTS.md", "Project rules.");
    let mut options = layout.options("work/proj");
    options
        .tools
        .retain(|t| t.name != "write" && t.name != "edit");
    options.plan_mode = true;
    let parts = sections(&options, &PromptSources::load(&options));
    let names: Vec<&str> = parts.iter().map(|p| p.name).collect();
    assert_eq!(
        names,
        [
            "preamble",
            "tools",
            "rules",
            "docs",
            "plan_mode",
            "project_context",
            "cwd"
        ]
    );
    let prompt = layout.build(&options);
    assert!(prompt.contains("\n\nYou are in plan mode."));
    assert!(!prompt.contains("- write:") && !prompt.contains("- edit:"));
    assert_golden("plan_mode", &prompt);
}

#[test]
fn golden_context_chain_and_skills() {
    let layout = Layout::new();
    layout.write("agent/AGENTS.md", "Global rules.");
    layout.write("work/CLAUDE.md", "Workspace rules (CLAUDE.md).");
    layout.write("work/proj/AGENTS.md", "Project rules.\n");
    layout.write("work/proj/CLAUDE.md", "Must not be loaded: AGENTS.md wins.");
    layout.write("work/proj/sub/AGENTS.override.md", "Override rules.");
    layout.write(
        "work/proj/sub/AGENTS.md",
        "Must not be loaded: the override wins.",
    );
    layout.write("agent/skills/lint/SKILL.md", &skill_md("lint", ""));
    layout.write(
        "agent/skills/secret/SKILL.md",
        &skill_md("secret", "disable-model-invocation: true\n"),
    );
    let mut options = layout.options("work/proj/sub");
    options.skills = layout.skills("work/proj/sub", false);
    let prompt = layout.build(&options);
    assert!(!prompt.contains("Must not be loaded"));
    assert!(!prompt.contains("<name>secret</name>"));
    assert_golden("context_chain", &prompt);

    options.no_context_files = true;
    assert!(!build_system_prompt(&options).contains("<project_context>"));
}

#[test]
fn golden_system_md_override() {
    let layout = Layout::new();
    layout.write(
        "agent/SYSTEM.md",
        "Global SYSTEM.md: must lose to the project file.",
    );
    layout.write(
        "agent/APPEND_SYSTEM.md",
        "Global append: must lose to the project file.",
    );
    layout.write(
        "work/proj/.pi/SYSTEM.md",
        "You are the project's own assistant.",
    );
    layout.write("work/proj/.pi/APPEND_SYSTEM.md", "Project append text.");
    layout.write("work/proj/AGENTS.md", "Project rules.");
    let mut options = layout.options("work/proj");
    options.project_trusted = true;
    let prompt = layout.build(&options);
    assert!(!prompt.contains("Available tools"));
    assert!(!prompt.contains("must lose"));
    assert_golden("system_md_override", &prompt);

    // The global file is the fallback when the project has none.
    std::fs::remove_file(layout.path("work/proj/.pi/SYSTEM.md")).unwrap();
    assert!(layout.build(&options).starts_with("Global SYSTEM.md"));
}

#[test]
fn golden_untrusted_project() {
    let layout = Layout::new();
    layout.write("agent/APPEND_SYSTEM.md", "Global append text.");
    layout.write("work/proj/.pi/SYSTEM.md", "Untrusted SYSTEM.md: ignored.");
    layout.write(
        "work/proj/.pi/APPEND_SYSTEM.md",
        "Untrusted APPEND_SYSTEM.md: ignored.",
    );
    layout.write(
        "work/proj/.pi/skills/proj-skill/SKILL.md",
        &skill_md("proj-skill", ""),
    );
    layout.write(
        "work/proj/AGENTS.md",
        "Context files load even when untrusted.",
    );
    let mut options = layout.options("work/proj");
    options.skills = layout.skills("work/proj", false);
    let prompt = layout.build(&options);
    assert!(!prompt.contains("ignored."));
    assert!(!prompt.contains("proj-skill"));
    assert_golden("untrusted_project", &prompt);

    options.skills = layout.skills("work/proj", true);
    assert!(layout.build(&options).contains("<name>proj-skill</name>"));
}

#[test]
fn golden_no_read_tool() {
    let layout = Layout::new();
    layout.write("agent/skills/lint/SKILL.md", &skill_md("lint", ""));
    let mut options = layout.options("work/proj");
    options.skills = layout.skills("work/proj", false);
    assert_eq!(options.skills.len(), 1);
    options.tools.retain(|t| t.name != "read");
    options.tools.push(prompt_tool(
        "grep",
        Some("Search file contents (respects .gitignore)"),
        &[],
    ));
    options
        .tools
        .push(prompt_tool("hidden", None, &["Keep edits minimal."]));
    let prompt = layout.build(&options);
    assert!(!prompt.contains("available_skills"));
    assert!(!prompt.contains("Use bash for file operations"));
    assert_eq!(prompt.matches("Keep edits minimal.").count(), 1);
    assert_golden("no_read_tool", &prompt);
}

#[test]
fn golden_append_and_custom_system_prompt() {
    let layout = Layout::new();
    layout.write(
        "agent/APPEND_SYSTEM.md",
        "Global append: replaced by the command line.",
    );
    layout.write("work/proj/extra.md", "Appended from a file.\n");
    layout.write("work/proj/AGENTS.md", "Project rules.");
    layout.write("agent/skills/lint/SKILL.md", &skill_md("lint", ""));
    let mut options = layout.options("work/proj");
    options.system_prompt = Some("You are a terse reviewer.".into());
    options.append_system_prompt = vec!["Appended text.".into(), "extra.md".into()];
    options.skills = layout.skills("work/proj", false);
    options.date = Some("2026-01-02".into());
    let prompt = layout.build(&options);
    assert!(
        prompt
            .starts_with("You are a terse reviewer.\n\nAppended text.\n\nAppended from a file.\n")
    );
    assert!(!prompt.contains("replaced by the command line"));
    assert_golden("append_custom_system_prompt", &prompt);
}

#[test]
fn custom_prompt_from_a_file_path() {
    let layout = Layout::new();
    layout.write("work/proj/prompt.md", "From a file.");
    let mut options = layout.options("work/proj");
    options.system_prompt = Some(
        layout
            .path("work/proj/prompt.md")
            .to_string_lossy()
            .into_owned(),
    );
    assert!(
        layout
            .build(&options)
            .starts_with("From a file.\nCurrent working directory:")
    );
    options.system_prompt = Some("prompt.md".into());
    assert!(layout.build(&options).starts_with("From a file."));
}

mod context_files {
    use pi_session::context_files::load_context_files;

    use super::Layout;

    #[test]
    fn agent_dir_reached_again_by_the_walk_is_loaded_once() {
        let layout = Layout::new();
        layout.write("work/AGENTS.md", "Workspace rules.");
        layout.write("work/proj/CLAUDE.MD", "Upper-case CLAUDE.MD.");
        let files = load_context_files(&layout.path("work"), &layout.path("work/proj/sub"));
        let paths: Vec<_> = files.iter().map(|f| f.path.clone()).collect();
        assert_eq!(
            paths,
            [
                layout.path("work/AGENTS.md"),
                layout.path("work/proj/CLAUDE.MD")
            ]
        );
        assert_eq!(files[1].content, "Upper-case CLAUDE.MD.");
    }

    #[test]
    fn nested_linked_worktree_shadows_the_main_repository_file() {
        let layout = Layout::new();
        layout.write("work/proj/AGENTS.md", "Main checkout rules.");
        layout.write("work/proj/.git/HEAD", "ref: refs/heads/main\n");
        let gitdir = layout.path("work/proj/.git/worktrees/feat");
        layout.write(
            "work/proj/.worktrees/feat/.git",
            &format!("gitdir: {}\n", gitdir.display()),
        );
        layout.write("work/proj/.worktrees/feat/AGENTS.md", "Worktree rules.");
        let cwd = layout.path("work/proj/.worktrees/feat");
        let files = load_context_files(&layout.path("agent"), &cwd);
        let contents: Vec<&str> = files.iter().map(|f| f.content.as_str()).collect();
        assert_eq!(contents, ["Worktree rules."]);

        // Without its own copy, the worktree still sees the main repository's rules.
        std::fs::remove_file(cwd.join("AGENTS.md")).unwrap();
        let files = load_context_files(&layout.path("agent"), &cwd);
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].content, "Main checkout rules.");
    }
}

/// The prompt's sections, read from disk as `build_system_prompt` reads them, with the
/// layout's root scrubbed: their names, and their join checked against a golden prompt
/// written before the prompt was built from sections.
fn sections_of(
    layout: &Layout,
    options: &SystemPromptOptions,
    golden: &str,
) -> Vec<(String, String)> {
    let parts = sections(options, &PromptSources::load(options));
    let root = layout.root.to_string_lossy().into_owned();
    let expected = std::fs::read_to_string(golden_dir().join(format!("{golden}.txt"))).unwrap();
    assert_eq!(join(&parts).replace(&root, "<ROOT>"), expected, "{golden}");
    parts
        .iter()
        .map(|p| (p.name.to_owned(), p.text.replace(&root, "<ROOT>")))
        .collect()
}

fn names(parts: &[(String, String)]) -> Vec<&str> {
    parts.iter().map(|(name, _)| name.as_str()).collect()
}

#[test]
fn the_built_in_prompt_is_pi_16s_sections_joined_to_the_same_text() {
    let layout = Layout::new();
    layout.write("agent/AGENTS.md", "Global rules.");
    layout.write("work/CLAUDE.md", "Workspace rules (CLAUDE.md).");
    layout.write("work/proj/AGENTS.md", "Project rules.\n");
    layout.write("work/proj/CLAUDE.md", "Must not be loaded: AGENTS.md wins.");
    layout.write("work/proj/sub/AGENTS.override.md", "Override rules.");
    layout.write(
        "work/proj/sub/AGENTS.md",
        "Must not be loaded: the override wins.",
    );
    layout.write("agent/skills/lint/SKILL.md", &skill_md("lint", ""));
    let mut options = layout.options("work/proj/sub");
    options.skills = layout.skills("work/proj/sub", false);
    let parts = sections_of(&layout, &options, "context_chain");
    assert_eq!(
        names(&parts),
        [
            "preamble",
            "tools",
            "rules",
            "docs",
            "project_context",
            "skills",
            "cwd"
        ]
    );
    let text = |name: &str| &parts.iter().find(|(n, _)| n == name).unwrap().1;
    assert!(text("preamble").starts_with("You are an expert coding assistant"));
    assert!(text("tools").starts_with("Available tools:\n- read: "));
    assert!(text("rules").starts_with("Guidelines:\n"));
    assert!(text("docs").starts_with("Pi documentation"));
    assert!(text("project_context").starts_with("<project_context>"));
    assert!(text("skills").contains("<available_skills>"));
    assert_eq!(
        text("cwd"),
        "Current working directory: <ROOT>/work/proj/sub"
    );

    let bare = Layout::new();
    let parts = sections_of(&bare, &bare.options("work/proj"), "no_files");
    assert_eq!(names(&parts), ["preamble", "tools", "rules", "docs", "cwd"]);
}

/// A custom prompt is the preamble and drops the template's tools, rules and docs (pi 1.6);
/// appended text is the addendum; a date line shares the cwd section.
#[test]
fn a_custom_prompt_is_the_preamble_and_the_date_shares_the_cwd_section() {
    let layout = Layout::new();
    layout.write("work/proj/extra.md", "Appended from a file.\n");
    layout.write("work/proj/AGENTS.md", "Project rules.");
    layout.write("agent/skills/lint/SKILL.md", &skill_md("lint", ""));
    let mut options = layout.options("work/proj");
    options.system_prompt = Some("You are a terse reviewer.".into());
    options.append_system_prompt = vec!["Appended text.".into(), "extra.md".into()];
    options.skills = layout.skills("work/proj", false);
    options.date = Some("2026-01-02".into());
    let parts = sections_of(&layout, &options, "append_custom_system_prompt");
    assert_eq!(
        names(&parts),
        ["preamble", "addendum", "project_context", "skills", "cwd"]
    );
    assert_eq!(parts[0].1, "You are a terse reviewer.");
    assert_eq!(parts[1].1, "Appended text.\n\nAppended from a file.\n");
    assert_eq!(
        parts[4].1,
        "Current date: 2026-01-02\nCurrent working directory: <ROOT>/work/proj"
    );
}

#[test]
fn a_backslash_in_the_working_directory_is_written_as_a_slash() {
    let root = tempfile::tempdir().unwrap();
    // A Windows-style path (on Unix, a directory name with backslashes in it).
    let options =
        SystemPromptOptions::new(PathBuf::from(r"C:\work\proj"), root.path().join("agent"));
    let prompt = build_system_prompt(&options);
    assert!(
        prompt.ends_with("Current working directory: C:/work/proj"),
        "{prompt}"
    );
    assert!(!prompt.contains('\\'), "{prompt}");
}
