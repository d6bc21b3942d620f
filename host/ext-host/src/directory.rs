//! The `directory` interface: a whole directory listed in one call, with the entry types the
//! listing itself carries (`d_type`), and one entry opened or read in one call, for tool
//! components that walk large trees.
//!
//! WASI's `read-directory` stream (wasmtime-wasi 48) stats every entry and costs a host call
//! per entry, and reading a file takes `open-at` (with a `stat`), `stat`, `read` and `drop`;
//! the search tools only need names, types and contents. Access stays WASI's decision: the
//! directory is a `wasi:filesystem` descriptor the component opened itself, so only what its
//! preopens reach can be listed, and only with the read access it was opened with. Entries
//! are opened by one name at a time, never following a symbolic link, so nothing outside
//! the directory is reached.

use crate::bindings::latest::tool::pi::extension::directory::{self, Entry};
use crate::state::{ALLOW_BLOCKING_CURRENT_THREAD, HostState};
use rustix::fs::{FileType, Mode, OFlags};
use std::ffi::OsStr;
use std::io::Read;
use std::os::fd::AsFd;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use wasmtime::component::{Resource, ResourceTable};
use wasmtime_wasi::OpenMode;
use wasmtime_wasi::filesystem::{Descriptor, Dir};
use wasmtime_wasi::p2::bindings::sync::filesystem::types::{DescriptorType, ErrorCode};

impl directory::Host for HostState {
    fn entries(&mut self, dir: Resource<Descriptor>) -> Result<Vec<Entry>, ErrorCode> {
        list(&self.table, &dir)
    }

    fn open_dir(
        &mut self,
        dir: Resource<Descriptor>,
        name: Vec<u8>,
    ) -> Result<Resource<Descriptor>, ErrorCode> {
        self.reachable(&dir, &name)?;
        let opened = open_dir(&self.table, &dir, &name)?;
        self.table
            .push(Descriptor::Dir(opened))
            .map_err(|_| ErrorCode::InsufficientMemory)
    }

    fn read_file(
        &mut self,
        dir: Resource<Descriptor>,
        name: Vec<u8>,
        max_bytes: u64,
    ) -> Result<Vec<u8>, ErrorCode> {
        self.reachable(&dir, &name)?;
        read_file(&self.table, &dir, &name, max_bytes)
    }
}

impl HostState {
    /// Refuses an entry of `dir` that is one of pi's own directories or inside one
    /// (`protected`), as the `wasi:filesystem` calls are refused.
    fn reachable(&self, dir: &Resource<Descriptor>, name: &[u8]) -> Result<(), ErrorCode> {
        let protected = &self.grant.protected;
        if protected.is_empty() {
            return Ok(());
        }
        let Ok(Descriptor::Dir(opened)) = self.table.get(dir) else {
            return Ok(());
        };
        let name = entry_name(name)?;
        if crate::protected::entry_landing(protected, opened.dir.as_fd(), Path::new(name))
            .refuses_use()
        {
            tracing::warn!(extension = %self.extension, "directory entry refused: it is pi's own directory");
            return Err(ErrorCode::Access);
        }
        Ok(())
    }
}

/// The directory behind `dir`, refusing files and directories opened without read access.
fn readable<'t>(
    table: &'t ResourceTable,
    dir: &Resource<Descriptor>,
) -> Result<&'t Dir, ErrorCode> {
    let dir = match table.get(dir) {
        Ok(Descriptor::Dir(dir)) => dir,
        Ok(Descriptor::File(_)) => return Err(ErrorCode::NotDirectory),
        Err(_) => return Err(ErrorCode::BadDescriptor),
    };
    if !dir.open_mode.contains(OpenMode::READ) {
        return Err(ErrorCode::NotPermitted);
    }
    Ok(dir)
}

/// `name` as one entry of a directory: not empty, not `.` or `..`, without `/` or NUL, so
/// opening it relative to the directory cannot leave it.
fn entry_name(name: &[u8]) -> Result<&OsStr, ErrorCode> {
    if name.is_empty() || name == b"." || name == b".." || name.contains(&b'/') || name.contains(&0)
    {
        return Err(ErrorCode::Invalid);
    }
    Ok(OsStr::from_bytes(name))
}

