//! The grants ledger: the approval rules of this session (in memory), of the project
//! (`<cwd>/.pi/approvals.json`) and of the user (`<agentDir>/approvals.json`).
//!
//! The files are changed only under their lock ([`pi_ai::file_lock::FileLock`]), re-read under
//! it (two pi processes adding rules keep both) and written atomically. Rule ids (`p<n>`,
//! `g<n>`) are never reused within a file: the file keeps the next number.
//!
//! Nobody but pi may write the project file: a tool, an extension, `bash` or a `git pull` could
//! otherwise grant the agent whatever it likes. When pi writes it, it records the file's SHA-256
//! in the global file (project path → digest); a project file whose digest differs is not
//! honoured until `pi grants clear --project` resets it. (pi's own tools and the extensions are
//! also refused the file by the host, see `startup::protected_paths`.) The project file is read
//! only when the project is trusted.

use super::rules::{CallFacts, Rule, RuleKind, Scope, command_parts};
use pi_ai::file_lock::FileLock;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// The name of the rules file in the agent directory and in the project's `.pi`.
pub const FILE_NAME: &str = "approvals.json";

/// The project file's path for the workspace `cwd`.
pub fn project_path(cwd: &Path) -> PathBuf {
    cwd.join(".pi").join(FILE_NAME)
}

/// Why a ledger change was refused. Nothing was written when one is returned.
#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    #[error("no approval rule with id {0} (see `pi grants list`)")]
    NotFound(String),
    #[error("{} is not a valid approvals file ({reason}); fix or remove it, nothing was changed", path.display())]
    Malformed { path: PathBuf, reason: String },
    #[error("{} was changed outside pi, so its rules are not used; check it, then run `pi grants clear --project` to reset it", path.display())]
    Changed { path: PathBuf },
    #[error("this project is not trusted, so it keeps no approval rules")]
    ProjectNotTrusted,
    #[error("cannot write {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Whether the project file's rules are used, and if not, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProjectFile {
    /// There is none.
    Absent,
    /// Its rules are used.
    Honoured,
    /// The project is not trusted: the file is not read.
    Untrusted,
    /// It is not the file pi last wrote (or pi never wrote it).
    Changed,
    /// It (or the global file its digest is recorded in) cannot be read as approvals.
    Malformed(String),
}

/// One rules file as stored.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RulesFile {
    /// The number the next rule's id gets.
    #[serde(default)]
    next_id: u64,
    #[serde(default)]
    rules: Vec<StoredRule>,
    /// Global file only: the SHA-256 of each project file as pi last wrote it, by the project's
    /// canonical path.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    projects: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct StoredRule {
    id: String,
    #[serde(flatten)]
    kind: StoredKind,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum StoredKind {
    Command(String),
    Path(String),
    Tool(String),
}

impl RulesFile {
    fn parse(bytes: &[u8], scope: Scope) -> Result<Self, String> {
        let file: RulesFile = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        let mut seen = std::collections::HashSet::new();
        for rule in &file.rules {
            if id_number(&rule.id, scope).is_none() || !seen.insert(rule.id.as_str()) {
                return Err(format!("bad or repeated rule id {:?}", rule.id));
            }
        }
        Ok(file)
    }

    fn rules(&self, scope: Scope) -> Vec<Rule> {
        self.rules
            .iter()
            .map(|stored| Rule {
                id: stored.id.clone(),
                scope,
                kind: match &stored.kind {
                    StoredKind::Command(text) => RuleKind::Command(text.clone()),
                    StoredKind::Path(text) => RuleKind::Path(text.clone()),
                    StoredKind::Tool(text) => RuleKind::Tool(text.clone()),
                },
            })
            .collect()
    }

