//! Host directories no extension may reach through any preopen: the agent directory (its
//! `auth.json`, its `extensions/`, its settings and trust records) and the session directory.
//!
//! A preopen is one directory descriptor, and a workspace started in `$HOME` contains
//! `~/.pi/agent`: WASI alone would let a read-granted extension read the credentials and a
//! write-granted one plant a package the next run loads. Path strings are the guest's to choose
//! (`..`, symbolic links the user made, a directory descriptor opened further down), so the check
//! is made on where the host's own resolution lands: the parent directory of the path is opened
//! relative to the guest's descriptor and the kernel says what it really is
//! (`/proc/self/fd`). Refused calls return `access`; the real operation then never runs.
//!
//! Besides the protected directories themselves, moving or replacing one of their ancestors is
//! refused (renaming `~/.pi` away and creating a new `~/.pi/agent` would plant the same package).
//!
//! A protected path may also be one file: the project's `.pi/approvals.json`
//! ([`project_files`]), which would otherwise let a tool or an extension grant the agent
//! approvals. Its directory stays usable; only the file (and moving its ancestors) is refused.
//!
//! This module says where a path lands; `fs_guard` puts it in front of the WASI calls.

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use std::os::fd::{AsFd, BorrowedFd};
use std::path::{Component, Path, PathBuf};

/// Where a guest path lands relative to the protected directories.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Landing {
    /// Outside every protected directory, and not an ancestor of one.
    Clear,
    /// An ancestor of a protected directory: reading it is fine, moving it is not.
    Ancestor,
    /// A protected directory or something inside one.
    Inside,
    /// Where it lands could not be told: treated as inside.
    Unknown,
}

impl Landing {
    /// Whether an operation that reads or changes this path itself is refused.
    pub(crate) fn refuses_use(self) -> bool {
        matches!(self, Landing::Inside | Landing::Unknown)
    }

    /// Whether an operation that moves or removes this path (and so what is below it) is
    /// refused.
    pub(crate) fn refuses_move(self) -> bool {
        self != Landing::Clear
    }
}

/// The project files only pi writes, relative to the workspace: its approval rules.
pub const PROJECT_FILES: [&str; 1] = [".pi/approvals.json"];

/// [`PROJECT_FILES`] of the workspace `cwd`, canonical, as [`crate::Grant::protected`] takes
/// them.
pub fn project_files(cwd: &Path) -> Vec<PathBuf> {
    PROJECT_FILES
        .iter()
        .map(|file| canonical(&cwd.join(file)))
        .collect()
}

/// The absolute form of `path` with every existing part resolved as the kernel would (the part
/// that does not exist yet is appended as written), so that it compares with the real paths the
/// guard sees.
pub fn canonical(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(&existing) {
            return rest.iter().rev().fold(real, |at, part| at.join(part));
        }
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_owned());
                existing = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// Where `path`, taken relative to the directory `dir` as WASI takes it, lands. `follow`: a
/// symbolic link as the last part is followed (the call's `symlink-follow` flag).
pub(crate) fn landing(
    protected: &[PathBuf],
    dir: BorrowedFd<'_>,
    path: &str,
    follow: bool,
) -> Landing {
    if protected.is_empty() {
        return Landing::Clear;
    }
    match target(dir, path, follow) {
        Some(target) => classify(protected, &target),
        None => Landing::Unknown,
    }
}

/// Where the single directory entry `name` of `dir` lands (never following a link).
pub(crate) fn entry_landing(protected: &[PathBuf], dir: BorrowedFd<'_>, name: &Path) -> Landing {
    if protected.is_empty() {
        return Landing::Clear;
    }
    match real_path(dir) {
        Some(real) => classify(protected, &real.join(name)),
        None => Landing::Unknown,
    }
}

fn classify(protected: &[PathBuf], target: &Path) -> Landing {
    if protected.iter().any(|p| target.starts_with(p)) {
        Landing::Inside
    } else if protected.iter().any(|p| p.starts_with(target)) {
        Landing::Ancestor
    } else {
        Landing::Clear
    }
}

/// The real path `path` names from `dir`: its parent resolved by the kernel, then its last part
/// (followed when it is a link and `follow` says so). `None` when the parent exists but its real
/// path cannot be read. A parent that cannot be opened (missing, not a directory, no access)
/// makes the real operation fail the same way, so the lexical path is as good as any.
pub(crate) fn target(dir: BorrowedFd<'_>, path: &str, follow: bool) -> Option<PathBuf> {
    let (parent, last) = split(path);
    let opened;
    let parent_fd = if parent.as_os_str().is_empty() {
        dir
    } else {
        let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
        match rustix::fs::openat(dir, &parent, flags, Mode::empty()) {
            Ok(fd) => {
                opened = fd;
                opened.as_fd()
            }
            Err(_) => {
                return real_path(dir).map(|real| pi_ai::lexical_path::fold(&real.join(path)));
            }
        }
    };
    let parent_real = real_path(parent_fd)?;
    let Some(last) = last else {
        return Some(parent_real);
    };
    if follow && is_link(parent_fd, &last) {
        let flags = OFlags::PATH | OFlags::CLOEXEC;
        if let Ok(fd) = rustix::fs::openat(parent_fd, &last, flags, Mode::empty()) {
            return real_path(fd.as_fd());
        }
    }
    Some(parent_real.join(last))
}

fn is_link(dir: BorrowedFd<'_>, name: &Path) -> bool {
    rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
        .is_ok_and(|stat| FileType::from_raw_mode(stat.st_mode) == FileType::Symlink)
}