/// Lists the directory behind `dir`.
pub(crate) fn list(
    table: &ResourceTable,
    dir: &Resource<Descriptor>,
) -> Result<Vec<Entry>, ErrorCode> {
    let dir = readable(table, dir)?;
    // `read_from` opens its own descriptor of the directory (`openat(fd, ".")`), so the
    // listing position of the component's descriptor is untouched.
    let mut listing = rustix::fs::Dir::read_from(&*dir.dir).map_err(code)?;
    let mut entries = Vec::new();
    while let Some(entry) = listing.read() {
        let entry = entry.map_err(code)?;
        let name = entry.file_name();
        if matches!(name.to_bytes(), b"." | b"..") {
            continue;
        }
        let kind = match entry.file_type() {
            FileType::Unknown => {
                // No type in the listing (some filesystems): look at the entry itself.
                rustix::fs::statat(&*dir.dir, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
                    .map_or(FileType::Unknown, |stat| {
                        FileType::from_raw_mode(stat.st_mode)
                    })
            }
            known => known,
        };
        entries.push(Entry {
            name: name.to_bytes().to_vec(),
            type_: descriptor_type(kind),
        });
    }
    Ok(entries)
}

/// Opens the subdirectory `name` of `dir` for reading; it keeps `dir`'s permissions (so a
/// read-only workspace stays read-only below).
pub(crate) fn open_dir(
    table: &ResourceTable,
    dir: &Resource<Descriptor>,
    name: &[u8],
) -> Result<Dir, ErrorCode> {
    let parent = readable(table, dir)?;
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd =
        rustix::fs::openat(&*parent.dir, entry_name(name)?, flags, Mode::empty()).map_err(code)?;
    Ok(Dir::new(
        fd.into(),
        parent.perms,
        OpenMode::READ,
        ALLOW_BLOCKING_CURRENT_THREAD,
    ))
}

/// Reads the regular file `name` of `dir` if it holds at most `max_bytes`.
pub(crate) fn read_file(
    table: &ResourceTable,
    dir: &Resource<Descriptor>,
    name: &[u8],
    max_bytes: u64,
) -> Result<Vec<u8>, ErrorCode> {
    let dir = readable(table, dir)?;
    // Non-blocking: opening a FIFO for reading would otherwise wait for a writer.
    let flags =
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK | OFlags::NOCTTY;
    let fd =
        rustix::fs::openat(&*dir.dir, entry_name(name)?, flags, Mode::empty()).map_err(code)?;
    let stat = rustix::fs::fstat(&fd).map_err(code)?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
        return Err(ErrorCode::Invalid);
    }
    let size = u64::try_from(stat.st_size).unwrap_or(0);
    if size > max_bytes {
        return Err(ErrorCode::FileTooLarge);
    }
    let mut data = Vec::new();
    data.try_reserve_exact(usize::try_from(size).map_err(|_| ErrorCode::FileTooLarge)?)
        .map_err(|_| ErrorCode::InsufficientMemory)?;
    // A file that grew since the `fstat` is read up to one byte past the limit, to tell.
    std::fs::File::from(fd)
        .take(max_bytes.saturating_add(1))
        .read_to_end(&mut data)
        .map_err(|e| {
            e.raw_os_error().map_or(ErrorCode::Io, |n| {
                code(rustix::io::Errno::from_raw_os_error(n))
            })
        })?;
    if data.len() as u64 > max_bytes {
        return Err(ErrorCode::FileTooLarge);
    }
    Ok(data)
}

fn descriptor_type(kind: FileType) -> DescriptorType {
    match kind {
        FileType::RegularFile => DescriptorType::RegularFile,
        FileType::Directory => DescriptorType::Directory,
        FileType::Symlink => DescriptorType::SymbolicLink,
        FileType::Fifo => DescriptorType::Fifo,
        FileType::Socket => DescriptorType::Socket,
        FileType::CharacterDevice => DescriptorType::CharacterDevice,
        FileType::BlockDevice => DescriptorType::BlockDevice,
        FileType::Unknown => DescriptorType::Unknown,
    }
}

