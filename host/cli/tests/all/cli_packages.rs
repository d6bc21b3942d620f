//! `pi ext` end to end through the `pi` binary: installs from a local folder and from a real
//! `git daemon` on 127.0.0.1, consent refused without a terminal, grants held to what was
//! approved, tampering refused, update and remove; the installed tool is then offered to the
//! mock LLM in a print-mode run.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_extension_sources::{GitDaemon, git, git_output, package, tagged_repo};
use super::cli_extensions::{extend_manifest, offered};
use super::cli_support::*;
use pi_mock_llm::{Api, Turn};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

/// A print-mode run; returns its stderr and whether `echo` (the package's tool) was offered.
fn echo_offered(pi: &PiEnv) -> (bool, String) {
    pi.mock.push(Turn::text("ok"));
    let out = pi.run(&["--no-session", "-p", "hi"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let last = pi.mock.requests().len() - 1;
    (offered(pi, last).contains(&"echo".to_owned()), stderr(&out))
}

fn ext(pi: &PiEnv, args: &[&str]) -> Output {
    let mut all = vec!["ext"];
    all.extend_from_slice(args);
    pi.run(&all)
}

fn settings(pi: &PiEnv) -> Value {
    let path = pi.agent_dir().join("settings.json");
    std::fs::read_to_string(path)
        .map(|t| serde_json::from_str(&t).unwrap())
        .unwrap_or(Value::Null)
}

fn ask_for(dir: &Path, capabilities: &str) {
    let manifest = dir.join("pi-extension.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let base = text.split("\n[capabilities]").next().unwrap().to_owned();
    std::fs::write(
        &manifest,
        format!("{base}\n[capabilities]\n{capabilities}\n"),
    )
    .unwrap();
}

#[test]
fn a_local_folder_is_approved_recorded_held_to_its_grant_and_removed() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let dir = package(&pi.root.path().join("src"), "localext", "0.1.0");
    ask_for(&dir, "filesystem = \"read\"");
    let path = dir.to_str().unwrap();

    // No terminal to ask on and no --yes: refused with exit 2, nothing written.
    let out = ext(&pi, &["install", path]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("read files in the working directory"), "{err}");
    assert!(err.contains("--yes"), "{err}");
    assert_eq!(settings(&pi), Value::Null);
    assert!(!pi.agent_dir().join("packages.lock.json").exists());
    // A --grant that does not cover it is refused the same way; one that does, installs.
    let out = ext(&pi, &["install", path, "--grant", "temp"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = ext(&pi, &["install", path, "--grant", "fs:read"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("Installed localext 0.1.0 (user scope)"),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("granted: read files in the working directory"));

    // Recorded relative to the settings file, as pi does; listed; loaded.
    let recorded = settings(&pi)["packages"][0].as_str().unwrap().to_owned();
    assert!(recorded.starts_with("../"), "{recorded}");
    let out = ext(&pi, &["list", "--json"]);
    let listed: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(listed[0]["name"], "localext");
    assert_eq!(listed[0]["scope"], "user");
    let out = pi.run(&["list"]);
    assert!(
        stdout(&out).contains("User packages:\n  localext 0.1.0"),
        "{}",
        stdout(&out)
    );
    let (offered, err) = echo_offered(&pi);
    assert!(offered, "{err}");

    // The author edits the manifest to ask for more: not loaded until approved again.
    ask_for(&dir, "filesystem = \"read\"\nprocess = true");
    let (offered, err) = echo_offered(&pi);
    assert!(!offered);
    assert!(
        err.contains("now asks for more than was approved (run processes)"),
        "{err}"
    );
    let out = ext(&pi, &["update", "localext"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = ext(&pi, &["update", "localext", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("Updated localext"),
        "{}",
        stdout(&out)
    );
    let (offered, err) = echo_offered(&pi);
    assert!(offered, "{err}");
    let out = ext(&pi, &["info", "localext"]);
    let info = stdout(&out);
    assert!(info.contains("tool.wasm (tool)"), "{info}");
    assert!(info.contains("granted: read files in the working directory; run processes"));

    // `pi remove` (pi 1.x's spelling): out of settings and the lock; the folder stays.
    let out = pi.run(&["remove", "localext"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(settings(&pi)["packages"], serde_json::json!([]));
    assert!(dir.join("tool.wasm").exists());
    assert_eq!(stdout(&pi.run(&["list"])), "No packages installed.\n");
    let (offered, _) = echo_offered(&pi);
    assert!(!offered);
    let out = pi.run(&["remove", "localext"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("not installed: localext"));
}

#[test]
fn an_object_entry_in_settings_picks_the_components_skills_and_templates_that_load() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let dir = package(&pi.root.path().join("src"), "picky", "0.1.0");
    extend_manifest(
        &dir,
        "[resources]\nskills = \"skills\"\nprompts = \"prompts\"",
    );
    for skill in ["kept", "dropped"] {
        std::fs::create_dir_all(dir.join("skills").join(skill)).unwrap();
        std::fs::write(
            dir.join("skills").join(skill).join("SKILL.md"),
            format!("---\nname: {skill}\ndescription: The {skill} skill.\n---\nBody.\n"),
        )
        .unwrap();
    }
    std::fs::create_dir_all(dir.join("prompts")).unwrap();
    for template in ["kept", "dropped"] {
        std::fs::write(
            dir.join("prompts").join(format!("{template}.md")),
            format!("Expanded the {template} template."),
        )
        .unwrap();
    }
    let out = ext(&pi, &["install", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let run = |prompt: &str| {
        pi.mock.push(Turn::text("ok"));
        let out = pi.run(&["--no-session", "-p", prompt]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let request = pi.mock.requests().last().unwrap().body.clone();
        let tools = offered(&pi, pi.mock.requests().len() - 1);
        (request, tools)
    };
    let (request, tools) = run("/dropped");
    assert!(tools.contains(&"echo".to_owned()), "{tools:?}");
    assert!(request.to_string().contains("The dropped skill."));
    assert!(
        request
            .to_string()
            .contains("Expanded the dropped template.")
    );

    // The entry in pi's object form: no components, one skill, every template but one.
    let mut changed = settings(&pi);
    let source = changed["packages"][0].clone();
    changed["packages"][0] = serde_json::json!({
        "source": source,
        "extensions": [],
        "skills": ["skills/kept"],
        "prompts": ["!prompts/dropped.md"],
    });
    pi.settings(changed.clone());
    let listed = stdout(&ext(&pi, &["list"]));
    assert!(listed.contains("(filtered)"), "{listed}");
    let (request, tools) = run("/dropped");
    assert!(!tools.contains(&"echo".to_owned()), "{tools:?}");
    let text = request.to_string();
    assert!(text.contains("The kept skill."), "{text}");
    assert!(!text.contains("The dropped skill."), "{text}");
    assert!(!text.contains("Expanded the dropped template."), "{text}");
    let (request, _) = run("/kept");
    assert!(request.to_string().contains("Expanded the kept template."));

    // `autoload: false` loads only what is listed; a malformed entry loads nothing of it.
    changed["packages"][0] =
        serde_json::json!({"source": source, "autoload": false, "extensions": ["tool.wasm"]});
    pi.settings(changed.clone());
    let (request, tools) = run("hi");
    assert!(tools.contains(&"echo".to_owned()), "{tools:?}");
    assert!(!request.to_string().contains("The kept skill."));
    changed["packages"][0] = serde_json::json!({"source": source, "skills": "skills/kept"});
    pi.settings(changed);
    pi.mock.push(Turn::text("ok"));
    let out = pi.run(&["--no-session", "-p", "hi"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("not loaded") && err.contains("\"skills\" must be a list"),
        "{err}"
    );
    assert!(!offered(&pi, pi.mock.requests().len() - 1).contains(&"echo".to_owned()));
}

#[test]
fn a_bad_package_is_refused_naming_the_file_and_nothing_is_written() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let dir = package(&pi.root.path().join("src"), "badext", "0.1.0");
    std::fs::write(dir.join("tool.wasm"), b"not a component").unwrap();
    let out = ext(&pi, &["install", dir.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("tool.wasm"), "{}", stderr(&out));
    assert_eq!(settings(&pi), Value::Null);
    let out = ext(&pi, &["install", "/no/such/dir"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("/no/such/dir"), "{}", stderr(&out));
    let out = ext(&pi, &["install", "npm:Bad Name"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("invalid npm package name"),
        "{}",
        stderr(&out)
    );
    let out = ext(&pi, &["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_git_package_is_pinned_hashed_and_a_changed_byte_is_refused_until_updated() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let root = pi.root.path();
    let (served, v1) = tagged_repo(root, "gitpkg");
    let daemon = GitDaemon::start(&served);
    let source = format!("git://127.0.0.1:{}/repo.git@v1", daemon.port);

    let out = pi.run(&["install", &source]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = ext(&pi, &["info", "gitpkg"]);
    let info = stdout(&out);
    assert!(info.contains("gitpkg 1.0.0"), "{info}");
    assert!(info.contains(&format!("resolved: {v1}")), "{info}");
    assert!(info.contains("content hash: sha256:"), "{info}");
    let (offered, err) = echo_offered(&pi);
    assert!(offered, "{err}");

    // One changed byte in the installed component: refused at start, with the way out.
    let listed: Value = serde_json::from_str(&stdout(&ext(&pi, &["list", "--json"]))).unwrap();
    let installed = Path::new(listed[0]["path"].as_str().unwrap()).to_owned();
    let wasm = installed.join("tool.wasm");
    let mut bytes = std::fs::read(&wasm).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&wasm, bytes).unwrap();
    let (offered, err) = echo_offered(&pi);
    assert!(!offered);
    assert!(
        err.contains("tool.wasm changed since it was installed"),
        "{err}"
    );
    assert!(err.contains("pi ext update gitpkg"), "{err}");

    // Update fetches the pinned tag again into a new directory; the old one is gone.
    let out = ext(&pi, &["update", "gitpkg"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!installed.exists());
    let (offered, err) = echo_offered(&pi);
    assert!(offered, "{err}");

    // Another tag of the same repository is another source: v2 next to v1.
    let v2 = format!("git://127.0.0.1:{}/repo.git@v2", daemon.port);
    let out = ext(&pi, &["install", &v2]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("gitpkg 2.0.0"), "{}", stdout(&out));
    let out = ext(&pi, &["remove", &source]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listed: Value = serde_json::from_str(&stdout(&ext(&pi, &["list", "--json"]))).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 1);
    assert_eq!(listed[0]["version"], "2.0.0");

    // The same repository through `file://`, pinned at v1, and updated to the new tag.
    let file_v1 = format!("file://{}@v1", served.join("repo.git").display());
    let out = ext(&pi, &["install", &file_v1]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let info = stdout(&ext(&pi, &["info", &file_v1]));
    assert!(info.contains(&format!("resolved: {v1}")), "{info}");
    // The tag moves upstream: `update` follows it (it asks for nothing more, so no prompt).
    let bare = served.join("repo.git");
    git(&bare, &["tag", "-f", "v1", "v2"]);
    let moved = git_output(&bare, &["rev-parse", "v2^{commit}"]);
    let out = ext(&pi, &["update", &file_v1]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let info = stdout(&ext(&pi, &["info", &file_v1]));
    assert!(info.contains(&format!("resolved: {moved}")), "{info}");
    assert!(info.contains("gitpkg 2.0.0"), "{info}");
}

#[test]
fn on_a_terminal_the_user_is_asked_and_no_means_nothing_is_installed() {
    use super::cli_tui_support::Tmux;
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let dir = package(&pi.root.path().join("src"), "askext", "0.1.0");
    ask_for(&dir, "network = [\"api.example.com\"]\nenv = [\"HOME\"]");
    let tmux = Tmux::start_shell(&pi);
    let command = format!("'{PI}' ext install '{}'", dir.display());
    tmux.submit(&command);
    let screen = tmux.wait_text("Allow and install? [y/N]");
    assert!(
        screen.contains("reach these hosts: api.example.com"),
        "{screen}"
    );
    assert!(
        screen.contains("read these environment variables: HOME"),
        "{screen}"
    );
    tmux.submit("n");
    tmux.wait_text("Not installed.");
    assert!(!pi.agent_dir().join("packages.lock.json").exists());
    tmux.submit(&command);
    tmux.wait_for("the second question", |s| {
        s.matches("Allow and install?").count() == 2
    });
    tmux.submit("y");
    tmux.wait_text("Installed askext 0.1.0 (user scope)");
    let listed: Value = serde_json::from_str(&stdout(&ext(&pi, &["list", "--json"]))).unwrap();
    assert_eq!(
        listed[0]["granted"],
        serde_json::json!([
            "reach these hosts: api.example.com",
            "read these environment variables: HOME"
        ])
    );
}

#[test]
fn a_tarball_url_installs_and_truncated_escaping_or_linked_tarballs_are_refused() {
    use super::cli_extension_sources::{Registry, tgz};
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let dir = package(&pi.root.path().join("src"), "urlext", "3.0.0");
    let good = tgz(&dir, &[]);
    let server = Registry::start();
    server.route("/urlext-3.0.0.tgz", 200, good.clone());
    server.route("/short.tgz", 200, good[..good.len() / 2].to_vec());
    server.route("/escape.tgz", 200, tgz(&dir, &[("../evil.txt", b"x")]));
    server.route("/missing.tgz", 404, b"no".to_vec());
    let linked = {
        let mut builder = tar::Builder::new(Vec::new());
        builder.append_dir_all("package", &dir).unwrap();
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Symlink);
        header.set_size(0);
        builder
            .append_link(&mut header, "package/secrets", "/etc")
            .unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, &builder.into_inner().unwrap()).unwrap();
        gz.finish().unwrap()
    };
    server.route("/linked.tgz", 200, linked);
    let url = |path: &str| format!("{}{path}", server.url());
    for (path, expected) in [
        ("/short.tgz", "cannot read the tarball"),
        ("/escape.tgz", "points outside the package"),
        ("/linked.tgz", "is a link"),
        ("/missing.tgz", "404"),
    ] {
        let out = ext(&pi, &["install", &url(path), "--yes"]);
        assert_eq!(out.status.code(), Some(1), "{path}: {}", stderr(&out));
        assert!(stderr(&out).contains(expected), "{path}: {}", stderr(&out));
        assert!(
            !pi.agent_dir().join("packages.lock.json").exists(),
            "{path}"
        );
        assert!(!pi.root.path().join("evil.txt").exists());
    }
    // Plain http to another machine is refused before anything is fetched.
    let out = ext(&pi, &["install", "http://example.com/p.tgz"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("use https"), "{}", stderr(&out));

    let out = ext(&pi, &["install", &url("/urlext-3.0.0.tgz")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let info = stdout(&ext(&pi, &["info", "urlext"]));
    assert!(info.contains("resolved: sha256:"), "{info}");
    let (offered, err) = echo_offered(&pi);
    assert!(offered, "{err}");
    // No half-fetched leftovers in the staging area.
    let staging = pi.agent_dir().join("packages/.staging");
    assert_eq!(std::fs::read_dir(&staging).unwrap().count(), 0);
}

#[test]
fn an_install_killed_at_any_point_leaves_the_previous_one_working() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let (served, _) = tagged_repo(pi.root.path(), "killpkg");
    let daemon = GitDaemon::start(&served);
    let v1 = format!("git://127.0.0.1:{}/repo.git@v1", daemon.port);
    let out = ext(&pi, &["install", &v1]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Update (fetch again, hash, move into place, commit the lock), killed after a growing
    // delay: whatever was reached, the next start loads the package without a warning.
    for delay_ms in [0, 2, 5, 10, 20, 40, 80, 160, 320] {
        let mut child = pi.command(&["ext", "update", "killpkg"]).spawn().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let (offered, err) = echo_offered(&pi);
        assert!(offered, "killed after {delay_ms} ms: {err}");
        assert!(
            !err.contains("Warning"),
            "killed after {delay_ms} ms: {err}"
        );
        let listed: Value = serde_json::from_str(&stdout(&ext(&pi, &["list", "--json"]))).unwrap();
        assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits (up to 30 s) until a server started on `port` accepts connections.
fn wait_listening(port: u16, what: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "{what} did not listen on {port}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A real OCI registry (Debian's `docker-registry`) on a free port of 127.0.0.1, storing in a
/// temporary directory; stopped on drop.
struct OciRegistry {
    child: std::process::Child,
    port: u16,
    storage: tempfile::TempDir,
}

impl OciRegistry {
    fn start() -> OciRegistry {
        let storage = tempfile::tempdir().unwrap();
        let port = free_port();
        let config = storage.path().join("config.yml");
        std::fs::write(
            &config,
            format!(
                "version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: {}\n\
                 http:\n  addr: 127.0.0.1:{port}\n",
                storage.path().join("data").display()
            ),
        )
        .unwrap();
        let child = std::process::Command::new("docker-registry")
            .arg("serve")
            .arg(&config)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot start docker-registry ({e}): install the Debian package docker-registry"
                )
            });
        let registry = OciRegistry {
            child,
            port,
            storage,
        };
        wait_listening(port, "docker-registry");
        registry
    }

    fn url(&self, repository: &str) -> String {
        format!("oci://127.0.0.1:{}/{repository}", self.port)
    }

    /// The blob files in the registry's storage.
    fn blobs(&self) -> Vec<PathBuf> {
        let root = self.storage.path().join("data/docker/registry/v2/blobs");
        let mut out = Vec::new();
        let mut dirs = vec![root];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.file_name().is_some_and(|n| n == "data") {
                    out.push(path);
                }
            }
        }
        out
    }
}

impl Drop for OciRegistry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Pushes `wasm` as wkg publishes a component: one `application/wasm` layer.
fn push_bare_component(reference: &str, wasm: Vec<u8>) {
    use oci_client::client::{ClientConfig, ClientProtocol, Config, ImageLayer};
    let reference: oci_client::Reference = reference.parse().unwrap();
    let client = oci_client::Client::new(ClientConfig {
        protocol: ClientProtocol::Http,
        ..ClientConfig::default()
    });
    let layers = [ImageLayer::new(wasm, "application/wasm".into(), None)];
    let config = Config::new(
        br#"{"architecture":"wasm","os":"wasip2"}"#.to_vec(),
        "application/vnd.wasm.config.v0+json".into(),
        None,
    );
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(client.push(
            &reference,
            &layers,
            config,
            &oci_client::secrets::RegistryAuth::Anonymous,
            None,
        ))
        .unwrap();
}

#[test]
fn oci_packages_are_published_and_installed_by_tag_and_digest_and_bare_components_too() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let registry = OciRegistry::start();
    let dir = package(&pi.root.path().join("src"), "ociext", "1.0.0");
    // The author's repository is not part of what is published.
    let init = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&dir)
        .status()
        .unwrap();
    assert!(init.success());
    let tagged = registry.url("pi/ociext:1.0.0");
    let out = ext(&pi, &["publish", dir.to_str().unwrap(), &tagged]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let published = stdout(&out);
    assert!(published.contains("Published ociext 1.0.0"), "{published}");
    let digest = published
        .lines()
        .find_map(|l| l.trim().strip_prefix("digest: "))
        .unwrap()
        .to_owned();
    assert!(digest.starts_with("sha256:"), "{digest}");

    let out = ext(&pi, &["install", &tagged]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let info = stdout(&ext(&pi, &["info", "ociext"]));
    assert!(info.contains(&format!("resolved: {digest}")), "{info}");
    assert!(info.contains("files: 2"), "{info}");
    let (offered, err) = echo_offered(&pi);
    assert!(offered, "{err}");

    // By digest: the same artifact; a digest the registry does not have is refused.
    let by_digest = registry.url(&format!("pi/ociext@{digest}"));
    let out = ext(&pi, &["install", &by_digest]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let wrong = registry.url(&format!("pi/ociext@sha256:{}", "0".repeat(64)));
    let out = ext(&pi, &["install", &wrong]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("cannot fetch"), "{}", stderr(&out));
    let listed: Value = serde_json::from_str(&stdout(&ext(&pi, &["list", "--json"]))).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 2, "{listed}");

    // A layer whose bytes no longer match its digest (changed in the registry's storage) is
    // refused, and nothing is installed.
    let before = registry.blobs();
    let other = package(&pi.root.path().join("src2"), "ocibad", "1.0.0");
    let bad = registry.url("pi/ocibad:1.0.0");
    let out = ext(&pi, &["publish", other.to_str().unwrap(), &bad]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let layer = registry
        .blobs()
        .into_iter()
        .filter(|b| !before.contains(b))
        .find(|b| std::fs::read(b).unwrap().starts_with(&[0x1f, 0x8b]))
        .expect("the published package layer");
    let mut bytes = std::fs::read(&layer).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&layer, bytes).unwrap();
    let out = ext(&pi, &["install", &bad]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("digest"), "{}", stderr(&out));
    let listed: Value = serde_json::from_str(&stdout(&ext(&pi, &["list", "--json"]))).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 2, "{listed}");

    // A component published on its own (wkg's layout) becomes a one-component package.
    let wasm = std::fs::read(pi_ext_test_artifacts::TOOL).unwrap();
    let bare = format!("127.0.0.1:{}/pi/bare-tool:0.2.0", registry.port);
    push_bare_component(&bare, wasm);
    for source in [tagged.as_str(), by_digest.as_str()] {
        let out = ext(&pi, &["remove", source]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let out = ext(&pi, &["install", &format!("oci://{bare}")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("bare-tool 0.2.0"), "{}", stdout(&out));
    let info = stdout(&ext(&pi, &["info", "bare-tool"]));
    assert!(info.contains("component.wasm (tool)"), "{info}");
    let (offered, err) = echo_offered(&pi);
    assert!(offered, "{err}");
    // Publishing to something that is not an OCI reference says so.
    let out = ext(
        &pi,
        &["publish", dir.to_str().unwrap(), "https://example.com/x"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("oci://"), "{}", stderr(&out));
}

#[test]
fn a_single_component_file_installs_as_a_package_of_its_own() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let wasm = pi.root.path().join("my_tool.wasm");
    std::fs::copy(pi_ext_test_artifacts::TOOL, &wasm).unwrap();
    let out = ext(&pi, &["install", wasm.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("Installed my-tool 0.0.0"),
        "{}",
        stdout(&out)
    );
    let (offered, err) = echo_offered(&pi);
    assert!(offered, "{err}");
    // Not a component: refused, naming the file's problem; nothing recorded.
    let junk = pi.root.path().join("junk.wasm");
    std::fs::write(&junk, b"\0asm junk").unwrap();
    let out = ext(&pi, &["install", junk.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("not a valid component"),
        "{}",
        stderr(&out)
    );
    let listed: Value = serde_json::from_str(&stdout(&ext(&pi, &["list", "--json"]))).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 1);
}

/// verdaccio's version: the last whose start-up check accepts the Node.js 20 of Debian 12.
const VERDACCIO: &str = "verdaccio@6.5.0";

/// A real npm registry (verdaccio, from the npm registry, installed once into
/// `target/npm-tools`) on a free port of 127.0.0.1, with one user whose token publishes;
/// stopped on drop.
struct NpmRegistry {
    child: std::process::Child,
    port: u16,
    dir: tempfile::TempDir,
}

impl NpmRegistry {
    fn start() -> NpmRegistry {
        let bin = verdaccio();
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let config = dir.path().join("config.yaml");
        std::fs::write(
            &config,
            format!(
                "storage: {storage}\nauth:\n  htpasswd:\n    file: {htpasswd}\nuplinks: {{}}\n\
                 packages:\n  '**':\n    access: $all\n    publish: $authenticated\n\
                 log: {{type: stdout, format: pretty, level: error}}\nlisten: 127.0.0.1:{port}\n",
                storage = dir.path().join("storage").display(),
                htpasswd = dir.path().join("htpasswd").display(),
            ),
        )
        .unwrap();
        let child = std::process::Command::new(bin)
            .arg("--config")
            .arg(&config)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let registry = NpmRegistry { child, port, dir };
        wait_listening(port, "verdaccio");
        registry.sign_up();
        registry
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Creates the publishing user (verdaccio answers with its token) and writes the npmrc.
    fn sign_up(&self) {
        use std::io::{Read, Write};
        let body = r#"{"name":"pi","password":"pi-test-password"}"#;
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        write!(
            stream,
            "PUT /-/user/org.couchdb.user:pi HTTP/1.1\r\nHost: 127.0.0.1\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        let json = response.split("\r\n\r\n").nth(1).unwrap_or("");
        let token = serde_json::from_str::<Value>(json.trim()).unwrap_or(Value::Null)["token"]
            .as_str()
            .unwrap_or_else(|| panic!("no token from verdaccio: {response}"))
            .to_owned();
        std::fs::write(
            self.dir.path().join("npmrc"),
            format!("//127.0.0.1:{}/:_authToken={token}\n", self.port),
        )
        .unwrap();
    }

    /// `npm publish` of the package in `dir` (it gets a package.json naming `name@version`).
    fn publish(&self, dir: &Path, name: &str, version: &str) {
        std::fs::write(
            dir.join("package.json"),
            format!(r#"{{"name":"{name}","version":"{version}"}}"#),
        )
        .unwrap();
        let out = std::process::Command::new("npm")
            .args(["publish", "--registry", &self.url(), "--userconfig"])
            .arg(self.dir.path().join("npmrc"))
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "npm publish: {}", stderr(&out));
    }
}

impl Drop for NpmRegistry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The verdaccio executable, installed with npm into `target/npm-tools` on first use (under a
/// lock: tests run in parallel). `.ci/run` installs it before the tests.
fn verdaccio() -> PathBuf {
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/npm-tools");
    let bin = tools.join("node_modules/.bin/verdaccio");
    std::fs::create_dir_all(&tools).unwrap();
    let lock = std::fs::File::create(tools.join(".lock")).unwrap();
    lock.lock().unwrap();
    if !bin.exists() {
        let out = std::process::Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--prefix"])
            .arg(&tools)
            .arg(VERDACCIO)
            .output()
            .unwrap_or_else(|e| panic!("npm is needed to install {VERDACCIO}: {e}"));
        assert!(
            out.status.success(),
            "npm install {VERDACCIO}: {}",
            stderr(&out)
        );
    }
    bin
}

#[test]
fn npm_packages_install_from_a_real_registry_by_version_and_by_the_latest_tag() {
    let registry = NpmRegistry::start();
    let pi = PiEnv::new(Api::OpenAiCompletions);
    for version in ["1.0.0", "2.0.0"] {
        let dir = package(
            &pi.root.path().join(format!("src{version}")),
            "npmext",
            version,
        );
        registry.publish(&dir, "pi-npmext", version);
    }
    let install = |source: &str| {
        pi.command(&["ext", "install", source, "--yes"])
            .env("npm_config_registry", registry.url())
            .output()
            .unwrap()
    };
    let out = install("npm:pi-npmext@1.0.0");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("npmext 1.0.0"), "{}", stdout(&out));
    let info = stdout(&ext(&pi, &["info", "npm:pi-npmext@1.0.0"]));
    assert!(info.contains("resolved: 1.0.0"), "{info}");
    let (offered, err) = echo_offered(&pi);
    assert!(offered, "{err}");
    let out = install("npm:pi-npmext");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("npmext 2.0.0"), "{}", stdout(&out));
    // The `latest` tag is recorded as the version it named.
    let info = stdout(&ext(&pi, &["info", "npm:pi-npmext"]));
    assert!(info.contains("resolved: 2.0.0"), "{info}");
    let out = install("npm:pi-npmext@9.9.9");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("9.9.9"), "{}", stderr(&out));
}

#[test]
fn project_packages_need_a_trusted_project_to_change_and_to_load() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let first = package(&pi.root.path().join("src"), "projext", "0.1.0");
    let second = package(&pi.root.path().join("src2"), "projext2", "0.1.0");
    // A bare project has nothing to protect: the first -l install goes in.
    let out = ext(&pi, &["install", "-l", first.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("(project scope)"), "{}", stdout(&out));
    let project: Value =
        serde_json::from_str(&std::fs::read_to_string(pi.cwd().join(".pi/settings.json")).unwrap())
            .unwrap();
    assert_eq!(
        project["packages"].as_array().unwrap().len(),
        1,
        "{project}"
    );
    assert!(pi.cwd().join(".pi/packages.lock.json").exists());
    assert!(stdout(&pi.run(&["list"])).contains("Project packages:\n  projext 0.1.0"));
    // Now it has config: changing it needs trust.
    let out = ext(&pi, &["install", "-l", second.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("Project is not trusted"),
        "{}",
        stderr(&out)
    );
    let out = ext(&pi, &["install", "-l", "-a", second.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // An untrusted project's packages do not load; trusted for the run, they do.
    let (offered, _) = echo_offered(&pi);
    assert!(!offered);
    pi.mock.push(Turn::text("ok"));
    let out = pi.run(&["--no-session", "--approve", "-p", "hi"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let last = pi.mock.requests().len() - 1;
    assert!(offered_echo(&pi, last), "{}", stderr(&out));
}

fn offered_echo(pi: &PiEnv, request: usize) -> bool {
    offered(pi, request).contains(&"echo".to_owned())
}
