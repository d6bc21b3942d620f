use crate::*;
use pi_ext_host::Manifest;
use pi_ext_host::discovery::{DiscoveredExtension, ExtensionSource};

fn package(dir: &Path, wasm: &[u8]) -> DiscoveredExtension {
    std::fs::create_dir_all(dir).expect("dir");
    std::fs::write(dir.join("tool.wasm"), wasm).expect("wasm");
    let manifest = "[package]\nname = \"cached\"\nversion = \"1.2.3\"\nwit = \"0.3.0\"\n\n[[component]]\npath = \"tool.wasm\"\nworld = \"tool\"\n";
    std::fs::write(dir.join("pi-extension.toml"), manifest).expect("manifest");
    DiscoveredExtension {
        dir: dir.to_owned(),
        manifest: Manifest::load(dir).expect("manifest"),
        source: ExtensionSource::CommandLine,
    }
}

#[tokio::test]
async fn a_warm_start_neither_compiles_nor_loads_and_a_changed_component_is_recompiled() {
    let tmp = tempfile::tempdir().expect("tmp");
    let cache_dir = tmp.path().join("cache");
    let tool_bytes = std::fs::read(pi_ext_test_artifacts::TOOL).expect("tool");
    let pkg = package(&tmp.path().join("pkg"), &tool_bytes);
    let grant = Grant::new(tmp.path());

    // Cold: describing compiles once.
    let cold = ExtensionHost::new(&cache_dir).expect("host");
    let opened = cold.open(&pkg, grant.clone()).expect("open");
    assert_eq!(cold.cache().compilations(), 1);
    assert_eq!(opened.tools.len(), 4);
    assert_eq!(opened.components[0].loads(), 1);

    // Warm: descriptions come from the cache; nothing is loaded or compiled.
    let warm = ExtensionHost::new(&cache_dir).expect("host");
    let opened = warm.open(&pkg, grant.clone()).expect("open");
    assert_eq!(opened.tools.len(), 4);
    assert_eq!(opened.components[0].loads(), 0);
    // First use loads from the compiled artifact, still without compiling.
    let echo = opened
        .tools
        .iter()
        .find(|t| pi_agent::AgentTool::name(t.as_ref()) == "echo")
        .expect("echo");
    let out = run(echo, serde_json::json!({"a": 1})).await.expect("call");
    assert_eq!(text(&out), r#"{"a":1}"#);
    assert_eq!(warm.cache().compilations(), 0);

    // Changed bytes: recompiled (and described again).
    let mut changed = tool_bytes.clone();
    // A custom section appended to the component changes its content, not its behaviour.
    changed.extend_from_slice(&[0, 6, 5, b'c', b'h', b'a', b'n', b'g']);
    std::thread::sleep(std::time::Duration::from_millis(20));
    let pkg = package(&tmp.path().join("pkg"), &changed);
    let opened = warm.open(&pkg, grant).expect("open changed");
    assert_eq!(warm.cache().compilations(), 1);
    assert_eq!(opened.tools.len(), 4);
}

#[test]
fn an_unusable_artifact_is_rebuilt() {
    let tmp = tempfile::tempdir().expect("tmp");
    let host = ExtensionHost::new(tmp.path().join("cache")).expect("host");
    let path = Path::new(pi_ext_test_artifacts::RENDERER);
    host.cache().load(host.engine(), path).expect("compile");
    for entry in std::fs::read_dir(host.cache().dir()).expect("dir") {
        let p = entry.expect("entry").path();
        if p.extension().is_some_and(|e| e == "cwasm") {
            std::fs::write(&p, b"broken").expect("damage");
        }
    }
    host.cache().load(host.engine(), path).expect("rebuilt");
    assert_eq!(host.cache().compilations(), 2);
    host.cache().load(host.engine(), path).expect("cached");
    assert_eq!(host.cache().compilations(), 2);
}

#[tokio::test]
async fn an_idle_component_is_unloaded_and_mapped_again_without_compiling() {
    let tmp = tempfile::tempdir().expect("tmp");
    let host = ExtensionHost::new(tmp.path().join("cache")).expect("host");
    let tool_bytes = std::fs::read(pi_ext_test_artifacts::TOOL).expect("tool");
    let pkg = package(&tmp.path().join("pkg"), &tool_bytes);
    let mut grant = Grant::new(tmp.path());
    grant.temp = true;
    let opened = host.open(&pkg, grant).expect("open");
    let component = &opened.components[0];
    let tool = |name: &str| {
        opened
            .tools
            .iter()
            .find(|t| pi_agent::AgentTool::name(t.as_ref()) == name)
            .expect("tool")
    };
    let loads_after_describe = component.loads();
    assert!(!component.is_resident(), "released once describe returned");

    let tmpdir = text(
        &run(
            tool("probe"),
            serde_json::json!({"op": "env", "name": "TMPDIR"}),
        )
        .await
        .expect("env"),
    );
    let note = format!("{tmpdir}/note.txt");
    run(
        tool("write_file"),
        serde_json::json!({"path": note, "content": "kept"}),
    )
    .await
    .expect("write");
    assert!(!component.is_resident());
    // Mapped again for the read: the private temp dir and its file survived the unload.
    let out = run(tool("read_file"), serde_json::json!({"path": note}))
        .await
        .expect("read");
    assert_eq!(text(&out), "kept");
    assert_eq!(component.loads(), loads_after_describe + 3);
    assert_eq!(host.cache().compilations(), 1);
}

#[tokio::test]
async fn a_component_that_could_not_be_stored_stays_loaded() {
    let tmp = tempfile::tempdir().expect("tmp");
    // The cache "directory" is a file: every artifact write fails.
    let blocked = tmp.path().join("cache");
    std::fs::write(&blocked, "not a directory").expect("file");
    let host = ExtensionHost::new(&blocked).expect("host");
    let tool_bytes = std::fs::read(pi_ext_test_artifacts::TOOL).expect("tool");
    let pkg = package(&tmp.path().join("pkg"), &tool_bytes);
    let opened = host.open(&pkg, Grant::new(tmp.path())).expect("open");
    let echo = opened
        .tools
        .iter()
        .find(|t| pi_agent::AgentTool::name(t.as_ref()) == "echo")
        .expect("echo");
    for n in 0..3 {
        let out = run(echo, serde_json::json!({"n": n})).await.expect("call");
        assert_eq!(text(&out), format!(r#"{{"n":{n}}}"#));
    }
    assert!(opened.components[0].is_resident());
    assert_eq!(opened.components[0].loads(), 1);
    assert_eq!(host.cache().compilations(), 1);
}

#[tokio::test]
async fn a_warm_load_takes_the_artifact_named_by_the_record_while_the_file_is_unchanged() {
    let tmp = tempfile::tempdir().expect("tmp");
    let cache_dir = tmp.path().join("cache");
    let tool_bytes = std::fs::read(pi_ext_test_artifacts::TOOL).expect("tool");
    let pkg = package(&tmp.path().join("pkg"), &tool_bytes);
    let wasm = pkg.dir.join("tool.wasm");
    let grant = Grant::new(tmp.path());
    ExtensionHost::new(&cache_dir)
        .expect("host")
        .open(&pkg, grant.clone())
        .expect("open");

    // Same size and mtime, other bytes: the record still names the artifact, so the load
    // never reads the file (reading it would find no component).
    let mtime = std::fs::metadata(&wasm)
        .expect("meta")
        .modified()
        .expect("mtime");
    let blank = || {
        std::fs::write(&wasm, vec![0u8; tool_bytes.len()]).expect("blank");
        let file = std::fs::File::options()
            .write(true)
            .open(&wasm)
            .expect("open");
        file.set_modified(mtime).expect("mtime");
    };
    blank();
    let warm = ExtensionHost::new(&cache_dir).expect("host");
    let opened = warm.open(&pkg, grant.clone()).expect("open");
    assert!(opened.components[0].get().is_ok());
    assert_eq!(opened.components[0].loads(), 1);

    // Another mtime: the record no longer applies and the file is read (and refused).
    let later = mtime + std::time::Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(&wasm)
        .expect("open")
        .set_modified(later)
        .expect("mtime");
    let changed = ExtensionHost::new(&cache_dir).expect("host");
    let component = changed.component(
        Arc::new(ExtensionId {
            name: "cached".into(),
            version: "1.2.3".into(),
        }),
        wasm.clone(),
        World::Tool,
        WitVersion::LATEST,
        Arc::new(grant),
    );
    assert!(component.get().is_err());
}
