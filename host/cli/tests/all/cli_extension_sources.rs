//! `-e git:…`/URL and `-e npm:…` sources end to end: a real `git daemon` and a real HTTP
//! registry on 127.0.0.1 serve the test tool package; the `pi` binary installs it into a
//! temporary directory for the run, loads it like `-e <dir>`, and removes it afterwards.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::cli_extensions::{install, offered};
use super::cli_support::*;
use base64::Engine;
use pi_mock_llm::{Api, Turn};
use serde_json::json;
use sha2::{Digest, Sha512};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The test tool package as `name@version` in `dir/<name>`.
pub(super) fn package(dir: &Path, name: &str, version: &str) -> PathBuf {
    let package = install(dir, name);
    let manifest = package.join("pi-extension.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        text.replace("version = \"0.1.0\"", &format!("version = \"{version}\"")),
    )
    .unwrap();
    package
}

/// One `pi --verbose -p hi` run with `TMPDIR` (where installs go) and extra environment.
fn run_pi(pi: &PiEnv, tmp: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    pi.mock.push(Turn::text("ok"));
    let mut all = vec!["--no-session", "--verbose"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-p", "hi"]);
    let mut cmd = pi.command(&all);
    cmd.env("TMPDIR", tmp);
    for (key, value) in env {
        cmd.env(key, value);
    }
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "ok\n");
    out
}

/// The `extensions: …` line of `--verbose`.
fn extensions_line(out: &Output) -> String {
    let err = stderr(out);
    err.lines()
        .find(|l| l.starts_with("extensions: "))
        .unwrap_or_else(|| panic!("no extensions line in {err}"))
        .to_owned()
}

/// What is left in the temporary directory pi installed into, but for pi's own temp dir
/// (`pi-<uid>`, made when the tools are set up) while it is empty.
fn leftovers(tmp: &Path) -> Vec<String> {
    std::fs::read_dir(tmp)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let own = name
                .strip_prefix("pi-")
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
            !(own && std::fs::read_dir(e.path()).unwrap().next().is_none())
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

pub(super) fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=pi", "-c", "user.email=pi@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git is needed by this test");
    assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
}

