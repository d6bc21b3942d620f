//! Discovery of agent definitions in temporary folders: the sources, trust, precedence and the
//! warnings, and pi's example definitions read as they are.

use super::*;
use std::fs;

struct Dirs {
    _root: tempfile::TempDir,
    agent_dir: PathBuf,
    cwd: PathBuf,
}

fn dirs() -> Dirs {
    let root = tempfile::tempdir().unwrap();
    let agent_dir = root.path().join("agent");
    let cwd = root.path().join("project").join("sub");
    fs::create_dir_all(&agent_dir).unwrap();
    fs::create_dir_all(&cwd).unwrap();
    Dirs {
        agent_dir,
        cwd,
        _root: root,
    }
}

fn write(dir: &Path, file: &str, text: &str) -> PathBuf {
    fs::create_dir_all(dir).unwrap();
    let path = dir.join(file);
    fs::write(&path, text).unwrap();
    path
}

fn agent(name: &str, extra: &str) -> String {
    format!("---\nname: {name}\ndescription: The {name} agent\n{extra}---\n\nYou are {name}.\n")
}

fn find(d: &Dirs, trusted: bool, packages: &[(String, PathBuf)]) -> AgentDefinitions {
    discover(&AgentSearch {
        agent_dir: &d.agent_dir,
        cwd: &d.cwd,
        trusted,
        package_dirs: packages,
    })
}

fn user_dir(d: &Dirs) -> PathBuf {
    d.agent_dir.join("agents")
}

/// The project's `.pi/agents`, one level above the working directory (found walking up).
fn project_dir(d: &Dirs) -> PathBuf {
    d.cwd.parent().unwrap().join(".pi").join("agents")
}

#[test]
fn user_definitions_are_read_with_every_field() {
    let d = dirs();
    let path = write(
        &user_dir(&d),
        "scout.md",
        &agent(
            "scout",
            "tools: read, grep , ,ls\nmodel: anthropic/claude-haiku-4-5:low\nmode: ask-writes\nextra: kept quiet\n",
        ),
    );
    write(&user_dir(&d), "notes.txt", "not an agent");
    let found = find(&d, false, &[]);
    assert_eq!(found.warnings, Vec::<String>::new());
    assert_eq!(
        found.agents,
        vec![AgentDefinition {
            name: "scout".into(),
            description: "The scout agent".into(),
            tools: Some(vec!["read".into(), "grep".into(), "ls".into()]),
            model: Some("anthropic/claude-haiku-4-5:low".into()),
            mode: Some(PermissionMode::AskWrites),
            system_prompt: "You are scout.".into(),
            source: AgentSource::User,
            path,
        }]
    );
    assert!(found.find("scout").is_some());
    assert!(found.find("worker").is_none());
}

#[test]
fn tools_may_be_a_flow_or_a_block_list() {
    let d = dirs();
    let dir = user_dir(&d);
    write(
        &dir,
        "a.md",
        &agent("a", "tools: [read, \"bash\", 'mcp__gh__*']\n"),
    );
    write(
        &dir,
        "b.md",
        &agent("b", "tools:\n  - read\n  - \"grep\"\n"),
    );
    write(&dir, "c.md", &agent("c", "tools: []\n"));
    write(&dir, "d.md", &agent("d", ""));
    let found = find(&d, false, &[]);
    assert_eq!(found.warnings, Vec::<String>::new());
    let tools = |name: &str| found.find(name).unwrap().tools.clone();
    assert_eq!(
        tools("a"),
        Some(vec!["read".into(), "bash".into(), "mcp__gh__*".into()])
    );
    assert_eq!(tools("b"), Some(vec!["read".into(), "grep".into()]));
    assert_eq!(tools("c"), None);
    assert_eq!(tools("d"), None);
}

#[test]
fn bad_fields_are_warned_and_ignored_but_the_agent_loads() {
    let d = dirs();
    let dir = user_dir(&d);
    let map = write(&dir, "map.md", &agent("map", "tools:\n  read: yes\n"));
    let flag = write(
        &dir,
        "flag.md",
        &agent("flag", "tools: true\nmodel: false\n"),
    );
    let mode = write(&dir, "mode.md", &agent("mode", "mode: yolo\n"));
    let found = find(&d, false, &[]);
    assert_eq!(found.agents.len(), 3);
    for name in ["map", "flag", "mode"] {
        let agent = found.find(name).unwrap();
        assert_eq!(
            (&agent.tools, &agent.model, agent.mode),
            (&None, &None, None)
        );
    }
    let shape = "tools must be a comma-separated string or a list of tool names; ignored";
    assert_eq!(
        found.warnings,
        vec![
            format!("Warning (agents): {}: {shape}", flag.display()),
            format!(
                "Warning (agents): {}: model must be a string; ignored",
                flag.display()
            ),
            format!("Warning (agents): {}: {shape}", map.display()),
            format!(
                "Warning (agents): {}: mode must be one of auto, ask-writes, ask-all, plan; ignored",
                mode.display()
            ),
        ]
    );
}

