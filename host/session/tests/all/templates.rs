//! Prompt templates: argument parsing, substitution, discovery and `/name` expansion.

// Test helpers may panic: a failed setup step is a failed test.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use pi_session::prompt_templates::{
    PromptTemplates, TemplateSearch, TemplateSource, parse_args, substitute,
};

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn argument_parsing_is_shell_like_without_escapes() {
    assert_eq!(parse_args("  a  b\tc "), args(&["a", "b", "c"]));
    assert_eq!(
        parse_args(r#"one "two words" 'three more'"#),
        args(&["one", "two words", "three more"])
    );
    assert_eq!(parse_args(r#"pre"fix x"post"#), args(&["prefix xpost"]));
    assert_eq!(parse_args(r#"'it"s' "" end"#), args(&["it\"s", "end"]));
    assert_eq!(parse_args(r#"a\ b"#), args(&["a\\", "b"]));
    assert_eq!(
        parse_args(r#""unterminated here"#),
        args(&["unterminated here"])
    );
    assert!(parse_args("   ").is_empty());
}

#[test]
fn substitution_cases() {
    let a = args(&["alpha", "beta gamma", "delta"]);
    let cases: &[(&str, &str)] = &[
        ("$1|$2|$3|$4", "alpha|beta gamma|delta|"),
        ("all: $@", "all: alpha beta gamma delta"),
        ("all: $ARGUMENTS.", "all: alpha beta gamma delta."),
        ("${1:-x} ${4:-fallback}", "alpha fallback"),
        ("${@:2}", "beta gamma delta"),
        ("${@:2:1}", "beta gamma"),
        ("${@:1:2}", "alpha beta gamma"),
        ("${@:9}", ""),
        ("${@:-none}", "alpha beta gamma delta"),
        ("${ARGUMENTS:-none}", "alpha beta gamma delta"),
        (
            "cost $ 5 and $x and ${unknown}",
            "cost $ 5 and $x and ${unknown}",
        ),
        ("$10 $0", " "),
        ("$$1", "$alpha"),
    ];
    for (template, expected) in cases {
        assert_eq!(substitute(template, &a), *expected, "template {template:?}");
    }
}

#[test]
fn defaults_apply_when_arguments_are_missing() {
    let none: Vec<String> = Vec::new();
    assert_eq!(
        substitute("${@:-nothing} ${ARGUMENTS:-none} ${1:-first}", &none),
        "nothing none first"
    );
    assert_eq!(substitute("[$@][$ARGUMENTS][$1]", &none), "[][][]");
}

#[test]
fn substitution_is_a_single_pass() {
    let a = args(&["$2", "second"]);
    assert_eq!(substitute("$1 and $@", &a), "$2 and $2 second");
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn discovery_descriptions_and_expansion() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let (agent, cwd) = (root.join("agent"), root.join("proj"));
    write(
        &agent.join("prompts/review.md"),
        "---\ndescription: Review a change\nargument-hint: <file> [focus]\n---\nReview $1, focusing on ${2:-everything}.\n",
    );
    let long = "x".repeat(70);
    write(
        &agent.join("prompts/long.md"),
        &format!("\n\n  {long}\nmore\n"),
    );
    write(
        &agent.join("prompts/nested/deep.md"),
        "not loaded: not recursive\n",
    );
    write(&cwd.join(".pi/prompts/review.md"), "project copy loses\n");
    write(&cwd.join(".pi/prompts/fix.md"), "Fix: $ARGUMENTS\n");
    write(&root.join("cli.md"), "From the command line\n");

    let cli = ["../cli.md".to_string(), "missing.md".to_string()];
    let search = TemplateSearch {
        agent_dir: &agent,
        cwd: &cwd,
        project_trusted: true,
        no_templates: false,
        extra_paths: &[],
        cli_paths: &cli,
    };
    let templates = PromptTemplates::discover(&search);
    let names: Vec<&str> = templates
        .templates
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(names, ["long", "review", "fix", "cli"]);

    let review = templates.get("review").unwrap();
    assert_eq!(review.description, "Review a change");
    assert_eq!(review.argument_hint.as_deref(), Some("<file> [focus]"));
    assert_eq!(review.source, TemplateSource::User);
    assert_eq!(
        templates.get("long").unwrap().description,
        format!("{}...", "x".repeat(60))
    );
    assert_eq!(
        templates.get("cli").unwrap().description,
        "From the command line"
    );
    assert_eq!(
        templates.diagnostics.len(),
        2,
        "{:?}",
        templates.diagnostics
    );
    assert!(templates.diagnostics[0].message.contains("collision"));
    assert_eq!(
        templates.diagnostics[1].message,
        "prompt template path does not exist"
    );

    assert_eq!(
        templates.expand("/review src/main.rs"),
        "Review src/main.rs, focusing on everything.\n"
    );
    assert_eq!(
        templates.expand(r#"/review a.rs "error handling""#),
        "Review a.rs, focusing on error handling.\n"
    );
    assert_eq!(templates.expand("/fix the   build"), "Fix: the build\n");
    assert_eq!(templates.expand("/unknown x"), "/unknown x");
    assert_eq!(templates.expand("no slash"), "no slash");

    let untrusted = PromptTemplates::discover(&TemplateSearch {
        project_trusted: false,
        cli_paths: &[],
        ..search
    });
    assert!(untrusted.get("fix").is_none());
}
