//! The live side of checkpoints: told of every user prompt, every path a tool is about to
//! change and every command about to run, it writes the records a rewind needs. One per
//! session's tool set, shared by its children (a subagent's writes belong to the prompt that
//! ran it).

use super::git::{Private, Taken, toplevel};
use super::journal::{FileState, Journal, Record, position};
use super::plan::{Plan, plan};
use super::restore::{Restored, restore};
use super::{CheckpointEntryData, CheckpointError};
use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, mpsc};

/// Changed files a command snapshot takes at most, and the largest file whose content a tool's
/// write keeps, in bytes; past it the change is "not covered" (a build writing a gigabyte must
/// not be copied at every call).
pub const SNAPSHOT_CAP: u64 = 64 * 1024 * 1024;

/// Files under a directory a tool moves or removes whose states are kept, at most.
const DIR_FILES_CAP: usize = 2000;

/// Records checkpoints for one session.
pub struct Recorder {
    cwd: PathBuf,
    /// Paths never recorded (pi's own temp and agent directories).
    ignore: Vec<PathBuf>,
    state: Arc<Mutex<State>>,
    /// The thread that finishes snapshots off the calls' path, one job after another (made
    /// with the first job).
    worker: Mutex<Option<mpsc::Sender<Job>>>,
}

/// Work for the worker thread, on the recorder's state.
type Job = Box<dyn FnOnce(&mut State) + Send>;

#[derive(Default)]
struct State {
    journal: Option<Journal>,
    /// The checkpoint opened by the last prompt, written with its first record.
    mark: Option<String>,
    mark_written: bool,
    /// Paths with a state recorded since the mark.
    seen: HashSet<PathBuf>,
    /// Paths written since the last states after a call.
    dirty: BTreeSet<PathBuf>,
    git: Git,
    /// What the prompt's run recorded.
    files: usize,
    commands: usize,
}

#[derive(Default)]
enum Git {
    #[default]
    Unknown,
    Outside,
    Repo {
        root: PathBuf,
        last: Option<String>,
        /// Whether a tree was recorded since the mark.
        since_mark: bool,
    },
}

impl Recorder {
    /// A recorder for tools working in `cwd`; nothing is recorded until
    /// [`Recorder::set_session`] names a session file.
    pub fn new(cwd: &Path, ignore: Vec<PathBuf>) -> Recorder {
        Recorder {
            cwd: cwd.to_path_buf(),
            ignore,
            state: Arc::new(Mutex::new(State::default())),
            worker: Mutex::new(None),
        }
    }

    /// Records into the checkpoints of `session_file` from now on (`None`: records nothing).
    pub fn set_session(&self, session_file: Option<&Path>) {
        self.flush();
        let mut state = pi_ai::lock(&self.state);
        let journal = session_file.map(Journal::for_session);
        if journal.as_ref().map(Journal::dir) != state.journal.as_ref().map(Journal::dir) {
            *state = State {
                journal,
                ..State::default()
            };
        }
    }

    /// The session's checkpoint store, if any.
    pub fn journal(&self) -> Option<Journal> {
        pi_ai::lock(&self.state).journal.clone()
    }

    /// Opens the checkpoint `id` (a user prompt's entry id in `session_file`): what follows
    /// belongs to it.
    pub fn start(&self, session_file: Option<&Path>, id: &str) {
        self.set_session(session_file);
        let mut state = pi_ai::lock(&self.state);
        state.mark = Some(id.to_owned());
        state.mark_written = false;
        state.seen.clear();
        state.files = 0;
        state.commands = 0;
        if let Git::Repo { since_mark, .. } = &mut state.git {
            *since_mark = false;
        }
    }