fn code(err: rustix::io::Errno) -> ErrorCode {
    use rustix::io::Errno;
    match err {
        Errno::ACCESS | Errno::PERM => ErrorCode::Access,
        Errno::NOENT => ErrorCode::NoEntry,
        Errno::NOTDIR => ErrorCode::NotDirectory,
        Errno::ISDIR => ErrorCode::IsDirectory,
        Errno::LOOP => ErrorCode::Loop,
        Errno::NOMEM => ErrorCode::InsufficientMemory,
        _ => ErrorCode::Io,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasmtime_wasi::FsPerms;
    use wasmtime_wasi::filesystem::{Dir, File};

    fn preopen(
        table: &mut ResourceTable,
        path: &std::path::Path,
        mode: OpenMode,
    ) -> Resource<Descriptor> {
        let file = std::fs::File::open(path).unwrap();
        table
            .push(Descriptor::Dir(Dir::new(
                file,
                FsPerms::ReadOnly,
                mode,
                true,
            )))
            .unwrap()
    }

    #[test]
    fn lists_names_with_types_from_the_listing() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::write(root.join("file.txt"), "x").unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::os::unix::fs::symlink(root.join("sub"), root.join("link-to-dir")).unwrap();
        std::os::unix::fs::symlink(root.join("missing"), root.join("dangling")).unwrap();
        // Not UTF-8: listed byte for byte.
        std::fs::write(root.join(OsStr::from_bytes(b"\xffodd")), "").unwrap();
        let mut table = ResourceTable::new();
        let dir = preopen(&mut table, root, OpenMode::READ);
        let mut found: Vec<(Vec<u8>, DescriptorType)> = list(&table, &dir)
            .unwrap()
            .into_iter()
            .map(|e| (e.name, e.type_))
            .collect();
        found.sort_by(|a, b| a.0.cmp(&b.0));
        let names: Vec<&[u8]> = found.iter().map(|(n, _)| n.as_slice()).collect();
        assert_eq!(
            names,
            [
                &b"dangling"[..],
                b"file.txt",
                b"link-to-dir",
                b"sub",
                b"\xffodd"
            ]
        );
        assert!(matches!(found[0].1, DescriptorType::SymbolicLink));
        assert!(matches!(found[1].1, DescriptorType::RegularFile));
        // A link to a directory is a link, not the directory it points to.
        assert!(matches!(found[2].1, DescriptorType::SymbolicLink));
        assert!(matches!(found[3].1, DescriptorType::Directory));
    }

    #[test]
    fn refuses_files_and_directories_without_read_access() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::write(root.join("file.txt"), "x").unwrap();
        let mut table = ResourceTable::new();
        let file = std::fs::File::open(root.join("file.txt")).unwrap();
        let file = table
            .push(Descriptor::File(File::new(
                file,
                FsPerms::ReadOnly,
                OpenMode::READ,
                true,
            )))
            .unwrap();
        let as_dir = Resource::<Descriptor>::new_borrow(file.rep());
        assert!(matches!(
            list(&table, &as_dir),
            Err(ErrorCode::NotDirectory)
        ));
        let unreadable = preopen(&mut table, root, OpenMode::empty());
        assert!(matches!(
            list(&table, &unreadable),
            Err(ErrorCode::NotPermitted)
        ));
        assert!(matches!(
            read_file(&table, &unreadable, b"file.txt", 10),
            Err(ErrorCode::NotPermitted)
        ));
        assert!(matches!(
            open_dir(&table, &as_dir, b"x"),
            Err(ErrorCode::NotDirectory)
        ));
        let gone = Resource::<Descriptor>::new_borrow(9999);
        assert!(matches!(list(&table, &gone), Err(ErrorCode::BadDescriptor)));
    }

    #[test]
    fn opens_and_reads_one_entry_without_leaving_the_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(tmp.path().join("secret"), "outside").unwrap();
        std::fs::write(root.join("sub/inner.txt"), "inner").unwrap();
        std::fs::write(root.join(OsStr::from_bytes(b"\xff.txt")), "odd name").unwrap();
        std::os::unix::fs::symlink(tmp.path().join("secret"), root.join("link")).unwrap();
        std::os::unix::fs::symlink(tmp.path(), root.join("link-dir")).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            root.join("fifo"),
            FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let mut table = ResourceTable::new();
        let dir = preopen(&mut table, &root, OpenMode::READ);

        assert_eq!(
            read_file(&table, &dir, b"\xff.txt", 100).unwrap(),
            b"odd name"
        );
        // The size limit: at it, and one below.
        assert_eq!(read_file(&table, &dir, b"\xff.txt", 8).unwrap().len(), 8);
        assert!(matches!(
            read_file(&table, &dir, b"\xff.txt", 7),
            Err(ErrorCode::FileTooLarge)
        ));
        // Never through a link, never a path, never a FIFO (which would block) or a directory.
        assert!(matches!(
            read_file(&table, &dir, b"link", 100),
            Err(ErrorCode::Loop)
        ));
        for bad in [
            &b"../secret"[..],
            b"sub/inner.txt",
            b"..",
            b".",
            b"",
            b"a\0b",
        ] {
            assert!(
                matches!(read_file(&table, &dir, bad, 100), Err(ErrorCode::Invalid)),
                "{bad:?}"
            );
            assert!(matches!(
                open_dir(&table, &dir, bad),
                Err(ErrorCode::Invalid)
            ));
        }
        assert!(matches!(
            read_file(&table, &dir, b"fifo", 100),
            Err(ErrorCode::Invalid)
        ));
        assert!(matches!(
            read_file(&table, &dir, b"sub", 100),
            Err(ErrorCode::Invalid)
        ));
        assert!(matches!(
            read_file(&table, &dir, b"missing", 100),
            Err(ErrorCode::NoEntry)
        ));

        assert!(matches!(
            open_dir(&table, &dir, b"link-dir"),
            Err(ErrorCode::Loop | ErrorCode::NotDirectory)
        ));
        assert!(matches!(
            open_dir(&table, &dir, b"\xff.txt"),
            Err(ErrorCode::NotDirectory)
        ));
        let sub = open_dir(&table, &dir, b"sub").unwrap();
        assert_eq!(sub.perms, FsPerms::ReadOnly);
        assert_eq!(sub.open_mode, OpenMode::READ);
        let sub = table.push(Descriptor::Dir(sub)).unwrap();
        assert_eq!(
            read_file(&table, &sub, b"inner.txt", 100).unwrap(),
            b"inner"
        );
        let names: Vec<Vec<u8>> = list(&table, &sub)
            .unwrap()
            .into_iter()
            .map(|e| e.name)
            .collect();
        assert_eq!(names, [b"inner.txt".to_vec()]);
    }
}