    /// Adds `kind` (or finds it already there) and returns its id.
    fn add(&mut self, scope: Scope, kind: &RuleKind) -> String {
        let stored = match kind {
            RuleKind::Command(text) => StoredKind::Command(text.clone()),
            RuleKind::Path(text) => StoredKind::Path(text.clone()),
            RuleKind::Tool(text) => StoredKind::Tool(text.clone()),
        };
        if let Some(existing) = self.rules.iter().find(|r| same(&r.kind, &stored)) {
            return existing.id.clone();
        }
        let used = self
            .rules
            .iter()
            .filter_map(|r| id_number(&r.id, scope))
            .max()
            .unwrap_or(0);
        let n = self.next_id.max(used + 1).max(1);
        self.next_id = n + 1;
        let id = format!("{}{n}", scope.id_prefix());
        self.rules.push(StoredRule {
            id: id.clone(),
            kind: stored,
        });
        id
    }

    fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }
}

fn same(a: &StoredKind, b: &StoredKind) -> bool {
    match (a, b) {
        (StoredKind::Command(a), StoredKind::Command(b))
        | (StoredKind::Path(a), StoredKind::Path(b))
        | (StoredKind::Tool(a), StoredKind::Tool(b)) => a == b,
        _ => false,
    }
}

fn id_number(id: &str, scope: Scope) -> Option<u64> {
    id.strip_prefix(scope.id_prefix())?.parse().ok()
}