/// `path` as the directory to open and its last part; a path ending in `.` or `..` (or empty)
/// is all directory.
fn split(path: &str) -> (PathBuf, Option<PathBuf>) {
    let trimmed = path.trim_end_matches('/');
    let path = Path::new(trimmed);
    match path.components().next_back() {
        Some(Component::Normal(last)) => (
            path.parent().map(Path::to_path_buf).unwrap_or_default(),
            Some(PathBuf::from(last)),
        ),
        _ if trimmed.is_empty() => (PathBuf::new(), None),
        _ => (path.to_path_buf(), None),
    }
}

/// What the kernel says the open descriptor `fd` is.
#[cfg(target_os = "linux")]
fn real_path(fd: BorrowedFd<'_>) -> Option<PathBuf> {
    use std::os::fd::AsRawFd;
    let link = std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd())).ok()?;
    // A directory removed while open reads as "<path> (deleted)": not a path to compare.
    (link.is_absolute() && !link.to_string_lossy().ends_with(" (deleted)")).then_some(link)
}

#[cfg(any(target_os = "macos", target_os = "ios"))]
fn real_path(fd: BorrowedFd<'_>) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    let path = rustix::fs::getpath(fd).ok()?;
    Some(PathBuf::from(std::ffi::OsString::from_vec(
        path.into_bytes(),
    )))
}

#[cfg(not(any(target_os = "linux", target_os = "macos", target_os = "ios")))]
fn real_path(_fd: BorrowedFd<'_>) -> Option<PathBuf> {
    None
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::fs::File;

    struct Home {
        _tmp: tempfile::TempDir,
        home: PathBuf,
        agent: PathBuf,
        root: File,
    }

    fn home() -> Home {
        let tmp = tempfile::tempdir().unwrap();
        let home = canonical(tmp.path()).join("home");
        let agent = home.join(".pi/agent");
        std::fs::create_dir_all(agent.join("extensions")).unwrap();
        std::fs::write(agent.join("auth.json"), "{}").unwrap();
        std::fs::create_dir_all(home.join("project")).unwrap();
        let root = File::open(&home).unwrap();
        Home {
            _tmp: tmp,
            home,
            agent,
            root,
        }
    }

    #[test]
    fn paths_into_the_agent_dir_land_inside_however_they_are_written() {
        let h = home();
        let protected = [h.agent.clone()];
        let at = |path: &str, follow| landing(&protected, h.root.as_fd(), path, follow);
        assert_eq!(at(".pi/agent/auth.json", false), Landing::Inside);
        assert_eq!(at(".pi/agent", false), Landing::Inside);
        assert_eq!(at(".pi/agent/", false), Landing::Inside);
        assert_eq!(
            at("project/../.pi/./agent/auth.json", false),
            Landing::Inside
        );
        assert_eq!(
            at(".pi/agent/extensions/new/pi-extension.toml", false),
            Landing::Inside
        );
        assert_eq!(at(".pi", false), Landing::Ancestor);
        assert_eq!(at(".", false), Landing::Ancestor);
        assert_eq!(at("", false), Landing::Ancestor);
        assert_eq!(at("project/notes.md", false), Landing::Clear);
        assert_eq!(at(".pi/other", false), Landing::Clear);
        // A link the user made is followed where the call follows it.
        std::os::unix::fs::symlink(".pi/agent", h.home.join("shortcut")).unwrap();
        assert_eq!(at("shortcut/auth.json", false), Landing::Inside);
        assert_eq!(at("shortcut", true), Landing::Inside);
        assert_eq!(at("shortcut", false), Landing::Clear);
        // From a descriptor opened further down.
        let dot_pi = File::open(h.home.join(".pi")).unwrap();
        assert_eq!(
            landing(&protected, dot_pi.as_fd(), "agent", false),
            Landing::Inside
        );
        assert_eq!(
            entry_landing(&protected, dot_pi.as_fd(), Path::new("agent")),
            Landing::Inside
        );
        assert_eq!(
            entry_landing(&protected, dot_pi.as_fd(), Path::new("other")),
            Landing::Clear
        );
    }

    #[test]
    fn an_agent_dir_that_does_not_exist_yet_is_protected_too() {
        let h = home();
        let future = canonical(&h.home.join("later/agent"));
        let protected = [future];
        let at = |path: &str| landing(&protected, h.root.as_fd(), path, false);
        assert_eq!(at("later"), Landing::Ancestor);
        assert_eq!(at("later/agent"), Landing::Inside);
        assert_eq!(at("later/agent/extensions/x"), Landing::Inside);
    }

    #[test]
    fn a_protected_file_leaves_its_directory_usable() {
        let h = home();
        let protected = project_files(&h.home.join("project"));
        let at = |path: &str| landing(&protected, h.root.as_fd(), path, false);
        assert_eq!(at("project/.pi/approvals.json"), Landing::Inside);
        assert_eq!(at("project/./.pi/../.pi/approvals.json"), Landing::Inside);
        assert_eq!(at("project/.pi/approvals.json.lock"), Landing::Clear);
        assert_eq!(at("project/.pi/settings.json"), Landing::Clear);
        assert_eq!(at("project/.pi"), Landing::Ancestor);
    }

    #[test]
    fn nothing_protected_is_always_clear() {
        let h = home();
        assert_eq!(
            landing(&[], h.root.as_fd(), ".pi/agent/auth.json", false),
            Landing::Clear
        );
    }

    #[test]
    fn canonical_resolves_what_exists_and_keeps_the_rest() {
        let h = home();
        std::os::unix::fs::symlink(&h.agent, h.home.join("link")).unwrap();
        assert_eq!(canonical(&h.home.join("link/x/y")), h.agent.join("x/y"));
    }
}
