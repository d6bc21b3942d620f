//! Agent definitions through the `pi` binary: the warnings of bad files, of an untrusted
//! project and of names taken over reach stderr of a print-mode run, which still succeeds, and
//! a package given with `-e` that ships `[resources] agents` is looked in.

use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use std::path::{Path, PathBuf};

fn agent(name: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: The {name} agent\ntools: read, grep\n---\nYou are {name}.\n"
    )
}

fn write(dir: &Path, file: &str, text: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(file);
    std::fs::write(&path, text).unwrap();
    path
}

/// `pi --no-session <args> -p hi` answered "ok": its stderr (the run must succeed).
fn run_ok(pi: &PiEnv, args: &[&str]) -> String {
    pi.mock.push(Turn::text("ok"));
    let mut all = vec!["--no-session"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-p", "hi"]);
    let out = pi.run(&all);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "ok\n");
    stderr(&out)
}

fn agent_warnings(err: &str) -> Vec<&str> {
    err.lines()
        .filter(|l| l.starts_with("Warning (agents): "))
        .collect()
}

#[test]
fn bad_agent_files_are_warned_on_stderr_and_the_run_still_answers() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let dir = pi.agent_dir().join("agents");
    write(&dir, "good.md", &agent("good"));
    let nameless = write(
        &dir,
        "nameless.md",
        "---\ndescription: no name\n---\nBody.\n",
    );
    let broken = write(
        &dir,
        "broken.md",
        "---\nname: b\ndescription: [open\n---\nBody.\n",
    );
    let mode = write(
        &dir,
        "mode.md",
        "---\nname: m\ndescription: d\nmode: yolo\n---\n",
    );
    let err = run_ok(&pi, &[]);
    let warnings = agent_warnings(&err);
    assert_eq!(warnings.len(), 3, "{err}");
    let broken_line = format!(
        "Warning (agents): {}: not loaded: invalid front matter",
        broken.display()
    );
    assert!(warnings[0].starts_with(&broken_line), "{err}");
    assert_eq!(
        warnings[1],
        format!(
            "Warning (agents): {}: mode must be one of auto, ask-writes, ask-all, plan; ignored",
            mode.display()
        )
    );
    assert_eq!(
        warnings[2],
        format!(
            "Warning (agents): {}: not loaded: name is required",
            nameless.display()
        )
    );
}

#[test]
fn a_projects_agents_are_read_only_when_it_is_trusted_and_override_the_users() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let user = write(&pi.agent_dir().join("agents"), "rev.md", &agent("rev"));
    let project_dir = pi.cwd().join(".pi").join("agents");
    let project = write(&project_dir, "reviewer.md", &agent("rev"));

    let err = run_ok(&pi, &[]);
    assert_eq!(
        agent_warnings(&err),
        [format!(
            "Warning (agents): {}: not loaded: the project is not trusted. Start pi in the \
             project to trust it (or run it with --approve).",
            project_dir.display()
        )],
        "{err}"
    );

    let err = run_ok(&pi, &["--approve"]);
    assert_eq!(
        agent_warnings(&err),
        [format!(
            "Warning (agents): {}: not loaded: the name \"rev\" is taken by {}",
            user.display(),
            project.display()
        )],
        "{err}"
    );
}

#[test]
fn a_package_given_with_e_ships_agents_that_a_user_agent_overrides() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let package = pi.root.path().join("src").join("agentpack");
    write(
        &package,
        "pi-extension.toml",
        "[package]\nname = \"agentpack\"\nversion = \"0.1.0\"\nwit = \"0.3.0\"\n\n\
         [resources]\nagents = \"agents\"\n",
    );
    let shipped = write(&package.join("agents"), "scout.md", &agent("scout"));
    write(&package.join("agents"), "planner.md", &agent("planner"));
    let user = write(
        &pi.agent_dir().join("agents"),
        "my-scout.md",
        &agent("scout"),
    );

    let err = run_ok(&pi, &["-e", package.to_str().unwrap()]);
    assert_eq!(
        agent_warnings(&err),
        [format!(
            "Warning (agents): {}: not loaded: the name \"scout\" is taken by {}",
            shipped.display(),
            user.display()
        )],
        "{err}"
    );
    // Without the package: nothing to collide with.
    let err = run_ok(&pi, &[]);
    assert!(agent_warnings(&err).is_empty(), "{err}");
}

#[test]
fn an_installed_packages_agents_are_picked_by_the_settings_entrys_agents_globs() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let package = pi.root.path().join("src").join("agentpack");
    write(
        &package,
        "pi-extension.toml",
        "[package]\nname = \"agentpack\"\nversion = \"0.1.0\"\nwit = \"0.3.0\"\n\n\
         [resources]\nagents = \"agents\"\n",
    );
    let user_dir = pi.agent_dir().join("agents");
    let taken = |name: &str| {
        let shipped = write(&package.join("agents"), &format!("{name}.md"), &agent(name));
        let user = write(&user_dir, &format!("{name}.md"), &agent(name));
        format!(
            "Warning (agents): {}: not loaded: the name \"{name}\" is taken by {}",
            shipped.display(),
            user.display()
        )
    };
    let (planner, scout) = (taken("planner"), taken("scout"));
    let out = pi.run(&["ext", "install", package.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = run_ok(&pi, &[]);
    assert_eq!(agent_warnings(&err), [&planner, &scout], "{err}");

    let settings_file = pi.agent_dir().join("settings.json");
    let mut settings: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&settings_file).unwrap()).unwrap();
    let source = settings["packages"][0].clone();
    settings["packages"][0] =
        serde_json::json!({"source": source, "agents": ["agents/planner.md"]});
    pi.settings(settings.clone());
    let err = run_ok(&pi, &[]);
    assert_eq!(agent_warnings(&err), [&planner], "{err}");

    settings["packages"][0] = serde_json::json!({"source": source, "agents": []});
    pi.settings(settings);
    let err = run_ok(&pi, &[]);
    assert!(agent_warnings(&err).is_empty(), "{err}");
}