#[test]
fn files_without_name_or_description_or_with_broken_front_matter_are_skipped() {
    let d = dirs();
    let dir = user_dir(&d);
    let nameless = write(&dir, "a.md", "---\ndescription: no name\n---\nbody\n");
    let blank = write(
        &dir,
        "b.md",
        "---\nname: b\ndescription: \"  \"\n---\nbody\n",
    );
    let broken = write(
        &dir,
        "c.md",
        "---\nname: c\ndescription: [unclosed\n---\nbody\n",
    );
    let plain = write(&dir, "d.md", "just a prompt, no front matter\n");
    // Skipped, it says only why: not also that its name breaks the rules.
    let bad_name = write(&dir, "e.md", "---\nname: Bad Name\n---\nbody\n");
    write(&dir, "ok.md", &agent("ok", ""));
    let found = find(&d, false, &[]);
    let names: Vec<&str> = found.agents.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["ok"]);
    assert_eq!(found.warnings.len(), 6, "{:#?}", found.warnings);
    let said = |path: &Path, what: &str| {
        let line = format!("Warning (agents): {}: {what}", path.display());
        assert!(
            found.warnings.contains(&line),
            "{line}\n{:#?}",
            found.warnings
        );
    };
    said(&nameless, "not loaded: name is required");
    said(&blank, "not loaded: description is required");
    said(&plain, "not loaded: name is required");
    said(&bad_name, "not loaded: description is required");
    said(&plain, "not loaded: description is required");
    let invalid = format!(
        "Warning (agents): {}: not loaded: invalid front matter",
        broken.display()
    );
    assert!(
        found.warnings.iter().any(|w| w.starts_with(&invalid)),
        "{:#?}",
        found.warnings
    );
}

#[test]
fn names_and_descriptions_are_checked_like_skills() {
    let d = dirs();
    let long = "x".repeat(MAX_DESCRIPTION_LENGTH + 1);
    let path = write(
        &user_dir(&d),
        "bad.md",
        &format!("---\nname: Bad_Name\ndescription: {long}\n---\nbody\n"),
    );
    let found = find(&d, false, &[]);
    assert_eq!(
        found.agents.len(),
        1,
        "name problems only warn, as for skills"
    );
    let at = |m: &str| format!("Warning (agents): {}: {m}", path.display());
    assert_eq!(
        found.warnings,
        vec![
            at("name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)"),
            at(&format!(
                "description exceeds {MAX_DESCRIPTION_LENGTH} characters ({})",
                MAX_DESCRIPTION_LENGTH + 1
            )),
        ]
    );
}

#[test]
fn a_trusted_projects_agents_load_from_the_nearest_pi_folder_up() {
    let d = dirs();
    let path = write(&project_dir(&d), "rev.md", &agent("rev", ""));
    let found = find(&d, true, &[]);
    assert_eq!(found.warnings, Vec::<String>::new());
    let rev = found.find("rev").unwrap();
    assert_eq!((&rev.source, &rev.path), (&AgentSource::Project, &path));
}

#[test]
fn an_untrusted_projects_agents_are_not_loaded_and_one_warning_says_why() {
    let d = dirs();
    write(&project_dir(&d), "rev.md", &agent("rev", ""));
    write(&project_dir(&d), "other.md", &agent("other", ""));
    let found = find(&d, false, &[]);
    assert!(found.is_empty());
    assert_eq!(
        found.warnings,
        vec![format!(
            "Warning (agents): {}: not loaded: the project is not trusted. Start pi in the \
             project to trust it (or run it with --approve).",
            project_dir(&d).display()
        )]
    );
}

#[test]
fn no_project_folder_no_warning() {
    let d = dirs();
    let found = find(&d, false, &[]);
    assert!(found.is_empty() && found.warnings.is_empty());
}

#[test]
fn package_then_user_then_project_and_the_later_wins_with_a_warning() {
    let d = dirs();
    let root = d.agent_dir.parent().unwrap().to_path_buf();
    let pkg_dir = root.join("pkg").join("agents");
    let from_pkg = write(&pkg_dir, "a.md", &agent("same", ""));
    write(&pkg_dir, "only.md", &agent("only-pkg", ""));
    let from_user = write(&user_dir(&d), "b.md", &agent("same", ""));
    let from_project = write(&project_dir(&d), "c.md", &agent("same", ""));
    let packages = vec![("tools-pkg".to_owned(), pkg_dir)];
    let found = find(&d, true, &packages);
    let same = found.find("same").unwrap();
    assert_eq!(
        (&same.source, &same.path),
        (&AgentSource::Project, &from_project)
    );
    let only = found.find("only-pkg").unwrap();
    assert_eq!(only.source, AgentSource::Package("tools-pkg".into()));
    assert_eq!(only.source.to_string(), "package tools-pkg");
    assert_eq!(found.agents.len(), 2);
    let taken = |loser: &Path, winner: &Path| {
        format!(
            "Warning (agents): {}: not loaded: the name \"same\" is taken by {}",
            loser.display(),
            winner.display()
        )
    };
    assert_eq!(
        found.warnings,
        vec![
            taken(&from_pkg, &from_user),
            taken(&from_user, &from_project)
        ]
    );
}

