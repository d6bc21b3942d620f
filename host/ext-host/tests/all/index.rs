//! The start-up index: a warm start parses no manifest and reads no description record; a
//! changed, removed or broken package and a corrupt index are handled as if there were none.

use crate::*;
use pi_ext_host::{DiscoveredExtension, SearchPaths};

struct Setup {
    tmp: tempfile::TempDir,
    global: PathBuf,
    cache: PathBuf,
}

fn manifest_text(name: &str, version: &str) -> String {
    format!(
        "[package]\nname = \"{name}\"\nversion = \"{version}\"\nwit = \"0.3.0\"\n\n[[component]]\npath = \"tool.wasm\"\nworld = \"tool\"\n"
    )
}

/// Three packages serving the same tool component (same bytes: compiled once).
fn setup() -> Setup {
    let tmp = tempfile::tempdir().expect("tmp");
    let global = tmp.path().join("extensions");
    let wasm = std::fs::read(pi_ext_test_artifacts::TOOL).expect("tool");
    for name in ["alpha", "beta", "gamma"] {
        let dir = global.join(name);
        std::fs::create_dir_all(&dir).expect("dir");
        std::fs::write(dir.join("tool.wasm"), &wasm).expect("wasm");
        std::fs::write(dir.join("pi-extension.toml"), manifest_text(name, "1.0.0"))
            .expect("manifest");
    }
    let cache = tmp.path().join("cache");
    Setup { tmp, global, cache }
}

impl Setup {
    fn paths(&self) -> SearchPaths {
        SearchPaths {
            global: Some(self.global.clone()),
            ..SearchPaths::default()
        }
    }

    /// A fresh host (as in a new process): discovers and opens everything.
    fn start(&self) -> (ExtensionHost, Vec<DiscoveredExtension>, usize) {
        let host = ExtensionHost::new(&self.cache).expect("host");
        let (found, errors) = host.discover(&self.paths());
        assert!(errors.is_empty(), "{errors:?}");
        let tools = found
            .iter()
            .map(|p| {
                let opened = host.open(p, Grant::new(self.tmp.path())).expect("open");
                opened.tools.len()
            })
            .sum();
        (host, found, tools)
    }

    fn index_files(&self) -> Vec<PathBuf> {
        std::fs::read_dir(&self.cache)
            .expect("cache dir")
            .map(|e| e.expect("entry").path())
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("startup-"))
            })
            .collect()
    }

    fn index_text(&self) -> String {
        let files = self.index_files();
        assert_eq!(files.len(), 1, "{files:?}");
        std::fs::read_to_string(&files[0]).expect("index")
    }
}

fn names(found: &[DiscoveredExtension]) -> Vec<String> {
    found.iter().map(|p| p.manifest.name.clone()).collect()
}

#[test]
fn a_warm_start_parses_no_manifest_and_reads_no_description_record() {
    let s = setup();
    let (cold, found, tools) = s.start();
    assert_eq!(names(&found), ["alpha", "beta", "gamma"]);
    assert_eq!(cold.cache().manifest_parses(), 3);
    assert_eq!(tools, 12);

    // Without the per-component records, descriptions can only come from the index.
    std::fs::remove_dir_all(s.cache.join("describe")).expect("remove records");
    let (warm, warm_found, tools) = s.start();
    assert_eq!(warm.cache().manifest_parses(), 0);
    assert_eq!(warm.cache().compilations(), 0);
    assert_eq!(tools, 12);
    let plain: Vec<_> = found.iter().map(|p| &p.manifest).collect();
    let indexed: Vec<_> = warm_found.iter().map(|p| &p.manifest).collect();
    assert_eq!(plain, indexed);
    assert_eq!(warm_found, pi_ext_host::discover(&s.paths()).0);
}

#[test]
fn a_changed_manifest_is_read_again_and_the_index_updated() {
    let s = setup();
    s.start();
    std::fs::write(
        s.global.join("beta/pi-extension.toml"),
        manifest_text("beta", "10.0.0"),
    )
    .expect("manifest");

    let (host, found, tools) = s.start();
    assert_eq!(host.cache().manifest_parses(), 1);
    assert_eq!(found[1].manifest.version, "10.0.0");
    assert_eq!(tools, 12);

    let (host, found, _) = s.start();
    assert_eq!(host.cache().manifest_parses(), 0);
    assert_eq!(found[1].manifest.version, "10.0.0");
}

#[test]
fn a_manifest_broken_since_the_last_start_is_an_error() {
    let s = setup();
    s.start();
    std::fs::write(s.global.join("gamma/pi-extension.toml"), "[package]\n").expect("break");
    let host = ExtensionHost::new(&s.cache).expect("host");
    let (found, errors) = host.discover(&s.paths());
    assert_eq!(names(&found), ["alpha", "beta"]);
    assert_eq!(errors.len(), 1);
    assert!(errors[0].to_string().contains("gamma"), "{}", errors[0]);
}

#[test]
fn a_removed_package_disappears_from_discovery_and_index() {
    let s = setup();
    s.start();
    let gamma = s.global.join("gamma");
    assert!(s.index_text().contains(&*gamma.to_string_lossy()));
    std::fs::remove_dir_all(&gamma).expect("remove");

    let (host, found, tools) = s.start();
    assert_eq!(names(&found), ["alpha", "beta"]);
    assert_eq!(host.cache().manifest_parses(), 0);
    assert_eq!(tools, 8);
    assert!(!s.index_text().contains(&*gamma.to_string_lossy()));
}

#[test]
fn a_corrupt_index_is_ignored_and_rebuilt() {
    let s = setup();
    s.start();
    let file = s.index_files().remove(0);
    std::fs::write(&file, b"{\"format\": 1, \"packages\": [tru").expect("corrupt");

    let (host, found, tools) = s.start();
    assert_eq!(names(&found), ["alpha", "beta", "gamma"]);
    assert_eq!(host.cache().manifest_parses(), 3);
    assert_eq!(tools, 12);

    let (host, _, tools) = s.start();
    assert_eq!(host.cache().manifest_parses(), 0);
    assert_eq!(tools, 12);
}

#[test]
fn each_set_of_search_paths_has_its_own_index() {
    let s = setup();
    s.start();
    let host = ExtensionHost::new(&s.cache).expect("host");
    let (found, _) = host.discover(&SearchPaths {
        command_line: vec![s.global.join("alpha")],
        ..SearchPaths::default()
    });
    assert_eq!(names(&found), ["alpha"]);
    assert_eq!(s.index_files().len(), 2);
    // The first set's index is untouched by the second run.
    let (host, _, _) = s.start();
    assert_eq!(host.cache().manifest_parses(), 0);
}