pub(super) fn git_output(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A bare repository `<root>/served/repo.git` of package `name`: tag `v1` (its commit is
/// returned) is version 1.0.0, tag `v2` and `main` are 2.0.0. Returns the `served` dir.
pub(super) fn tagged_repo(root: &Path, name: &str) -> (PathBuf, String) {
    let work = package(&root.join("src"), name, "1.0.0");
    git(&work, &["init", "-q", "-b", "main"]);
    git(&work, &["add", "."]);
    git(&work, &["commit", "-q", "-m", "v1"]);
    git(&work, &["tag", "v1"]);
    let v1_commit = git_output(&work, &["rev-parse", "HEAD"]);
    let manifest = work.join("pi-extension.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replace("1.0.0", "2.0.0")).unwrap();
    git(&work, &["commit", "-q", "-am", "v2"]);
    git(&work, &["tag", "v2"]);
    let served = root.join("served");
    std::fs::create_dir_all(&served).unwrap();
    git(
        &served,
        &["clone", "-q", "--bare", work.to_str().unwrap(), "repo.git"],
    );
    (served, v1_commit)
}

/// A `git daemon` exporting every repository under a base path; killed on drop.
pub(super) struct GitDaemon {
    child: Child,
    pub(super) port: u16,
}

impl GitDaemon {
    pub(super) fn start(base: &Path) -> GitDaemon {
        let port = free_port();
        let child = Command::new("git")
            .arg("daemon")
            .arg("--export-all")
            .arg("--reuseaddr")
            .arg("--listen=127.0.0.1")
            .arg(format!("--port={port}"))
            .arg(format!("--base-path={}", base.display()))
            .arg(base)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("`git daemon` is not available on this machine ({e}); install git")
            });
        let mut daemon = GitDaemon { child, port };
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Some(status) = daemon.child.try_wait().unwrap() {
                let mut err = String::new();
                if let Some(mut pipe) = daemon.child.stderr.take() {
                    let _ = pipe.read_to_string(&mut err);
                }
                panic!(
                    "`git daemon` is not available on this machine (exited {status}: {err}); \
                     install git with its daemon (Debian package git)"
                );
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "`git daemon` did not listen on port {port} within 10 s"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        daemon
    }
}

impl Drop for GitDaemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn git_sources_are_cloned_for_the_run() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let root = pi.root.path();
    let tmp = root.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let (served, v1_commit) = tagged_repo(root, "gitext");
    let daemon = GitDaemon::start(&served);
    let url = format!("git://127.0.0.1:{}/repo.git", daemon.port);

    let cases = [
        (url.clone(), "extensions: gitext@2.0.0"),
        (format!("{url}@v1"), "extensions: gitext@1.0.0"),
        (format!("git:{url}@main"), "extensions: gitext@2.0.0"),
        // A commit is not a branch or tag: pi falls back to a full clone and checks it out.
        (format!("{url}@{v1_commit}"), "extensions: gitext@1.0.0"),
    ];
    for (source, expected) in &cases {
        // --no-extensions keeps explicit -e sources.
        let out = run_pi(&pi, &tmp, &[], &["-ne", "-e", source]);
        assert_eq!(
            extensions_line(&out),
            *expected,
            "{source}: {}",
            stderr(&out)
        );
        assert!(!stderr(&out).contains("Warning"), "{}", stderr(&out));
        let tools = offered(&pi, pi.mock.requests().len() - 1);
        assert!(tools.contains(&"echo".to_owned()), "{source}: {tools:?}");
        assert_eq!(leftovers(&tmp), Vec::<String>::new(), "{source}");
    }

    // A repository the daemon does not have: a warning quoting git, the run goes on.
    let missing = format!("git://127.0.0.1:{}/nothing.git", daemon.port);
    let out = run_pi(&pi, &tmp, &[], &["-e", &missing]);
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "Warning: extension \"{missing}\" not loaded: git clone failed"
        )),
        "{err}"
    );
    assert_eq!(extensions_line(&out), "extensions: (none)");
    // A tag that does not exist.
    let out = run_pi(&pi, &tmp, &[], &["-e", &format!("{url}@v9")]);
    assert!(stderr(&out).contains("v9"), "{}", stderr(&out));
    assert_eq!(extensions_line(&out), "extensions: (none)");
    assert_eq!(leftovers(&tmp), Vec::<String>::new());
}

/// Status and body per request path.
type Routes = Mutex<HashMap<String, (u16, Vec<u8>)>>;

/// A minimal npm registry: fixed answers per path, each request logged.
pub(super) struct Registry {
    port: u16,
    routes: Arc<Routes>,
    log: Arc<Mutex<Vec<String>>>,
}

impl Registry {
    pub(super) fn start() -> Registry {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let routes: Arc<Routes> = Arc::default();
        let log: Arc<Mutex<Vec<String>>> = Arc::default();
        let (r, l) = (Arc::clone(&routes), Arc::clone(&log));
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (r, l) = (Arc::clone(&r), Arc::clone(&l));
                std::thread::spawn(move || serve(stream, &r, &l));
            }
        });
        Registry { port, routes, log }
    }

    pub(super) fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub(super) fn route(&self, path: &str, status: u16, body: Vec<u8>) {
        self.routes
            .lock()
            .unwrap()
            .insert(path.to_owned(), (status, body));
    }

    /// Publishes `versions` of `name` (tarball bytes each), `latest` the last one; the
    /// integrity of `tampered` versions is that of other bytes.
    fn publish(&self, name: &str, versions: &[(&str, Vec<u8>)], tampered: &[&str]) {
        let mut documents = serde_json::Map::new();
        for (version, tgz) in versions {
            let file = format!("/tarballs/{}-{version}.tgz", name.replace('/', "-"));
            let hashed: &[u8] = if tampered.contains(version) {
                b"something else"
            } else {
                tgz
            };
            let integrity = format!(
                "sha512-{}",
                base64::engine::general_purpose::STANDARD.encode(Sha512::digest(hashed))
            );
            documents.insert(
                (*version).to_owned(),
                json!({"name": name, "version": version,
                       "dist": {"tarball": format!("{}{file}", self.url()),
                                "integrity": integrity, "shasum": "0000"}}),
            );
            self.route(&file, 200, tgz.clone());
        }
        let latest = versions.last().unwrap().0;
        let document = json!({"name": name, "dist-tags": {"latest": latest},
                              "versions": documents});
        self.route(
            &format!("/{}", name.replace('/', "%2f")),
            200,
            document.to_string().into_bytes(),
        );
    }

    fn requests(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }
}

