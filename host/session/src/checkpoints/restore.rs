//! Carrying out a rewind's [`Plan`]: the files as they are now are recorded under a new
//! checkpoint first (so the rewind can be rewound), then each path is put back (a file through
//! a temp file renamed over it), then the states after are recorded.

use super::CheckpointError;
use super::git::Private;
use super::journal::{FileState, Journal, Record};
use super::plan::{FileChange, Plan, Target, git_oids};
use std::collections::{BTreeMap, HashMap};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// What a rewind of the files did.
#[derive(Debug, Clone, Default)]
pub struct Restored {
    /// The paths put back.
    pub restored: Vec<FileChange>,
    /// Paths changed outside pi that were left as they are.
    pub kept: Vec<PathBuf>,
    /// Paths that could not be put back, and why.
    pub failed: Vec<(PathBuf, String)>,
    /// The work tree's snapshot after the rewind.
    pub(crate) tree: Option<String>,
}

pub(crate) fn restore(
    journal: &Journal,
    plan: &Plan,
    rewind_id: &str,
    overwrite_changed: bool,
) -> Result<Restored, CheckpointError> {
    let mut restored = Restored::default();
    let mut applying = Vec::new();
    for change in &plan.changes {
        if change.changed_outside && !overwrite_changed {
            restored.kept.push(change.path.clone());
        } else {
            applying.push(change);
        }
    }
    let mut before = vec![Record::Checkpoint {
        id: rewind_id.to_owned(),
    }];
    for (root, tree) in &plan.now {
        before.push(Record::Tree {
            root: root.clone(),
            tree: tree.clone(),
            after: false,
        });
    }
    for change in &applying {
        before.push(Record::File {
            path: change.path.clone(),
            state: FileState::read(&change.path, Some(journal.blobs()))?,
            after: false,
        });
    }
    journal.append(&before)?;

    let contents = git_contents(journal, plan)?;
    // Files first, then emptied directories, the deepest first.
    let (dirs, files): (Vec<_>, Vec<_>) = applying.into_iter().partition(|change| {
        matches!(
            plan.targets.get(&change.path),
            Some(Target::State(FileState::Absent) | Target::Git(None))
        ) && std::fs::symlink_metadata(&change.path).is_ok_and(|m| m.is_dir())
    });
    let mut after = Vec::new();
    let mut dirs = dirs;
    dirs.sort_by(|a, b| {
        b.path
            .components()
            .count()
            .cmp(&a.path.components().count())
    });
    for change in files.into_iter().chain(dirs) {
        let Some(target) = plan.targets.get(&change.path) else {
            continue;
        };
        match put_back(&change.path, target, journal, &contents) {
            Ok(()) => {
                restored.restored.push(change.clone());
                if let Ok(state) = FileState::read(&change.path, None) {
                    after.push(Record::File {
                        path: change.path.clone(),
                        state,
                        after: true,
                    });
                }
            }
            Err(message) => restored.failed.push((change.path.clone(), message)),
        }
    }
    for (root, tree) in &plan.now {
        let taken =
            Private::open(journal.git_dir(), root).and_then(|private| private.snapshot(Some(tree)));
        if let Ok(tree) = taken {
            after.push(Record::Tree {
                root: root.clone(),
                tree: tree.clone(),
                after: true,
            });
            restored.tree = Some(tree);
        }
    }
    journal.append(&after)?;
    Ok(restored)
}

/// The contents of every git file the plan puts back, by blob id.
fn git_contents(
    journal: &Journal,
    plan: &Plan,
) -> Result<HashMap<String, Vec<u8>>, CheckpointError> {
    let mut contents = HashMap::new();
    for (root, _) in &plan.now {
        let under: BTreeMap<PathBuf, Target> = plan
            .targets
            .iter()
            .filter(|(path, _)| path.starts_with(root))
            .map(|(path, target)| (path.clone(), target.clone()))
            .collect();
        let private = Private::open(journal.git_dir(), root)?;
        contents.extend(private.contents(&git_oids(&under))?);
    }
    Ok(contents)
}

/// Makes `path` what `target` says.
fn put_back(
    path: &Path,
    target: &Target,
    journal: &Journal,
    contents: &HashMap<String, Vec<u8>>,
) -> Result<(), String> {
    match target {
        Target::State(FileState::Absent) | Target::Git(None) => remove(path),
        Target::State(FileState::Dir) => std::fs::create_dir_all(path).map_err(|e| e.to_string()),
        Target::State(FileState::Link { target }) => link(path, target),
        Target::State(FileState::File {
            sha256,
            mode,
            stored,
        }) => {
            if !stored {
                return Err("its content then was not kept".to_owned());
            }
            let bytes = journal.blobs().get(sha256).map_err(|e| e.to_string())?;
            write(path, &bytes, *mode)
        }
        Target::Git(Some(file)) => {
            let bytes = contents
                .get(&file.oid)
                .ok_or_else(|| format!("the snapshot's blob {} is missing", file.oid))?;
            if file.mode == 0o120000 {
                let target = PathBuf::from(String::from_utf8_lossy(bytes).into_owned());
                return link(path, &target);
            }
            write(path, bytes, git_permissions(path, file.mode))
        }
    }
}

/// Permission bits for a git file of `mode`: the file's own when it exists with the same
/// executable bit (git keeps no more), else git's defaults.
fn git_permissions(path: &Path, mode: u32) -> u32 {
    let executable = mode & 0o111 != 0;
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_file() && (meta.permissions().mode() & 0o100 != 0) == executable => {
            meta.permissions().mode() & 0o7777
        }
        _ if executable => 0o755,
        _ => 0o644,
    }
}

fn remove(path: &Path) -> Result<(), String> {
    let result = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => std::fs::remove_dir(path),
        Ok(_) => std::fs::remove_file(path),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(error),
    };
    result.map_err(|e| e.to_string())
}

fn link(path: &Path, target: &Path) -> Result<(), String> {
    make_parent(path)?;
    if std::fs::symlink_metadata(path).is_ok() {
        remove(path)?;
    }
    std::os::unix::fs::symlink(target, path).map_err(|e| e.to_string())
}

fn write(path: &Path, bytes: &[u8], mode: u32) -> Result<(), String> {
    make_parent(path)?;
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        remove(path)?;
    }
    crate::paths::write_atomic(path, bytes).map_err(|e| e.to_string())?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).map_err(|e| e.to_string())
}

fn make_parent(path: &Path) -> Result<(), String> {
    match path.parent() {
        Some(parent) => std::fs::create_dir_all(parent).map_err(|e| e.to_string()),
        None => Ok(()),
    }
}