    /// Keeps what `path` is before a tool changes it (the first time since the prompt).
    pub fn before_write(&self, path: &Path) {
        if self.ignore.iter().any(|dir| path.starts_with(dir)) {
            return;
        }
        let mut state = pi_ai::lock(&self.state);
        let Some(journal) = state.journal.clone() else {
            return;
        };
        state.dirty.insert(path.to_path_buf());
        if !state.seen.insert(path.to_path_buf()) {
            return;
        }
        let mut records = Vec::new();
        for path in with_files_below(path) {
            let size = std::fs::symlink_metadata(&path).map_or(0, |m| m.len());
            if size > SNAPSHOT_CAP {
                records.push(Record::Uncovered {
                    tool: "write".to_owned(),
                    reason: format!(
                        "{} was {} MB, past the {} MB cap",
                        path.display(),
                        size / (1024 * 1024),
                        SNAPSHOT_CAP / (1024 * 1024)
                    ),
                });
                continue;
            }
            match FileState::read(&path, Some(journal.blobs())) {
                Ok(state) => records.push(Record::File {
                    path,
                    state,
                    after: false,
                }),
                Err(error) => tracing::warn!("no checkpoint of {}: {error}", path.display()),
            }
        }
        state.files += 1;
        state.write(&journal, records);
    }

    /// Keeps what the paths written by the calls that ended are now (hashed on the worker),
    /// so that a later rewind can tell a change of the user's from the tool's.
    pub fn after_tool(&self) {
        let dirty = std::mem::take(&mut pi_ai::lock(&self.state).dirty);
        if dirty.is_empty() {
            return;
        }
        self.queue(Box::new(move |state| {
            let Some(journal) = state.journal.clone() else {
                return;
            };
            let records = dirty
                .into_iter()
                .filter_map(|path| {
                    let now = FileState::read(&path, None).ok()?;
                    Some(Record::File {
                        path,
                        state: now,
                        after: true,
                    })
                })
                .collect();
            state.write(&journal, records);
        }));
    }

    /// Takes a snapshot of the work tree before the command `tool` runs: the status check and
    /// the changed files' contents now, the tree made by the worker.
    pub fn before_command(&self, tool: &str) {
        self.flush();
        let mut state = pi_ai::lock(&self.state);
        if state.journal.is_none() {
            return;
        }
        state.commands += 1;
        if let Some((private, paths)) = state.take(&self.cwd, tool, false) {
            let kept = state.keep_before(&private, &paths);
            drop(state);
            let tool = tool.to_owned();
            self.queue(Box::new(move |state| {
                state.finish_kept(&private, &kept, &tool);
            }));
        }
    }

    /// Takes a snapshot of the work tree after the command `tool` ran, on the worker: the next
    /// record waits for it, the call's result does not.
    pub fn after_command(&self, tool: &str) {
        let (cwd, tool) = (self.cwd.clone(), tool.to_owned());
        self.queue(Box::new(move |state| {
            if state.journal.is_some()
                && let Some((private, paths)) = state.take(&cwd, &tool, true)
            {
                let made = private.finish(&paths);
                state.record_tree(&private, made, (&tool, true));
            }
        }));
    }

    /// Hands `job` to the worker (started on first use; where it cannot run, the job runs
    /// here).
    fn queue(&self, job: Job) {
        let mut worker = pi_ai::lock(&self.worker);
        let sender = worker.get_or_insert_with(|| {
            let (sender, jobs) = mpsc::channel::<Job>();
            let state = Arc::clone(&self.state);
            let spawned = std::thread::Builder::new()
                .name("pi-checkpoints".to_owned())
                .spawn(move || {
                    for job in jobs {
                        job(&mut pi_ai::lock(&state));
                    }
                });
            if let Err(error) = spawned {
                tracing::warn!("checkpoint snapshots run on the calls' path: {error}");
            }
            sender
        });
        if let Err(mpsc::SendError(job)) = sender.send(job) {
            *worker = None;
            drop(worker);
            job(&mut pi_ai::lock(&self.state));
        }
    }