fn digest(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

/// What reading a rules file found.
enum Read {
    Absent,
    Found { file: RulesFile, bytes: Vec<u8> },
    Malformed(String),
}

fn read(path: &Path, scope: Scope) -> Read {
    match std::fs::read(path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Read::Absent,
        Err(error) => Read::Malformed(error.to_string()),
        Ok(bytes) => match RulesFile::parse(&bytes, scope) {
            Ok(file) => Read::Found { file, bytes },
            Err(reason) => Read::Malformed(reason),
        },
    }
}

/// The rules of one session, its project and its user. `Send + Sync`; every method takes
/// `&self`.
#[derive(Debug)]
pub struct Ledger {
    global_path: PathBuf,
    project_path: PathBuf,
    /// The key of this project in the global file's digests.
    project_key: String,
    project_trusted: bool,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    session: Vec<Rule>,
    next_session: u64,
    project: Vec<Rule>,
    project_file: Option<ProjectFile>,
    global: Vec<Rule>,
}

impl Ledger {
    /// Reads the global rules and, when `project_trusted`, the project's. The warnings name
    /// each file whose rules are not used and why.
    pub fn load(agent_dir: &Path, cwd: &Path, project_trusted: bool) -> (Ledger, Vec<String>) {
        let ledger = Ledger {
            global_path: agent_dir.join(FILE_NAME),
            project_path: project_path(cwd),
            project_key: std::fs::canonicalize(cwd)
                .unwrap_or_else(|_| cwd.to_path_buf())
                .to_string_lossy()
                .into_owned(),
            project_trusted,
            inner: Mutex::new(Inner::default()),
        };
        let mut warnings = Vec::new();
        let global = read(&ledger.global_path, Scope::Global);
        let mut inner = Inner::default();
        match &global {
            Read::Found { file, .. } => inner.global = file.rules(Scope::Global),
            Read::Malformed(reason) => warnings.push(format!(
                "Warning: {} is not a valid approvals file ({reason}); its rules are not used.",
                ledger.global_path.display()
            )),
            Read::Absent => {}
        }
        let (status, rules) = ledger.project_state(&global);
        match &status {
            ProjectFile::Changed => warnings.push(format!(
                "Warning: {} was changed outside pi, so its approval rules are not used. Check \
                 it, then run `pi grants clear --project` to reset it.",
                ledger.project_path.display()
            )),
            ProjectFile::Malformed(reason) => warnings.push(format!(
                "Warning: {} is not a valid approvals file ({reason}); its rules are not used.",
                ledger.project_path.display()
            )),
            _ => {}
        }
        inner.project = rules;
        inner.project_file = Some(status);
        *ledger.lock() = inner;
        (ledger, warnings)
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether the project file's rules are used, and its rules when they are.
    fn project_state(&self, global: &Read) -> (ProjectFile, Vec<Rule>) {
        let project = read(&self.project_path, Scope::Project);
        if matches!(project, Read::Absent) {
            return (ProjectFile::Absent, Vec::new());
        }
        if !self.project_trusted {
            return (ProjectFile::Untrusted, Vec::new());
        }
        let recorded = match global {
            Read::Found { file, .. } => file.projects.get(&self.project_key),
            Read::Absent => None,
            Read::Malformed(_) => {
                let reason = format!("its digest is kept in {}", self.global_path.display());
                return (ProjectFile::Malformed(reason), Vec::new());
            }
        };
        match project {
            Read::Found { file, bytes } if recorded == Some(&digest(&bytes)) => {
                (ProjectFile::Honoured, file.rules(Scope::Project))
            }
            Read::Malformed(reason) => (ProjectFile::Malformed(reason), Vec::new()),
            _ => (ProjectFile::Changed, Vec::new()),
        }
    }

    /// Whether the project file's rules are used (as loaded or last changed by this ledger).
    pub fn project_file(&self) -> ProjectFile {
        self.lock()
            .project_file
            .clone()
            .unwrap_or(ProjectFile::Absent)
    }

    /// The global file's path.
    pub fn global_path(&self) -> &Path {
        &self.global_path
    }

    /// The project file's path.
    pub fn project_path(&self) -> &Path {
        &self.project_path
    }

    /// The first rule that allows `call`, or `None` (the call asks). A compound `bash` command
    /// is allowed when every part is allowed by some command rule; the rule returned is the
    /// first part's.
    pub fn matching(&self, call: &CallFacts<'_>) -> Option<Rule> {
        let rules = self.rules();
        if let Some(rule) = rules.iter().find(|rule| rule.kind.matches(call)) {
            return Some(rule.clone());
        }
        if call.tool != "bash" {
            return None;
        }
        let command = call.args.get("command")?.as_str()?;
        let parts = command_parts(command)?;
        let mut first = None;
        for part in &parts {
            let rule = rules.iter().find(|rule| rule.kind.allows_part(part))?;
            first.get_or_insert(rule);
        }
        first.cloned()
    }

    /// Every rule in use: the session's, then the project's, then the global ones.
    pub fn rules(&self) -> Vec<Rule> {
        let inner = self.lock();
        let mut all = inner.session.clone();
        all.extend(inner.project.iter().cloned());
        all.extend(inner.global.iter().cloned());
        all
    }

    /// Records a rule in `scope` (an identical rule already there is returned instead).
    pub fn add(&self, scope: Scope, kind: RuleKind) -> Result<Rule, LedgerError> {
        match scope {
            Scope::Session => {
                let mut inner = self.lock();
                if let Some(rule) = inner.session.iter().find(|r| r.kind == kind) {
                    return Ok(rule.clone());
                }
                inner.next_session += 1;
                let rule = Rule {
                    id: format!("s{}", inner.next_session),
                    scope,
                    kind,
                };
                inner.session.push(rule.clone());
                Ok(rule)
            }
            Scope::Project => {
                if !self.project_trusted {
                    return Err(LedgerError::ProjectNotTrusted);
                }
                let id = self.change_project(false, |file| Ok(file.add(scope, &kind)))?;
                Ok(Rule { id, scope, kind })
            }
            Scope::Global => {
                let id = self.change_global(false, |file| Ok(file.add(scope, &kind)))?;
                Ok(Rule { id, scope, kind })
            }
        }
    }

    /// Removes the rule `id` from its scope.
    pub fn revoke(&self, id: &str) -> Result<Rule, LedgerError> {
        let not_found = || LedgerError::NotFound(id.to_owned());
        let take = |file: &mut RulesFile, scope: Scope| {
            let at = file
                .rules
                .iter()
                .position(|r| r.id == id)
                .ok_or_else(not_found)?;
            let rule = file.rules(scope).swap_remove(at);
            file.rules.remove(at);
            Ok(rule)
        };
        match id.chars().next() {
            Some('s') => {
                let mut inner = self.lock();
                let at = inner
                    .session
                    .iter()
                    .position(|r| r.id == id)
                    .ok_or_else(not_found)?;
                Ok(inner.session.remove(at))
            }
            Some('p') => self.change_project(false, |file| take(file, Scope::Project)),
            Some('g') => self.change_global(false, |file| take(file, Scope::Global)),
            _ => Err(not_found()),
        }
    }

    /// Removes every rule of `scope` and returns how many there were. Clearing the project
    /// file also resets one that was changed outside pi or cannot be read.
    pub fn clear(&self, scope: Scope) -> Result<usize, LedgerError> {
        let clear = |file: &mut RulesFile| Ok(std::mem::take(&mut file.rules).len());
        match scope {
            Scope::Session => Ok(std::mem::take(&mut self.lock().session).len()),
            Scope::Project => self.change_project(true, clear),
            Scope::Global => self.change_global(true, clear),
        }
    }

    /// Applies `change` to the global file under its lock, re-read first. `reset`: a file that
    /// cannot be read is replaced by an empty one (otherwise the change is refused).
    fn change_global<T>(
        &self,
        reset: bool,
        change: impl FnOnce(&mut RulesFile) -> Result<T, LedgerError>,
    ) -> Result<T, LedgerError> {
        let _lock = self.file_lock(&self.global_path)?;
        let mut file = self.read_for_change(&self.global_path, Scope::Global, reset)?;
        let out = change(&mut file)?;
        self.write(&self.global_path, &file.to_bytes())?;
        self.lock().global = file.rules(Scope::Global);
        Ok(out)
    }

    /// Applies `change` to the project file under its lock and the global file's, both re-read
    /// first; then records the new file's digest in the global file. `reset`: a project file
    /// changed outside pi or unreadable is replaced (otherwise the change is refused).
    fn change_project<T>(
        &self,
        reset: bool,
        change: impl FnOnce(&mut RulesFile) -> Result<T, LedgerError>,
    ) -> Result<T, LedgerError> {
        let _project_lock = self.file_lock(&self.project_path)?;
        let _global_lock = self.file_lock(&self.global_path)?;
        let mut global = self.read_for_change(&self.global_path, Scope::Global, reset)?;
        let mut file = match read(&self.project_path, Scope::Project) {
            Read::Absent => RulesFile::default(),
            Read::Found { file, bytes }
                if global.projects.get(&self.project_key) == Some(&digest(&bytes)) =>
            {
                file
            }
            // Only `clear` resets, and it drops the rules: the numbering is what is kept.
            Read::Found { file, .. } if reset => file,
            Read::Malformed(_) if reset => RulesFile::default(),
            Read::Found { .. } => {
                return Err(LedgerError::Changed {
                    path: self.project_path.clone(),
                });
            }
            Read::Malformed(reason) => {
                return Err(LedgerError::Malformed {
                    path: self.project_path.clone(),
                    reason,
                });
            }
        };
        let out = change(&mut file)?;
        let bytes = file.to_bytes();
        self.write(&self.project_path, &bytes)?;
        global
            .projects
            .insert(self.project_key.clone(), digest(&bytes));
        self.write(&self.global_path, &global.to_bytes())?;
        let mut inner = self.lock();
        if self.project_trusted {
            inner.project = file.rules(Scope::Project);
            inner.project_file = Some(ProjectFile::Honoured);
        }
        Ok(out)
    }

    fn read_for_change(
        &self,
        path: &Path,
        scope: Scope,
        reset: bool,
    ) -> Result<RulesFile, LedgerError> {
        match read(path, scope) {
            Read::Absent => Ok(RulesFile::default()),
            Read::Found { file, .. } => Ok(file),
            Read::Malformed(_) if reset && scope == Scope::Global => Ok(RulesFile::default()),
            Read::Malformed(reason) => Err(LedgerError::Malformed {
                path: path.to_path_buf(),
                reason,
            }),
        }
    }

    fn file_lock(&self, path: &Path) -> Result<FileLock, LedgerError> {
        FileLock::acquire(path).map_err(|source| LedgerError::Io {
            path: path.to_path_buf(),
            source,
        })
    }

    fn write(&self, path: &Path, bytes: &[u8]) -> Result<(), LedgerError> {
        pi_session::paths::write_atomic(path, bytes).map_err(|source| LedgerError::Io {
            path: path.to_path_buf(),
            source,
        })
    }
}

#[cfg(test)]
#[path = "ledger_tests.rs"]
mod tests;