#[test]
fn a_package_entry_may_be_one_picked_file() {
    let d = dirs();
    let root = d.agent_dir.parent().unwrap().to_path_buf();
    let file = write(&root.join("pkg/agents"), "one.md", &agent("one", ""));
    write(&root.join("pkg/agents"), "two.md", &agent("two", ""));
    let found = find(&d, false, &[("p".to_owned(), file)]);
    let names: Vec<&str> = found.agents.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["one"]);
}

#[cfg(unix)]
#[test]
fn symlinks_to_files_count_and_folders_are_not_entered() {
    let d = dirs();
    let elsewhere = write(&d.cwd, "linked.md", &agent("linked", ""));
    let dir = user_dir(&d);
    fs::create_dir_all(dir.join("nested.md")).unwrap();
    write(&dir.join("deeper"), "deep.md", &agent("deep", ""));
    std::os::unix::fs::symlink(&elsewhere, dir.join("linked.md")).unwrap();
    std::os::unix::fs::symlink(dir.join("missing.md"), dir.join("broken.md")).unwrap();
    let found = find(&d, false, &[]);
    let names: Vec<&str> = found.agents.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["linked"]);
    assert!(found.warnings.is_empty(), "{:#?}", found.warnings);
}

#[test]
fn odd_bytes_and_shapes_never_panic() {
    let d = dirs();
    let dir = user_dir(&d);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("bin.md"), [0xff, 0xfe, 0x00, 0x2d]).unwrap();
    for (i, text) in [
        "---\n",
        "---\n---\n",
        "---\nname: x\ndescription: y\ntools: [\"unclosed, a]\n---\n",
        "---\nname: x\ndescription: y\ntools:\n  - [a, b]\n---\n",
        "---\nname: [a]\ndescription: {b: c}\n---\n",
        "---\nname: é\ndescription: y\nmode: \n---\n",
    ]
    .iter()
    .enumerate()
    {
        write(&dir, &format!("odd{i}.md"), text);
    }
    let found = find(&d, false, &[]);
    assert!(
        found
            .warnings
            .iter()
            .any(|w| w.contains("cannot read agent file"))
    );
    assert!(
        found
            .warnings
            .iter()
            .all(|w| w.starts_with("Warning (agents): "))
    );
}

/// An agent's name, tools and model.
type Summary<'a> = (&'a str, Option<Vec<&'a str>>, Option<&'a str>);

/// pi's `subagent` example's four definitions, vendored unchanged.
#[test]
fn pis_example_definitions_are_read_as_they_are() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pi-subagent-agents");
    let d = dirs();
    let found = find(&d, false, &[("pi-example".to_owned(), dir.clone())]);
    assert_eq!(found.warnings, Vec::<String>::new());
    let summary: Vec<Summary> = found
        .agents
        .iter()
        .map(|a| {
            let tools = a
                .tools
                .as_ref()
                .map(|t| t.iter().map(String::as_str).collect());
            (a.name.as_str(), tools, a.model.as_deref())
        })
        .collect();
    let read_only = vec!["read", "grep", "find", "ls"];
    let with_bash = vec!["read", "grep", "find", "ls", "bash"];
    assert_eq!(
        summary,
        vec![
            ("planner", Some(read_only), Some("claude-sonnet-4-5")),
            (
                "reviewer",
                Some(with_bash.clone()),
                Some("claude-sonnet-4-5")
            ),
            ("scout", Some(with_bash), Some("claude-haiku-4-5")),
            ("worker", None, Some("claude-sonnet-4-5")),
        ]
    );
    let scout = found.find("scout").unwrap();
    assert_eq!(
        scout.description,
        "Fast codebase recon that returns compressed context for handoff to other agents"
    );
    assert!(
        scout
            .system_prompt
            .starts_with("You are a scout. Quickly investigate")
    );
    assert_eq!(scout.mode, None);
    let worker = found.find("worker").unwrap();
    assert_eq!(
        worker.description,
        "General-purpose subagent with full capabilities, isolated context"
    );
    assert!(
        worker
            .system_prompt
            .ends_with("Key functions/types touched (short list)")
    );
    let text = fs::read_to_string(dir.join("worker.md")).unwrap();
    let body = text.split_once("\n---\n").unwrap().1.trim();
    assert_eq!(worker.system_prompt, body);
}
