//! Property tests of extension manifests (`pi-extension.toml`), which come with third-party
//! packages: any text and any near-valid mutation of a real manifest is accepted or refused
//! with an error naming the file, never a panic; what is accepted keeps every path inside the
//! package.

use pi_ext_host::manifest::Manifest;
use pi_fuzz::Gen;
use std::path::{Component, Path};

use crate::manifest::FULL;

const SMALL: &str = "[package]\nname = \"hello\"\nversion = \"0.1.0\"\nwit = \"0.3.0\"\n\n[[component]]\npath = \"a.wasm\"\nworld = \"provider\"\n";

const TOML_TOKENS: &[&str] = &[
    "[",
    "]",
    "[[",
    "]]",
    "=",
    "\"",
    "'",
    "'''",
    "\"\"\"",
    "\n",
    "#",
    ",",
    "{",
    "}",
    ".",
    "true",
    "1e999",
    "-0",
    "1979-05-27T07:32:00Z",
    "../",
    "/etc/passwd",
    "C:\\",
    "..",
    ".wasm",
    "tool",
    "compactor",
    "read-write",
    "*",
    "\\u0000",
    "\\",
    "package",
    "component",
    "capabilities",
];

fn check(text: &str) {
    let path = Path::new("/pkg/pi-extension.toml");
    match Manifest::parse(text, path) {
        Ok(manifest) => {
            let paths = manifest
                .components
                .iter()
                .map(|c| c.path.as_path())
                .chain(manifest.resources.skills.as_deref())
                .chain(manifest.resources.prompts.as_deref())
                .chain(manifest.resources.themes.as_deref())
                .chain(manifest.resources.agents.as_deref());
            for p in paths {
                assert!(
                    p.components()
                        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir)),
                    "{} escapes the package:\n{text}",
                    p.display()
                );
            }
        }
        Err(error) => assert!(
            error.to_string().contains("/pkg/pi-extension.toml"),
            "{error}"
        ),
    }
}

/// A manifest with one line replaced by `key = <random TOML-ish value>`.
fn with_odd_value(g: &mut Gen, seed: &str) -> String {
    let mut lines: Vec<String> = seed.lines().map(str::to_owned).collect();
    let at = g.below(lines.len() - 1);
    if let Some((key, _)) = lines[at].split_once(" = ") {
        let value = match g.below(4) {
            0 => format!("\"{}\"", g.string(8).replace(['"', '\\', '\n'], "")),
            1 => g.string_with(6, TOML_TOKENS),
            2 => format!("{}{}", "[".repeat(g.below(200)), "]".repeat(g.below(200))),
            3 => "{ a = { b = { c = 1 } } }".to_owned(),
            _ => g.u64().to_string(),
        };
        lines[at] = format!("{key} = {value}");
    }
    lines.join("\n")
}

#[test]
fn any_manifest_text_is_accepted_or_refused_cleanly() {
    pi_fuzz::run("manifest/parse", 2000, |g| {
        let seed = if g.bool() { FULL } else { SMALL };
        let text = match g.below(3) {
            0 => g.string_with(60, TOML_TOKENS),
            1 => g.mutate(seed, TOML_TOKENS),
            _ => with_odd_value(g, seed),
        };
        check(&text);
    });
}

#[test]
fn deeply_nested_values_are_refused_cleanly() {
    for depth in [1_000, 100_000] {
        check(&format!(
            "{SMALL}[resources]\nskills = {}",
            "[".repeat(depth)
        ));
        check(&format!(
            "{SMALL}[resources]\nskills = {}",
            "{ a = ".repeat(depth)
        ));
    }
}
