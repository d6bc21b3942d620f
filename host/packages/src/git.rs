//! Cloning a `git:` / URL extension source with the `git` command (no shell: arguments are
//! passed as a list and the URL comes after `--`). Git never prompts (`GIT_TERMINAL_PROMPT=0`,
//! ssh in batch mode) and a clone that takes too long is killed, so a run cannot hang on it.

use crate::source::GitSpec;
use std::ffi::OsStr;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one git command may take.
const TIMEOUT: Duration = Duration::from_secs(120);
/// How many lines of git's stderr a warning quotes.
const STDERR_LINES: usize = 4;

#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("cannot run git: {0}")]
    Spawn(#[source] std::io::Error),
    #[error("git {command} timed out after {} s", TIMEOUT.as_secs())]
    Timeout { command: &'static str },
    #[error("git {command} failed: {stderr}")]
    Failed {
        command: &'static str,
        stderr: String,
    },
}

/// Clones `spec` into `dest` (which must not exist) and checks out its ref.
pub fn clone(spec: &GitSpec, dest: &Path) -> Result<(), GitError> {
    let dest_arg = dest.as_os_str();
    let mut shallow: Vec<&OsStr> = vec!["clone".as_ref(), "--depth".as_ref(), "1".as_ref()];
    if let Some(reference) = &spec.reference {
        shallow.extend::<[&OsStr; 2]>(["--branch".as_ref(), reference.as_ref()]);
    }
    shallow.extend::<[&OsStr; 3]>(["--".as_ref(), spec.url.as_ref(), dest_arg]);
    let error = match run("clone", &shallow, None) {
        Ok(()) => return Ok(()),
        Err(error) => error,
    };
    // `--branch` names branches and tags only; a commit needs the full history.
    let Some(commit) = spec.reference.as_deref().filter(|r| looks_like_commit(r)) else {
        return Err(error);
    };
    tracing::debug!("shallow clone of {} failed ({error}); full clone", spec.url);
    if dest.exists() {
        let _ = std::fs::remove_dir_all(dest);
    }
    run(
        "clone",
        &["clone".as_ref(), "--".as_ref(), spec.url.as_ref(), dest_arg],
        None,
    )?;
    run(
        "checkout",
        &[
            "checkout".as_ref(),
            "--detach".as_ref(),
            commit.as_ref(),
            "--".as_ref(),
        ],
        Some(dest),
    )
}

fn looks_like_commit(reference: &str) -> bool {
    (7..=40).contains(&reference.len()) && reference.chars().all(|c| c.is_ascii_hexdigit())
}

/// The commit checked out in the clone at `dir`.
pub fn head(dir: &Path) -> Result<String, GitError> {
    let out = output(
        "rev-parse",
        &["rev-parse".as_ref(), "HEAD".as_ref()],
        Some(dir),
    )?;
    Ok(out.trim().to_owned())
}

/// Runs `git args` (in `cwd`), failing with the first lines of its stderr.
fn run(command: &'static str, args: &[&OsStr], cwd: Option<&Path>) -> Result<(), GitError> {
    output(command, args, cwd).map(drop)
}

/// [`run`], returning what git printed on stdout.
fn output(command: &'static str, args: &[&OsStr], cwd: Option<&Path>) -> Result<String, GitError> {
    let mut cmd = Command::new("git");
    cmd.args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if std::env::var_os("GIT_SSH_COMMAND").is_none() {
        cmd.env("GIT_SSH_COMMAND", "ssh -o BatchMode=yes");
    }
    if let Some(cwd) = cwd {
        cmd.current_dir(cwd);
    }
    let mut child = cmd.spawn().map_err(GitError::Spawn)?;
    // Read both pipes on the side so that a chatty git never blocks on a full pipe.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        pipe.map(|mut pipe| {
            std::thread::spawn(move || {
                let mut text = String::new();
                let _ = pipe.read_to_string(&mut text);
                text
            })
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let reader = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let started = Instant::now();
    let status = loop {
        match child.try_wait().map_err(GitError::Spawn)? {
            Some(status) => break status,
            None if started.elapsed() > TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(GitError::Timeout { command });
            }
            None => std::thread::sleep(Duration::from_millis(10)),
        }
    };
    let stderr = reader.and_then(|r| r.join().ok()).unwrap_or_default();
    let stdout = stdout.and_then(|r| r.join().ok()).unwrap_or_default();
    if status.success() {
        return Ok(stdout);
    }
    let mut first: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(STDERR_LINES)
        .collect();
    if first.is_empty() {
        first.push("no error output");
    }
    Err(GitError::Failed {
        command,
        stderr: first.join(" / "),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commits_are_hex() {
        assert!(looks_like_commit("abc1234"));
        assert!(looks_like_commit(&"f".repeat(40)));
        assert!(!looks_like_commit("v1.0.0"));
        assert!(!looks_like_commit("abc"));
        assert!(!looks_like_commit("main"));
    }

    #[test]
    fn a_missing_repository_is_an_error_naming_git_output() {
        let dir = tempfile::tempdir().unwrap();
        let spec = GitSpec {
            url: dir
                .path()
                .join("nothing-here")
                .to_string_lossy()
                .into_owned(),
            reference: None,
        };
        match clone(&spec, &dir.path().join("out")) {
            Err(GitError::Failed { command, stderr }) => {
                assert_eq!(command, "clone");
                assert!(stderr.contains("nothing-here"), "{stderr}");
            }
            other => panic!("{other:?}"),
        }
    }
}