fn serve(mut stream: TcpStream, routes: &Routes, log: &Mutex<Vec<String>>) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let head = String::from_utf8_lossy(&head);
    let path = head.split_whitespace().nth(1).unwrap_or("").to_owned();
    log.lock().unwrap().push(path.clone());
    let (status, body) = routes
        .lock()
        .unwrap()
        .get(&path)
        .cloned()
        .unwrap_or((404, b"{\"error\":\"Not found\"}".to_vec()));
    let reason = if status == 200 { "OK" } else { "Not Found" };
    let _ = write!(
        stream,
        "HTTP/1.1 {status} {reason}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(&body);
}

/// An npm tarball: every file of `dir` under `package/`, plus raw `extra` entries whose
/// names are written as given (so a hostile `../evil` can be built).
pub(super) fn tgz(dir: &Path, extra: &[(&str, &[u8])]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    builder.append_dir_all("package", dir).unwrap();
    for (name, data) in extra {
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_entry_type(tar::EntryType::Regular);
        header.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
        header.set_cksum();
        builder.append(&header, *data).unwrap();
    }
    let tar = builder.into_inner().unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&tar).unwrap();
    gz.finish().unwrap()
}

#[test]
fn npm_sources_are_downloaded_for_the_run() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let root = pi.root.path();
    let tmp = root.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let registry = Registry::start();
    let build = |name: &str, version: &str| {
        let dir = package(&root.join(format!("src-{version}")), name, version);
        tgz(&dir, &[])
    };
    registry.publish(
        "pi-test-ext",
        &[
            ("1.0.0", build("pi-test-ext", "1.0.0")),
            ("1.1.0", build("pi-test-ext", "1.1.0")),
        ],
        &[],
    );
    registry.publish(
        "@scope/pi-scoped-ext",
        &[("3.0.0", build("pi-scoped-ext", "3.0.0"))],
        &[],
    );
    let url = registry.url();
    let env = [("npm_config_registry", url.as_str())];

    let cases = [
        ("npm:pi-test-ext@1.0.0", "extensions: pi-test-ext@1.0.0"),
        ("npm:pi-test-ext", "extensions: pi-test-ext@1.1.0"),
        ("npm:pi-test-ext@latest", "extensions: pi-test-ext@1.1.0"),
        (
            "npm:@scope/pi-scoped-ext",
            "extensions: pi-scoped-ext@3.0.0",
        ),
    ];
    for (source, expected) in cases {
        let out = run_pi(&pi, &tmp, &env, &["-ne", "-e", source]);
        assert_eq!(
            extensions_line(&out),
            expected,
            "{source}: {}",
            stderr(&out)
        );
        assert!(!stderr(&out).contains("Warning"), "{}", stderr(&out));
        let tools = offered(&pi, pi.mock.requests().len() - 1);
        assert!(tools.contains(&"echo".to_owned()), "{source}: {tools:?}");
        assert_eq!(leftovers(&tmp), Vec::<String>::new(), "{source}");
    }
    let requests = registry.requests();
    assert!(
        requests.contains(&"/@scope%2fpi-scoped-ext".to_owned()),
        "{requests:?}"
    );
    assert!(
        requests.contains(&"/tarballs/pi-test-ext-1.0.0.tgz".to_owned()),
        "{requests:?}"
    );

    // The installed component runs: the model calls its tool during the run. The source was
    // installed before under the same name, so the host's cache gains no new index file.
    let cache_files = || {
        std::fs::read_dir(pi.agent_dir().join("cache/components"))
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                name.to_string_lossy().starts_with("startup-")
            })
            .count()
    };
    let before = cache_files();
    pi.mock
        .push(Turn::new().tool_call("c1", "echo", json!({"message": "from npm"})));
    pi.mock.push(Turn::text("Echoed."));
    let mut cmd = pi.command(&[
        "--no-session",
        "-ne",
        "-e",
        "npm:pi-test-ext",
        "-p",
        "Use echo",
    ]);
    let out = cmd.env("TMPDIR", &tmp).envs(env).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "Echoed.\n");
    let last = pi.mock.requests().pop().unwrap();
    assert!(last.body["messages"].to_string().contains("from npm"));
    assert_eq!(cache_files(), before);
    assert_eq!(leftovers(&tmp), Vec::<String>::new());
}