    /// Waits for the worker's jobs so far.
    pub fn flush(&self) {
        if pi_ai::lock(&self.worker).is_none() {
            return;
        }
        let (done, finished) = mpsc::channel();
        self.queue(Box::new(move |_| {
            let _ = done.send(());
        }));
        let _ = finished.recv();
    }

    /// What the prompt's run recorded, once (`None`: nothing): the data of the session entry
    /// that says so.
    pub fn finish_run(&self) -> Option<CheckpointEntryData> {
        self.flush();
        let mut state = pi_ai::lock(&self.state);
        if !state.mark_written {
            return None;
        }
        let data = CheckpointEntryData {
            checkpoint: state.mark.clone()?,
            files: state.files,
            commands: state.commands,
        };
        state.mark_written = false;
        Some(data)
    }

    /// The ids of the checkpoints the journal holds, in order.
    pub fn checkpoints(&self) -> Vec<String> {
        self.flush();
        let Some(journal) = self.journal() else {
            return Vec::new();
        };
        journal
            .records()
            .unwrap_or_default()
            .into_iter()
            .filter_map(|record| match record {
                Record::Checkpoint { id } => Some(id),
                _ => None,
            })
            .collect()
    }

    /// What rewinding the files to checkpoint `id` would change.
    pub fn plan(&self, id: &str) -> Result<Plan, CheckpointError> {
        self.flush();
        let mut state = pi_ai::lock(&self.state);
        let journal = state.journal.clone().ok_or_else(no_store)?;
        let records = journal.records()?;
        let start =
            position(&records, id).ok_or_else(|| CheckpointError::Unknown(id.to_owned()))?;
        let plan = plan(&journal, &records[start + 1..], id)?;
        // The plan's snapshot moved the private index: the next status check is against it.
        if let Git::Repo { root, last, .. } = &mut state.git
            && let Some((_, tree)) = plan.now.iter().find(|(at, _)| at == root)
        {
            *last = Some(tree.clone());
        }
        Ok(plan)
    }

    /// Puts the files back as `plan` says, under the new checkpoint `rewind_id` (which holds
    /// the files as they were, so the rewind itself can be rewound). Files changed outside pi
    /// are overwritten only when `overwrite_changed` says so.
    pub fn rewind(
        &self,
        plan: &Plan,
        rewind_id: &str,
        overwrite_changed: bool,
    ) -> Result<Restored, CheckpointError> {
        self.flush();
        let mut state = pi_ai::lock(&self.state);
        let journal = state.journal.clone().ok_or_else(no_store)?;
        let restored = restore(&journal, plan, rewind_id, overwrite_changed)?;
        // The private index and the last tree now describe the restored work tree.
        state.mark = None;
        state.mark_written = false;
        state.seen.clear();
        if let Git::Repo { last, .. } = &mut state.git {
            *last = restored.tree.clone();
        }
        Ok(restored)
    }
}

fn no_store() -> CheckpointError {
    CheckpointError::Unknown("(this session keeps no checkpoints)".to_owned())
}

impl State {
    /// Appends `records`, after the pending checkpoint record when it is not written yet.
    fn write(&mut self, journal: &Journal, mut records: Vec<Record>) {
        if records.is_empty() {
            return;
        }
        if !self.mark_written
            && let Some(id) = &self.mark
        {
            records.insert(0, Record::Checkpoint { id: id.clone() });
            self.mark_written = true;
        }
        if let Err(error) = journal.append(&records) {
            tracing::warn!("checkpoint not recorded: {error}");
        }
    }

