//! Property tests of front matter (skills and prompt templates): any text and any near-valid
//! mutation of the skill fixtures parses or fails with a positioned error, never a panic; and
//! flat mappings of plain or quoted scalars read back as written.

use pi_fuzz::Gen;
use pi_session::frontmatter::{FrontmatterValue, parse_document, split};
use std::path::Path;

const YAML_TOKENS: &[&str] = &[
    "---\n",
    "\n",
    ": ",
    ":",
    "- ",
    "  ",
    "|",
    "|-",
    "|+",
    ">",
    ">-",
    "\"",
    "'",
    "''",
    "\\\"",
    "#",
    "[",
    "]",
    "{",
    "}",
    "~",
    "null",
    "true",
    "false",
    "name",
    "description",
    "\t",
    "\r\n",
];

fn skill_files() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/pi/skills");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let skill = entry.unwrap().path().join("SKILL.md");
        if let Ok(text) = std::fs::read_to_string(skill) {
            out.push(text);
        }
    }
    assert!(!out.is_empty());
    out
}

#[test]
fn any_document_parses_or_fails_with_a_position() {
    let seeds = skill_files();
    pi_fuzz::run("frontmatter/documents", 3000, |g| {
        let text = match g.below(2) {
            0 => format!("---\n{}", g.string_with(40, YAML_TOKENS)),
            1 => g.string_with(40, YAML_TOKENS),
            _ => {
                let seed = g.pick(&seeds).clone();
                g.mutate(&seed, YAML_TOKENS)
            }
        };
        match parse_document(&text) {
            Ok(document) => assert_eq!(document.body, split(&text).1),
            Err(error) => assert!(error.line >= 2 && error.column >= 1, "{error}"),
        }
    });
}

/// A scalar that needs no quoting, quoted or not.
fn scalar(g: &mut Gen) -> (String, String) {
    let words = [
        "alpha",
        "beta two",
        "x-1",
        "path/to/file.md",
        "ünïcode",
        "a.b",
    ];
    let value = (*g.pick(&words)).to_owned();
    let written = match g.below(2) {
        0 => value.clone(),
        1 => format!("\"{value}\""),
        _ => format!("'{value}'"),
    };
    (value, written)
}

#[test]
fn flat_mappings_read_back() {
    pi_fuzz::run("frontmatter/round-trip", 1000, |g| {
        let mut yaml = String::from("---\n");
        let mut expected = Vec::new();
        for i in 0..g.below(5) {
            let (value, written) = scalar(g);
            yaml.push_str(&format!("key{i}: {written}\n"));
            expected.push((format!("key{i}"), FrontmatterValue::String(value)));
        }
        yaml.push_str("---\nbody\n");
        let document = parse_document(&yaml).unwrap();
        assert_eq!(document.frontmatter.fields, expected, "{yaml}");
        assert_eq!(document.body, "body\n");
    });
}
