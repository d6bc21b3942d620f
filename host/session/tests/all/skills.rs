//! Skills: the upstream fixture cases, discovery order, collisions, dedupe, `/skill:` expansion.

// Test helpers may panic: a failed setup step is a failed test.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use pi_session::skills::{
    DiagnosticKind, SkillDiagnostic, SkillRegistry, SkillSearch, SkillSource, discover,
    format_skills_for_prompt, scan,
};

/// A file or folder of pi's fixtures, vendored at `<repo>/tests/fixtures/pi`; panics if missing.
pub fn fixture(name: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/pi")
        .join(name);
    assert!(path.exists(), "missing fixture {}", path.display());
    path
}

fn scan_fixture(case: &str) -> (Vec<String>, Vec<SkillDiagnostic>) {
    let found = scan(&fixture("skills").join(case), SkillSource::User, true);
    (
        found.skills.iter().map(|s| s.name.clone()).collect(),
        found.diagnostics,
    )
}

fn has_warning(diagnostics: &[SkillDiagnostic], text: &str) -> bool {
    diagnostics
        .iter()
        .any(|d| d.kind == DiagnosticKind::Warning && d.message.contains(text))
}

/// Each case: fixture dir, names registered, a warning text expected (`None`: no diagnostics).
const CASES: &[(&str, &[&str], Option<&str>)] = &[
    ("valid-skill", &["valid-skill"], None),
    ("unknown-field", &["unknown-field"], None),
    ("multiline-description", &["multiline-description"], None),
    ("nested", &["child-skill"], None),
    ("root-skill-preferred", &["root-skill-preferred"], None),
    (
        "disable-model-invocation",
        &["disable-model-invocation"],
        None,
    ),
    (
        "name-mismatch",
        &["different-name"],
        Some("does not match parent directory \"name-mismatch\""),
    ),
    (
        "invalid-name-chars",
        &["Invalid_Name"],
        Some("name contains invalid characters"),
    ),
    (
        "long-name",
        &[
            "this-is-a-very-long-skill-name-that-exceeds-the-sixty-four-character-limit-set-by-the-standard",
        ],
        Some("name exceeds 64 characters (94)"),
    ),
    (
        "consecutive-hyphens",
        &["bad--name"],
        Some("consecutive hyphens"),
    ),
    ("missing-description", &[], Some("description is required")),
    ("no-frontmatter", &[], Some("description is required")),
    ("invalid-yaml", &[], Some("at line 3")),
];

