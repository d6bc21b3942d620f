//! Links planted in a project (by anything that can write it: an extension with a write grant,
//! a cloned repository) do not make pi read files from outside into the system prompt.

use pi_session::context_files::load_context_files;
use pi_session::prompt_templates::{PromptTemplates, TemplateSearch};
use pi_session::settings::SettingsManager;
use pi_session::skills::{SkillSearch, discover};
use std::os::unix::fs::symlink;
use std::path::Path;

struct Project {
    _tmp: tempfile::TempDir,
    agent: std::path::PathBuf,
    proj: std::path::PathBuf,
}

fn project() -> Project {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let (agent, proj) = (root.join("agent"), root.join("proj"));
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::create_dir_all(proj.join(".pi/prompts")).unwrap();
    std::fs::create_dir_all(proj.join(".pi/skills/ok")).unwrap();
    std::fs::create_dir_all(root.join("outside/skill")).unwrap();
    std::fs::write(root.join("outside/secret.txt"), "TOP-SECRET").unwrap();
    std::fs::write(
        root.join("outside/skill/SKILL.md"),
        "---\nname: stolen\ndescription: TOP-SECRET skill\n---\nx\n",
    )
    .unwrap();
    std::fs::write(
        root.join("outside/settings.json"),
        r#"{"theme": "TOP-SECRET"}"#,
    )
    .unwrap();
    Project {
        _tmp: tmp,
        agent,
        proj,
    }
}

fn link(target: &str, at: &Path) {
    symlink(target, at).unwrap();
}

#[test]
fn a_project_rule_file_linking_out_of_its_directory_is_not_loaded() {
    let p = project();
    link("../outside/secret.txt", &p.proj.join("AGENTS.md"));
    let files = load_context_files(&p.agent, &p.proj);
    assert!(
        files.iter().all(|f| !f.content.contains("TOP-SECRET")),
        "{files:?}"
    );
    // A link inside the directory is fine, and so is one in the user's agent directory.
    std::fs::remove_file(p.proj.join("AGENTS.md")).unwrap();
    std::fs::write(p.proj.join("RULES.md"), "Project rules.").unwrap();
    link("RULES.md", &p.proj.join("AGENTS.md"));
    link("../outside/secret.txt", &p.agent.join("AGENTS.md"));
    let files = load_context_files(&p.agent, &p.proj);
    let contents: Vec<&str> = files.iter().map(|f| f.content.as_str()).collect();
    assert_eq!(contents, ["TOP-SECRET", "Project rules."]);
}

#[test]
fn project_skills_templates_and_settings_linking_out_are_refused() {
    let p = project();
    link("../../../outside/skill", &p.proj.join(".pi/skills/stolen"));
    std::fs::write(
        p.proj.join(".pi/skills/ok/SKILL.md"),
        "---\nname: ok\ndescription: Fine.\n---\nx\n",
    )
    .unwrap();
    let skills = discover(&SkillSearch {
        agent_dir: &p.agent,
        home_dir: None,
        cwd: &p.proj,
        project_trusted: true,
        no_skills: false,
        settings_paths: &[],
        package_dirs: &[],
        cli_paths: &[],
    });
    let names: Vec<&str> = skills.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["ok"]);
    assert!(
        skills
            .diagnostics
            .iter()
            .any(|d| d.message.contains("link out of the project")),
        "{:?}",
        skills.diagnostics
    );

    link(
        "../../../outside/secret.txt",
        &p.proj.join(".pi/prompts/leak.md"),
    );
    let templates = PromptTemplates::discover(&TemplateSearch {
        agent_dir: &p.agent,
        cwd: &p.proj,
        project_trusted: true,
        no_templates: false,
        extra_paths: &[],
        cli_paths: &[],
    });
    assert!(templates.get("leak").is_none());
    assert!(
        templates.diagnostics[0]
            .message
            .contains("link out of the project"),
        "{:?}",
        templates.diagnostics
    );

    link(
        "../../outside/settings.json",
        &p.proj.join(".pi/settings.json"),
    );
    let settings = SettingsManager::load(&p.agent, &p.proj, true);
    assert!(settings.theme.is_none());
    let errors: Vec<String> = settings.errors().iter().map(ToString::to_string).collect();
    assert!(
        errors[0].contains("is a link out of the project's .pi directory"),
        "{errors:?}"
    );
}