    /// The first part of a snapshot (see [`Private::take`]): what is left to do, if anything;
    /// what needs no more is recorded here.
    fn take(&mut self, cwd: &Path, tool: &str, after: bool) -> Option<(Private, Vec<String>)> {
        let journal = self.journal.clone()?;
        if matches!(self.git, Git::Unknown) {
            self.git = match toplevel(cwd) {
                Some(root) => Git::Repo {
                    root,
                    last: None,
                    since_mark: false,
                },
                None => Git::Outside,
            };
        }
        let uncovered = |reason: String| Record::Uncovered {
            tool: tool.to_owned(),
            reason,
        };
        let record = match &mut self.git {
            Git::Unknown | Git::Outside => (!after).then(|| {
                uncovered(format!(
                    "{} is not in a git work tree (or git cannot run)",
                    cwd.display()
                ))
            }),
            Git::Repo {
                root,
                last,
                since_mark,
            } => {
                let taken = Private::open(journal.git_dir(), root).and_then(|private| {
                    Ok((private.take(last.as_deref(), Some(SNAPSHOT_CAP))?, private))
                });
                match taken {
                    Ok((Taken::Changed(paths), private)) => return Some((private, paths)),
                    Ok((Taken::Same(tree), _)) => {
                        let record = (!*since_mark).then(|| Record::Tree {
                            root: root.clone(),
                            tree,
                            after,
                        });
                        *since_mark = true;
                        record
                    }
                    Ok((Taken::TooBig(bytes, _), _)) => Some(uncovered(format!(
                        "the changed files ({} MB) pass the {} MB snapshot cap",
                        bytes / (1024 * 1024),
                        SNAPSHOT_CAP / (1024 * 1024)
                    ))),
                    Err(error) => Some(uncovered(error.to_string())),
                }
            }
        };
        self.write(&journal, record.into_iter().collect());
        None
    }

    /// Keeps the contents of `paths` (relative to the work tree) as they are before a command,
    /// so that the tree can be made from them while it runs; returns what was kept.
    fn keep_before(&mut self, private: &Private, paths: &[String]) -> Vec<(String, FileState)> {
        let Some(journal) = self.journal.clone() else {
            return Vec::new();
        };
        let mut kept = Vec::new();
        let mut records = Vec::new();
        for relative in paths {
            let path = private.root().join(relative);
            match FileState::read(&path, Some(journal.blobs())) {
                Ok(state) => {
                    kept.push((relative.clone(), state.clone()));
                    records.push(Record::File {
                        path,
                        state,
                        after: false,
                    });
                }
                Err(error) => tracing::warn!("no checkpoint of {}: {error}", path.display()),
            }
        }
        self.write(&journal, records);
        kept
    }

    /// The tree before the command `tool`, from what [`State::keep_before`] kept.
    fn finish_kept(&mut self, private: &Private, kept: &[(String, FileState)], tool: &str) {
        let Some(journal) = self.journal.clone() else {
            return;
        };
        let made = private.finish_kept(kept, journal.blobs());
        self.record_tree(private, made, (tool, false));
    }

    /// Records the tree a snapshot around the command `tool` made (or why it could not).
    fn record_tree(
        &mut self,
        private: &Private,
        made: Result<String, CheckpointError>,
        (tool, after): (&str, bool),
    ) {
        let Some(journal) = self.journal.clone() else {
            return;
        };
        let record = match made {
            Ok(tree) => {
                if let Git::Repo {
                    last, since_mark, ..
                } = &mut self.git
                {
                    *last = Some(tree.clone());
                    *since_mark = true;
                }
                Record::Tree {
                    root: private.root().to_path_buf(),
                    tree,
                    after,
                }
            }
            Err(error) => Record::Uncovered {
                tool: tool.to_owned(),
                reason: error.to_string(),
            },
        };
        self.write(&journal, vec![record]);
    }
}

/// `path`, and when it is a directory the files below it (a move or removal takes them too).
fn with_files_below(path: &Path) -> Vec<PathBuf> {
    let mut paths = vec![path.to_path_buf()];
    let is_dir = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir());
    if is_dir {
        let below = ignore::WalkBuilder::new(path)
            .standard_filters(false)
            .build()
            .flatten()
            .skip(1)
            .take(DIR_FILES_CAP)
            .map(|entry| entry.into_path());
        paths.extend(below);
    }
    paths
}
