//! `pi ext approve <package> [-l]`: approves one package that was not installed with `pi ext
//! install` — placed by hand in `extensions/` (of the agent directory, or with `-l` of the
//! project's `.pi`), or named by a project lock entry that `pi ext install` did not write on
//! this machine. The user sees its name, version, source, the hash of every file and every
//! capability it asks for, and the approval records exactly those
//! (`pi_ext_host::approvals`): a later change of a file or of what it asks voids it.

use super::{Approval, Failure, bullets};
use pi_ext_host::approvals::{Approvals, approval_of, canonical_dir};
use pi_ext_host::lockfile::{LOCK_FILE, LockFile, LockedPackage};
use pi_ext_host::{Capabilities, Manifest};
use pi_packages::scope::Scope;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

/// What is to be approved.
enum Candidate {
    /// A package folder placed by hand.
    Placed { dir: PathBuf, manifest: Manifest },
    /// A lock entry of the project with no matching record.
    Locked {
        entry: Box<LockedPackage>,
        manifest: Manifest,
    },
}

/// Runs `pi ext approve`.
pub(super) fn approve(
    key: &str,
    scope: &Scope,
    env: &pi_app::startup::StartupEnv,
    approval: &Approval,
) -> Result<(), Failure> {
    let candidate = find(key, scope, env)?;
    let (manifest, record) = match &candidate {
        Candidate::Placed { dir, manifest } => {
            let record = approval_of(
                dir,
                manifest,
                "placed by hand",
                manifest.capabilities.clone(),
            )
            .map_err(|e| Failure::Error(e.to_string()))?;
            (manifest, record)
        }
        Candidate::Locked { entry, manifest } => {
            entry.verify().map_err(|e| Failure::Error(e.to_string()))?;
            (manifest, (**entry).clone())
        }
    };
    let shown = describe(manifest, &record);
    tell!("{shown}");
    let asks = &record.approved;
    if !consented(approval, asks)? {
        return Err(Failure::Error("not approved".to_owned()));
    }
    Approvals::record(&env.agent_dir, record.clone()).map_err(|e| Failure::Error(e.to_string()))?;
    let words = asks.plain_words();
    say!(
        "Approved {} {} ({})",
        record.name,
        record.version,
        record.path.display()
    );
    if !words.is_empty() {
        say!("  granted: {}", words.join("; "));
    }
    Ok(())
}

/// The package `key` names: a folder holding a manifest, or the name of a package in the
/// scope's `extensions/` folder, or (project scope) of a lock entry.
fn find(key: &str, scope: &Scope, env: &pi_app::startup::StartupEnv) -> Result<Candidate, Failure> {
    let as_dir = env.cwd.join(pi_session::paths::expand_tilde(key));
    if as_dir.join("pi-extension.toml").is_file() {
        return placed(&as_dir);
    }
    let folder = scope.dir.join("extensions");
    if let Ok(entries) = std::fs::read_dir(&folder) {
        for entry in entries.flatten() {
            let dir = entry.path();
            if Manifest::load(&dir).is_ok_and(|m| m.name == key)
                || entry.file_name().to_string_lossy() == key
            {
                return placed(&dir);
            }
        }
    }
    let lock =
        LockFile::load(&scope.dir.join(LOCK_FILE)).map_err(|e| Failure::Error(e.to_string()))?;
    if let Some(entry) = lock.find_by_name_or_source(key) {
        let manifest = Manifest::load(&entry.path).map_err(|e| Failure::Error(e.to_string()))?;
        return Ok(Candidate::Locked {
            entry: Box::new(entry.clone()),
            manifest,
        });
    }
    Err(Failure::Error(format!(
        "no package \"{key}\" to approve: not a package folder, nothing of that name in {}, \
         and no entry of that name in {}",
        folder.display(),
        scope.dir.join(LOCK_FILE).display()
    )))
}

fn placed(dir: &Path) -> Result<Candidate, Failure> {
    let dir = canonical_dir(dir);
    let manifest = Manifest::load(&dir).map_err(|e| Failure::Error(e.to_string()))?;
    Ok(Candidate::Placed { dir, manifest })
}

/// Everything the approval covers, as the user is shown it.
fn describe(manifest: &Manifest, record: &LockedPackage) -> String {
    let mut out = format!(
        "{} {}\n  source: {}\n  path: {}\n  files (sha256):\n",
        &manifest.name,
        &manifest.version,
        &record.source,
        record.path.display()
    );
    if record.files.is_empty() {
        out.push_str("    (a local folder, loaded as it is)\n");
    }
    for (file, hash) in &record.files {
        out.push_str(&format!("    {hash}  {}\n", file));
    }
    let words = record.approved.plain_words();
    if words.is_empty() {
        out.push_str("  asks for no capability");
    } else {
        out.push_str(&format!("  asks to:\n{}", bullets(&words)));
    }
    out
}

/// Whether the user approves `asks`: `--yes` or every capability by `--grant`, else the answer
/// on the terminal; without a terminal nobody can be asked, and nothing is approved.
fn consented(approval: &Approval, asks: &Capabilities) -> Result<bool, Failure> {
    let granted = super::parse_grants(&approval.grants).map_err(Failure::Error)?;
    if approval.yes || asks.beyond(&granted).is_empty() {
        return Ok(true);
    }
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return Err(Failure::Refused(
            "Not approved: nobody was asked. Run again with --yes, or with --grant for each \
             capability."
                .to_owned(),
        ));
    }
    let mut err = std::io::stderr();
    let _ = write!(err, "Approve? [y/N] ");
    let _ = err.flush();
    let mut line = String::new();
    if std::io::stdin().lock().read_line(&mut line).is_err() {
        return Ok(false);
    }
    Ok(matches!(
        line.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
}
