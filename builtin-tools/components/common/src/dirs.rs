//! The walks of `grep` and `find` inside a component: the walk's start opened with WASI
//! preview 2 `open-at`; below it, directories listed, opened and files read through the
//! host's `directory` interface, one call each (no per-entry `stat`; WASI would take four
//! calls to read a file) and by the names' exact bytes, so names that are not UTF-8 are
//! walked too. `std::fs` would go through the preview 1 adapter, whose `fd_readdir` stats
//! every entry and crosses into the host once per entry.

use pi_builtin_tools::walk::{DirSource, EntryKind, ListedEntry, OpenDir};
use pi_guest_sdk::directory;
use pi_guest_sdk::filesystem::preopens;
use pi_guest_sdk::filesystem::types::{
    Descriptor, DescriptorFlags, DescriptorType, ErrorCode, OpenFlags, PathFlags,
};
use std::ffi::{OsStr, OsString};
use std::io;
use std::path::Path;

/// The host's largest single `read` (wasmtime-wasi's cap); asking for more returns no more.
const READ_CHUNK: u64 = 64 * 1024;
/// Files up to this size are read in one host call; the host lowers them into memory this
/// component cannot refuse (a failed allocation there aborts the call). Larger files are
/// read in pieces into a buffer reserved first, so one too large for memory is skipped.
const ONE_CALL_MAX: u64 = 16 * 1024 * 1024;

/// Directories under the component's preopens.
#[derive(Debug, Clone, Copy, Default)]
pub struct WasiDirs;

struct WasiDir(Descriptor);

impl DirSource for WasiDirs {
    fn open(&self, path: &Path) -> io::Result<Box<dyn OpenDir>> {
        let (base, rel) = preopen_for(path)?;
        let dir = base
            .open_at(
                PathFlags::SYMLINK_FOLLOW,
                &rel,
                OpenFlags::DIRECTORY,
                DescriptorFlags::READ,
            )
            .map_err(error)?;
        Ok(Box::new(WasiDir(dir)))
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        let (base, rel) = preopen_for(path)?;
        let file = base
            .open_at(
                PathFlags::SYMLINK_FOLLOW,
                &rel,
                OpenFlags::empty(),
                DescriptorFlags::READ,
            )
            .map_err(error)?;
        read_all(&file)
    }
}

impl OpenDir for WasiDir {
    fn entries(&self) -> io::Result<Vec<ListedEntry>> {
        let entries = directory::entries(&self.0).map_err(error)?;
        Ok(entries
            .into_iter()
            .map(|entry| ListedEntry {
                kind: match entry.type_ {
                    DescriptorType::RegularFile => EntryKind::File,
                    DescriptorType::Directory => EntryKind::Dir,
                    DescriptorType::SymbolicLink => EntryKind::Symlink,
                    _ => EntryKind::Other,
                },
                name: os_string(entry.name),
            })
            .collect())
    }

    fn open_dir(&self, name: &OsStr) -> io::Result<Box<dyn OpenDir>> {
        let dir = directory::open_dir(&self.0, name.as_encoded_bytes()).map_err(error)?;
        Ok(Box::new(WasiDir(dir)))
    }

    fn read_file(&self, name: &OsStr) -> io::Result<Vec<u8>> {
        // A large file, or a symbolic link (an ignore file may be one; WASI follows it as
        // far as the preopens reach): through WASI.
        match directory::read_file(&self.0, name.as_encoded_bytes(), ONE_CALL_MAX) {
            Err(ErrorCode::FileTooLarge | ErrorCode::Loop) => {}
            done => return done.map_err(error),
        }
        let file = self
            .0
            .open_at(
                PathFlags::SYMLINK_FOLLOW,
                utf8(name)?,
                OpenFlags::empty(),
                DescriptorFlags::READ,
            )
            .map_err(error)?;
        read_all(&file)
    }
}

/// Reads a whole file: its size from `stat`, then as few reads as the host's cap allows (a
/// file below it arrives in one read, kept as it came). A file too large for the component's
/// memory is an error (the caller skips it) rather than an allocation failure, which would
/// abort the component.
fn read_all(file: &Descriptor) -> io::Result<Vec<u8>> {
    let size = file.stat().map_err(error)?.size;
    let mut data: Vec<u8> = Vec::new();
    loop {
        let have = data.len() as u64;
        let want = size.saturating_sub(have).clamp(1, READ_CHUNK);
        let (chunk, eof) = file.read(want, have).map_err(error)?;
        if chunk.is_empty() {
            break;
        }
        if data.is_empty() {
            data = chunk;
            let rest = usize::try_from(size)
                .unwrap_or(usize::MAX)
                .saturating_sub(data.len());
            data.try_reserve_exact(rest)
                .map_err(|_| io::Error::new(io::ErrorKind::OutOfMemory, "file too large"))?;
        } else {
            data.try_reserve(chunk.len())
                .map_err(|_| io::Error::new(io::ErrorKind::OutOfMemory, "file too large"))?;
            data.extend_from_slice(&chunk);
        }
        if eof || data.len() as u64 >= size {
            break;
        }
    }
    Ok(data)
}

/// The preopened directory holding the absolute `path` (the deepest one) and `path`
/// relative to it (`.` for the directory itself).
fn preopen_for(path: &Path) -> io::Result<(Descriptor, String)> {
    let mut best: Option<(Descriptor, String, usize)> = None;
    for (dir, at) in preopens::get_directories() {
        let Ok(rel) = path.strip_prefix(&at) else {
            continue;
        };
        let depth = Path::new(&at).components().count();
        if !Path::new(&at).is_absolute() || best.as_ref().is_some_and(|b| b.2 >= depth) {
            continue;
        }
        let rel = rel
            .to_str()
            .ok_or_else(|| io::Error::other("path is not UTF-8"))?;
        let rel = if rel.is_empty() { "." } else { rel };
        best = Some((dir, rel.to_owned(), depth));
    }
    best.map(|(dir, rel, _)| (dir, rel))
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "outside the preopened directories"))
}

/// A name from the host's listing. A name that is not UTF-8 keeps its bytes: on WASI an
/// `OsString` is any bytes (as on Unix), and the bytes come from the file system.
#[allow(unsafe_code)]
fn os_string(name: Vec<u8>) -> OsString {
    match String::from_utf8(name) {
        Ok(name) => name.into(),
        // SAFETY: WASI's `OsString` encoding is arbitrary bytes, so any bytes are valid.
        Err(raw) => unsafe { OsString::from_encoded_bytes_unchecked(raw.into_bytes()) },
    }
}

fn utf8(name: &OsStr) -> io::Result<&str> {
    name.to_str()
        .ok_or_else(|| io::Error::other("name is not UTF-8"))
}

fn error(code: ErrorCode) -> io::Error {
    let kind = match code {
        ErrorCode::NoEntry => io::ErrorKind::NotFound,
        ErrorCode::Access | ErrorCode::NotPermitted => io::ErrorKind::PermissionDenied,
        _ => io::ErrorKind::Other,
    };
    io::Error::new(kind, format!("{code:?}"))
}