#[test]
fn every_fixture_case_registers_or_warns_as_expected() {
    let dirs: Vec<String> = std::fs::read_dir(fixture("skills"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        dirs.len(),
        CASES.len(),
        "a fixture case is not covered: {dirs:?}"
    );
    for (case, names, warning) in CASES {
        let (found, diagnostics) = scan_fixture(case);
        assert_eq!(&found, names, "{case}: registered names");
        match warning {
            None => assert!(diagnostics.is_empty(), "{case}: unexpected {diagnostics:?}"),
            Some(text) => assert!(has_warning(&diagnostics, text), "{case}: {diagnostics:?}"),
        }
    }
}

#[test]
fn fixture_details() {
    let found = scan(
        &fixture("skills/multiline-description"),
        SkillSource::User,
        true,
    );
    assert_eq!(
        found.skills[0].description,
        "This is a multiline description.\nIt spans multiple lines.\nAnd should be normalized.\n"
    );
    let found = scan(
        &fixture("skills/root-skill-preferred"),
        SkillSource::User,
        true,
    );
    assert_eq!(found.skills[0].description, "Root skill should win.");
    let found = scan(
        &fixture("skills/disable-model-invocation"),
        SkillSource::User,
        true,
    );
    assert!(found.skills[0].disable_model_invocation);
    let found = scan(&fixture("skills/valid-skill"), SkillSource::User, true);
    assert!(!found.skills[0].disable_model_invocation);
    assert_eq!(found.skills[0].base_dir, fixture("skills/valid-skill"));
}

#[test]
fn whole_fixture_tree_loads_every_skill_with_a_description() {
    let found = scan(&fixture("skills"), SkillSource::User, true);
    let mut names: Vec<&str> = found.skills.iter().map(|s| s.name.as_str()).collect();
    names.sort();
    assert_eq!(names.len(), 10, "{names:?}");
    assert!(!names.contains(&"nested-child"));
    assert!(!names.contains(&"invalid-yaml"));
}

fn search<'a>(root: &'a Path, cwd: &'a Path) -> SkillSearch<'a> {
    SkillSearch {
        agent_dir: root,
        home_dir: None,
        cwd,
        project_trusted: false,
        no_skills: false,
        settings_paths: &[],
        package_dirs: &[],
        cli_paths: &[],
    }
}

#[test]
fn name_collision_keeps_the_first_and_records_the_loser() {
    let tmp = tempfile::tempdir().unwrap();
    let first = fixture("skills-collision/first");
    let second = fixture("skills-collision/second");
    let paths = [first.clone(), second.clone()];
    let registry = discover(&SkillSearch {
        settings_paths: &paths,
        ..search(tmp.path(), tmp.path())
    });
    assert_eq!(registry.skills.len(), 1);
    assert_eq!(registry.skills[0].description, "First calendar skill.");
    assert_eq!(registry.diagnostics.len(), 1);
    let d = &registry.diagnostics[0];
    assert_eq!(d.message, "name \"calendar\" collision");
    assert_eq!(
        d.kind,
        DiagnosticKind::Collision {
            name: "calendar".into(),
            winner_path: first.join("calendar/SKILL.md"),
            loser_path: second.join("calendar/SKILL.md"),
        }
    );
}

#[test]
fn hidden_skill_is_not_listed_but_can_be_invoked() {
    let registry = SkillRegistry {
        skills: scan(&fixture("skills"), SkillSource::User, true).skills,
        diagnostics: Vec::new(),
    };
    let listed = format_skills_for_prompt(&registry.skills);
    assert!(listed.contains("<name>valid-skill</name>"));
    assert!(!listed.contains("disable-model-invocation"));
    assert!(
        registry
            .visible_to_model()
            .all(|s| s.name != "disable-model-invocation")
    );

    let skill = registry.get("disable-model-invocation").unwrap();
    let expanded = registry
        .expand_command("/skill:disable-model-invocation now please")
        .unwrap();
    let expected = format!(
        "<skill name=\"disable-model-invocation\" location=\"{}\">\nReferences are relative to {}.\n\n\
         # Manual Only Skill\n\nThis skill can only be invoked via /skill:disable-model-invocation.\n</skill>\n\nnow please",
        skill.file_path.display(),
        skill.base_dir.display()
    );
    assert_eq!(expanded, expected);
}

#[test]
fn skill_command_edge_cases() {
    let registry = SkillRegistry {
        skills: scan(&fixture("skills/valid-skill"), SkillSource::User, true).skills,
        diagnostics: Vec::new(),
    };
    let plain = registry.expand_command("/skill:valid-skill").unwrap();
    assert!(
        plain.ends_with("follows the Agent Skills standard.\n</skill>"),
        "{plain}"
    );
    assert!(!plain.contains("description:"));
    assert_eq!(
        registry.expand_command("/skill:nope x").unwrap(),
        "/skill:nope x"
    );
    assert_eq!(registry.expand_command("hello").unwrap(), "hello");
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn skill_md(name: &str) -> String {
    format!("---\nname: {name}\ndescription: The {name} skill.\n---\nBody of {name}.\n")
}

#[cfg(unix)]
#[test]
fn same_file_via_symlink_or_dotdot_is_registered_once() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    write(&root.join("lib/alpha/SKILL.md"), &skill_md("alpha"));
    std::os::unix::fs::symlink(root.join("lib"), root.join("linked")).unwrap();
    let cli = [
        "lib".to_string(),
        "linked".to_string(),
        "lib/../lib/alpha/SKILL.md".to_string(),
    ];
    let registry = discover(&SkillSearch {
        cli_paths: &cli,
        ..search(&root.join("agent"), &root)
    });
    assert_eq!(registry.skills.len(), 1);
    assert_eq!(registry.skills[0].source, SkillSource::Cli);
    assert!(
        registry.diagnostics.is_empty(),
        "{:?}",
        registry.diagnostics
    );
}

#[test]
fn discovery_order_trust_and_root_files() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let (agent, home, repo) = (root.join("agent"), root.join("home"), root.join("repo"));
    let cwd = repo.join("pkg");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    write(&agent.join("skills/shared/SKILL.md"), &skill_md("shared"));
    write(
        &agent.join("skills/loose.md"),
        "---\ndescription: A loose rule file.\n---\n",
    );
    write(
        &home.join(".agents/skills/from-home/SKILL.md"),
        &skill_md("from-home"),
    );
    write(
        &home.join(".agents/skills/ignored-root.md"),
        "---\ndescription: x\n---\n",
    );
    write(&cwd.join(".pi/skills/shared/SKILL.md"), &skill_md("shared"));
    write(&cwd.join(".pi/skills/proj/SKILL.md"), &skill_md("proj"));
    write(&repo.join(".agents/skills/up/SKILL.md"), &skill_md("up"));
    write(
        &root.join(".agents/skills/above-repo/SKILL.md"),
        &skill_md("above-repo"),
    );
    write(&cwd.join(".pi/skills/.gitignore"), "drafts/\n");
    write(
        &cwd.join(".pi/skills/drafts/draft/SKILL.md"),
        &skill_md("draft"),
    );
    write(
        &cwd.join(".pi/skills/node_modules/dep/SKILL.md"),
        &skill_md("dep"),
    );

    let base = SkillSearch {
        home_dir: Some(&home),
        ..search(&agent, &cwd)
    };
    let names = |r: &SkillRegistry| r.skills.iter().map(|s| s.name.clone()).collect::<Vec<_>>();

    let untrusted = discover(&base);
    assert_eq!(names(&untrusted), ["loose", "shared", "from-home"]);

    let trusted = discover(&SkillSearch {
        project_trusted: true,
        ..base
    });
    assert_eq!(
        names(&trusted),
        ["loose", "shared", "from-home", "proj", "up"]
    );
    assert_eq!(trusted.get("shared").unwrap().source, SkillSource::User);
    assert_eq!(trusted.diagnostics.len(), 1, "{:?}", trusted.diagnostics);

    let cli = [
        "~/.agents/skills/from-home".to_string(),
        "missing".to_string(),
    ];
    let only_cli = discover(&SkillSearch {
        no_skills: true,
        cli_paths: &cli,
        ..base
    });
    assert_eq!(names(&only_cli), ["from-home"]);
    assert_eq!(only_cli.diagnostics[0].message, "skill path does not exist");
}
