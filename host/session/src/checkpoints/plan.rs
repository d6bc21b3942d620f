//! What a rewind to a checkpoint changes: for every path recorded since, the first state
//! recorded after the checkpoint (the state then), compared with the path now; and which of
//! those paths were changed by someone else than pi since pi last saw them.

use super::CheckpointError;
use super::git::{Private, TreeFile};
use super::journal::{FileState, Journal, Record};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// What happened to a path since the checkpoint (the rewind undoes it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ChangeKind {
    Modified,
    Created,
    Deleted,
}

/// One path a rewind puts back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileChange {
    pub path: PathBuf,
    pub change: ChangeKind,
    /// Changed since pi last wrote or saw it (by the user, an editor, another program).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub changed_outside: bool,
}

/// What a path is to become.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// A state from a file record (its content in the blob store).
    State(FileState),
    /// A file of a git snapshot (`None`: absent from it).
    Git(Option<TreeFile>),
}

/// A rewind of the files to one checkpoint, before it is carried out.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub checkpoint: String,
    pub changes: Vec<FileChange>,
    /// Changes made since that no record holds, one line each.
    pub not_covered: Vec<String>,
    pub(crate) targets: BTreeMap<PathBuf, Target>,
    /// Per git work tree: the tree now (taken for the plan).
    pub(crate) now: Vec<(PathBuf, String)>,
}

impl Plan {
    /// The paths changed outside pi since pi last saw them.
    pub fn changed_outside(&self) -> impl Iterator<Item = &Path> {
        self.changes
            .iter()
            .filter(|c| c.changed_outside)
            .map(|c| c.path.as_path())
    }
}

/// Per path: the index of the first and the last record of it, with their states.
#[derive(Default)]
struct Seen {
    first: BTreeMap<PathBuf, (usize, FileState)>,
    last: BTreeMap<PathBuf, (usize, FileState)>,
}

/// Per git work tree: its first and last tree after the checkpoint.
struct Trees {
    first: (usize, String),
    last: (usize, String),
}

/// The plan of a rewind to `checkpoint`, whose records are `records` (everything after it).
pub(crate) fn plan(
    journal: &Journal,
    records: &[Record],
    checkpoint: &str,
) -> Result<Plan, CheckpointError> {
    let mut seen = Seen::default();
    let mut trees: BTreeMap<PathBuf, Trees> = BTreeMap::new();
    let mut not_covered = BTreeSet::new();
    for (index, record) in records.iter().enumerate() {
        match record {
            Record::Checkpoint { .. } => {}
            Record::File { path, state, .. } => {
                seen.first
                    .entry(path.clone())
                    .or_insert_with(|| (index, state.clone()));
                seen.last.insert(path.clone(), (index, state.clone()));
            }
            Record::Tree { root, tree, .. } => {
                let at = (index, tree.clone());
                trees
                    .entry(root.clone())
                    .and_modify(|t| t.last = at.clone())
                    .or_insert(Trees {
                        first: at.clone(),
                        last: at,
                    });
            }
            Record::Uncovered { tool, reason } => {
                not_covered.insert(format!("`{tool}`: {reason}"));
            }
        }
    }
    let mut plan = Plan {
        checkpoint: checkpoint.to_owned(),
        ..Plan::default()
    };
    let mut outside = BTreeSet::new();
    for (root, at) in &trees {
        not_covered.insert(format!(
            "changes by commands to files git ignores in {}, or outside it",
            root.display()
        ));
        let private = Private::open(journal.git_dir(), root)?;
        let now = private.snapshot(None)?;
        git_targets(&private, at, &now, &seen, &mut plan.targets, &mut outside)?;
        plan.now.push((root.clone(), now));
    }
    for (path, (_, state)) in &seen.first {
        if plan.targets.contains_key(path) {
            continue;
        }
        let now = FileState::read(path, None)?;
        if now.same_as(state) {
            continue;
        }
        if let Some((_, last)) = seen.last.get(path)
            && !now.same_as(last)
        {
            outside.insert(path.clone());
        }
        plan.targets
            .insert(path.clone(), Target::State(state.clone()));
    }
    plan.changes = changes(&plan.targets, &outside)?;
    plan.not_covered = not_covered.into_iter().collect();
    Ok(plan)
}

/// The targets of the paths that differ between the first tree after the checkpoint and the
/// tree now, unless a file record before that tree says what the path was.
fn git_targets(
    private: &Private,
    trees: &Trees,
    now: &str,
    seen: &Seen,
    targets: &mut BTreeMap<PathBuf, Target>,
    outside: &mut BTreeSet<PathBuf>,
) -> Result<(), CheckpointError> {
    let differing = private.differing(&trees.first.1, now)?;
    if differing.is_empty() {
        return Ok(());
    }
    let first = private.files(&trees.first.1)?;
    let last = private.files(&trees.last.1)?;
    let current = private.files(now)?;
    for relative in differing {
        let path = private.root().join(&relative);
        let target = match seen.first.get(&path) {
            Some((index, state)) if *index < trees.first.0 => Target::State(state.clone()),
            _ => Target::Git(first.get(&relative).cloned()),
        };
        let changed_outside = match seen.last.get(&path) {
            Some((index, state)) if *index > trees.last.0 => {
                !FileState::read(&path, None)?.same_as(state)
            }
            _ => last.get(&relative) != current.get(&relative),
        };
        if changed_outside {
            outside.insert(path.clone());
        }
        targets.insert(path, target);
    }
    Ok(())
}

fn changes(
    targets: &BTreeMap<PathBuf, Target>,
    outside: &BTreeSet<PathBuf>,
) -> Result<Vec<FileChange>, CheckpointError> {
    let mut changes = Vec::new();
    for (path, target) in targets {
        let exists_now = !matches!(FileState::read(path, None)?, FileState::Absent);
        let existed = match target {
            Target::State(state) => !matches!(state, FileState::Absent),
            Target::Git(file) => file.is_some(),
        };
        let change = match (existed, exists_now) {
            (true, true) => ChangeKind::Modified,
            (false, true) => ChangeKind::Created,
            (true, false) => ChangeKind::Deleted,
            (false, false) => continue,
        };
        changes.push(FileChange {
            path: path.clone(),
            change,
            changed_outside: outside.contains(path),
        });
    }
    Ok(changes)
}

/// The git files of `targets`, by blob id, for reading their contents at once.
pub(crate) fn git_oids(targets: &BTreeMap<PathBuf, Target>) -> Vec<&str> {
    let oids: BTreeSet<&str> = targets
        .values()
        .filter_map(|t| match t {
            Target::Git(Some(file)) => Some(file.oid.as_str()),
            _ => None,
        })
        .collect();
    oids.into_iter().collect()
}
