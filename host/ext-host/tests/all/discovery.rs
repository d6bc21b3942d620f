use pi_ext_host::{ExtensionSource, SearchPaths, discover};
use std::path::Path;

fn package(dir: &Path, name: &str, version: &str) {
    std::fs::create_dir_all(dir).expect("dir");
    let text = format!("[package]\nname = \"{name}\"\nversion = \"{version}\"\nwit = \"0.3.0\"\n");
    std::fs::write(dir.join("pi-extension.toml"), text).expect("manifest");
}

#[test]
fn packages_are_found_in_all_sources_and_later_ones_win() {
    let tmp = tempfile::tempdir().expect("tmp");
    let global = tmp.path().join("global");
    let project = tmp.path().join("project");
    package(&global.join("a"), "alpha", "1.0.0");
    package(&global.join("b"), "beta", "1.0.0");
    package(&global.join("off"), "disabled-one", "1.0.0");
    package(&project.join("b2"), "beta", "2.0.0");
    std::fs::create_dir_all(project.join("not-a-package")).expect("dir");
    package(&project.join("broken"), "Broken!", "1.0.0");
    let cli = tmp.path().join("cli-pkg");
    package(&cli, "gamma", "0.0.1");

    let (found, errors) = discover(&SearchPaths {
        global: Some(global),
        project: Some(project),
        command_line: vec![cli],
        disabled: vec!["disabled-one".into()],
    });
    let summary: Vec<(String, String, ExtensionSource)> = found
        .iter()
        .map(|e| {
            (
                e.manifest.name.clone(),
                e.manifest.version.clone(),
                e.source,
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (
                "alpha".to_owned(),
                "1.0.0".to_owned(),
                ExtensionSource::Global
            ),
            (
                "beta".to_owned(),
                "2.0.0".to_owned(),
                ExtensionSource::Project
            ),
            (
                "gamma".to_owned(),
                "0.0.1".to_owned(),
                ExtensionSource::CommandLine
            ),
        ]
    );
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].to_string().contains("package.name"),
        "{}",
        errors[0]
    );
}

#[test]
fn an_untrusted_project_is_not_searched() {
    let (found, errors) = discover(&SearchPaths::default());
    assert!(found.is_empty() && errors.is_empty());
}

#[test]
fn a_command_line_path_without_a_manifest_is_an_error() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (found, errors) = discover(&SearchPaths {
        command_line: vec![tmp.path().to_owned()],
        ..SearchPaths::default()
    });
    assert!(found.is_empty());
    assert_eq!(errors.len(), 1);
    let message = errors[0].to_string();
    assert!(
        message.starts_with(&format!(
            "cannot read {}",
            tmp.path().join("pi-extension.toml").display()
        )),
        "{message}"
    );
}
