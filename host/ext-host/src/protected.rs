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

use crate::state::HostState;
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use std::os::fd::{AsFd, BorrowedFd};
use std::path::{Component, Path, PathBuf};
use wasmtime::StoreContextMut;
use wasmtime::component::{ComponentNamedList, Lift, Linker, LinkerInstance, Lower, Resource};
use wasmtime_wasi::filesystem::{Descriptor, WasiFilesystemCtxView, WasiFilesystemView};
use wasmtime_wasi::p2::FsResult;
use wasmtime_wasi::p2::bindings::sync::filesystem::types::{
    ErrorCode, HostDescriptor, NewTimestamp, PathFlags,
};

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
fn target(dir: BorrowedFd<'_>, path: &str, follow: bool) -> Option<PathBuf> {
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
            Err(_) => return real_path(dir).map(|real| normalize(&real.join(path))),
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

/// `..` and `.` taken out lexically (for paths whose directories do not exist).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
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

/// Where `path` from the guest's descriptor `fd` lands for this call's grant. A descriptor that
/// is not a directory makes the real call fail on its own.
pub(crate) fn lands(
    state: &HostState,
    fd: &Resource<Descriptor>,
    path: &str,
    follow: bool,
) -> Landing {
    let protected = &state.grant.protected;
    if protected.is_empty() {
        return Landing::Clear;
    }
    match state.table.get(fd) {
        Ok(Descriptor::Dir(dir)) => landing(protected, dir.dir.as_fd(), path, follow),
        _ => Landing::Clear,
    }
}

/// Tells the call's write observer (if any) where a write of `path` from `fd` lands.
pub(crate) fn observe_write(state: &HostState, fd: &Resource<Descriptor>, path: &str) {
    let Some(observer) = &state.call.on_write else {
        return;
    };
    if let Ok(Descriptor::Dir(dir)) = state.table.get(fd)
        && let Some(target) = target(dir.dir.as_fd(), path, true)
    {
        observer(&target);
    }
}

/// What a call does to the path it names.
#[derive(Clone, Copy)]
enum Effect {
    /// Reads or changes the path itself.
    Use,
    /// Moves or removes it, and with it what is below it.
    Move,
}

/// Whether `call` on `path` from `fd` is refused (logged; the guest sees `access`).
fn refuses(
    state: &HostState,
    call: &str,
    (fd, path): (&Resource<Descriptor>, &str),
    follow: bool,
    effect: Effect,
) -> bool {
    let landing = lands(state, fd, path, follow);
    let refused = match effect {
        Effect::Use => landing.refuses_use(),
        Effect::Move => landing.refuses_move(),
    };
    if refused {
        tracing::warn!(
            extension = %state.extension,
            call,
            path,
            "filesystem call refused: it reaches pi's own directory"
        );
    }
    refused
}

fn follows(flags: PathFlags) -> bool {
    flags.contains(PathFlags::SYMLINK_FOLLOW)
}

/// Defines the path-taking calls of `wasi:filesystem/types` over wasmtime-wasi's: each first asks
/// where its paths land, then runs wasmtime-wasi's own implementation. `open-at` is checked in
/// `bounded` (it is shadowed there for FIFOs) through [`lands`]; `symlink-at` is refused in
/// `component`. Hard links are refused here: no extension needs one, and a link made inside the
/// workspace to a protected file would read it from outside.
pub(crate) fn add_to_linker(
    linker: &mut Linker<HostState>,
    wasi_version: &str,
) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let mut types = linker.instance(&format!("wasi:filesystem/types@{wasi_version}"))?;
    types.func_wrap(
        "[method]descriptor.link-at",
        |_store,
         _params: (
            Resource<Descriptor>,
            PathFlags,
            String,
            Resource<Descriptor>,
            String,
        )| { Ok((Err::<(), ErrorCode>(ErrorCode::NotPermitted),)) },
    )?;
    guard(
        &mut types,
        "[method]descriptor.stat-at",
        |s, (fd, flags, path): &(Resource<Descriptor>, PathFlags, String)| {
            refuses(s, "stat-at", (fd, path), follows(*flags), Effect::Use)
        },
        |view, (fd, flags, path)| HostDescriptor::stat_at(view, fd, flags, path),
    )?;
    guard(
        &mut types,
        "[method]descriptor.metadata-hash-at",
        |s, (fd, flags, path): &(Resource<Descriptor>, PathFlags, String)| {
            refuses(
                s,
                "metadata-hash-at",
                (fd, path),
                follows(*flags),
                Effect::Use,
            )
        },
        |view, (fd, flags, path)| HostDescriptor::metadata_hash_at(view, fd, flags, path),
    )?;
    guard(
        &mut types,
        "[method]descriptor.set-times-at",
        |s, (fd, flags, path, _, _): &TimesAtParams| {
            refuses(s, "set-times-at", (fd, path), follows(*flags), Effect::Use)
        },
        |view, (fd, flags, path, atim, mtim)| {
            HostDescriptor::set_times_at(view, fd, flags, path, atim, mtim)
        },
    )?;
    guard(
        &mut types,
        "[method]descriptor.create-directory-at",
        |s, (fd, path): &(Resource<Descriptor>, String)| {
            refuses(s, "create-directory-at", (fd, path), false, Effect::Use)
        },
        |view, (fd, path)| HostDescriptor::create_directory_at(view, fd, path),
    )?;
    guard(
        &mut types,
        "[method]descriptor.readlink-at",
        |s, (fd, path): &(Resource<Descriptor>, String)| {
            refuses(s, "readlink-at", (fd, path), false, Effect::Use)
        },
        |view, (fd, path)| HostDescriptor::readlink_at(view, fd, path),
    )?;
    guard(
        &mut types,
        "[method]descriptor.unlink-file-at",
        |s, (fd, path): &(Resource<Descriptor>, String)| {
            refuses(s, "unlink-file-at", (fd, path), false, Effect::Move)
        },
        |view, (fd, path)| HostDescriptor::unlink_file_at(view, fd, path),
    )?;
    guard(
        &mut types,
        "[method]descriptor.remove-directory-at",
        |s, (fd, path): &(Resource<Descriptor>, String)| {
            refuses(s, "remove-directory-at", (fd, path), false, Effect::Move)
        },
        |view, (fd, path)| HostDescriptor::remove_directory_at(view, fd, path),
    )?;
    guard(
        &mut types,
        "[method]descriptor.rename-at",
        |s, (fd, old, new_fd, new): &RenameAtParams| {
            let refused = refuses(s, "rename-at", (fd, old), false, Effect::Move)
                || refuses(s, "rename-at", (new_fd, new), false, Effect::Move);
            if !refused {
                observe_write(s, new_fd, new);
            }
            refused
        },
        |view, (fd, old, new_fd, new)| HostDescriptor::rename_at(view, fd, old, new_fd, new),
    )?;
    linker.allow_shadowing(false);
    Ok(())
}

type TimesAtParams = (
    Resource<Descriptor>,
    PathFlags,
    String,
    NewTimestamp,
    NewTimestamp,
);
type RenameAtParams = (Resource<Descriptor>, String, Resource<Descriptor>, String);

/// Defines `name` as: refused with `access` when `refuses` says so, else wasmtime-wasi's `call`.
fn guard<P, R>(
    types: &mut LinkerInstance<'_, HostState>,
    name: &str,
    refuses: fn(&HostState, &P) -> bool,
    call: fn(&mut WasiFilesystemCtxView<'_>, P) -> FsResult<R>,
) -> wasmtime::Result<()>
where
    P: ComponentNamedList + Lift + 'static,
    (Result<R, ErrorCode>,): ComponentNamedList + Lower + 'static,
{
    types.func_wrap(
        name,
        move |mut store: StoreContextMut<'_, HostState>, params: P| {
            if refuses(store.data(), &params) {
                return Ok((Err(ErrorCode::Access),));
            }
            let mut view = store.data_mut().filesystem();
            match call(&mut view, params) {
                Ok(value) => Ok((Ok(value),)),
                Err(error) => Ok((Err(error.downcast()?.into()),)),
            }
        },
    )
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