#[test]
fn broken_npm_sources_warn_and_pi_still_answers() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let root = pi.root.path();
    let tmp = root.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let registry = Registry::start();
    let good = package(&root.join("src"), "pi-test-ext", "1.0.0");
    registry.publish("tampered-ext", &[("1.0.0", tgz(&good, &[]))], &["1.0.0"]);
    registry.publish(
        "evil-ext",
        &[("1.0.0", tgz(&good, &[("../evil", b"escaped")]))],
        &[],
    );
    let url = registry.url();
    let env = [("npm_config_registry", url.as_str())];
    let cases = [
        ("npm:no-such-ext", "HTTP 404"),
        ("npm:tampered-ext", "does not match its integrity"),
        (
            "npm:evil-ext",
            "tarball entry \"../evil\" points outside the package",
        ),
        (
            "npm:tampered-ext@^1.0.0",
            "version range \"^1.0.0\" is not supported",
        ),
        ("npm:tampered-ext@2.0.0", "no version or dist-tag \"2.0.0\""),
        ("npm:Bad Name", "invalid npm package name"),
    ];
    for (source, reason) in cases {
        let out = run_pi(&pi, &tmp, &env, &["-e", source]);
        let err = stderr(&out);
        assert!(
            err.contains(&format!("Warning: extension \"{source}\" not loaded: ")),
            "{source}: {err}"
        );
        assert!(err.contains(reason), "{source}: {err}");
        assert_eq!(extensions_line(&out), "extensions: (none)", "{source}");
        assert_eq!(leftovers(&tmp), Vec::<String>::new(), "{source}");
    }
    // Nothing escaped the install directory.
    for dir in [root.to_path_buf(), tmp.clone(), pi.cwd()] {
        assert!(!dir.join("evil").exists(), "{}", dir.display());
    }
    // An unreachable registry: a warning, no hang.
    let dead = format!("http://127.0.0.1:{}", free_port());
    let out = run_pi(
        &pi,
        &tmp,
        &[("npm_config_registry", &dead)],
        &["-e", "npm:pi-test-ext"],
    );
    assert!(
        stderr(&out).contains("Warning: extension \"npm:pi-test-ext\" not loaded: GET"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn npmrc_names_the_registry() {
    let pi = PiEnv::new(Api::OpenAiCompletions);
    let root = pi.root.path();
    let tmp = root.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let registry = Registry::start();
    let good = package(&root.join("src"), "pi-test-ext", "1.0.0");
    registry.publish("pi-test-ext", &[("1.0.0", tgz(&good, &[]))], &[]);
    std::fs::write(
        root.join("home/.npmrc"),
        format!("; a comment\nregistry={}/\n", registry.url()),
    )
    .unwrap();
    let out = run_pi(&pi, &tmp, &[], &["-e", "npm:pi-test-ext"]);
    assert_eq!(extensions_line(&out), "extensions: pi-test-ext@1.0.0");
    assert_eq!(registry.requests()[0], "/pi-test-ext");
}
