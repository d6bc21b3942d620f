//! Where the walker gets directory listings and file contents from: `std::fs` natively, the
//! host's `directory` interface and WASI preview 2 inside a component.

use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};

/// What a directory listing says an entry is (never following a symbolic link).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Dir,
    Symlink,
    Other,
}

/// One entry of a directory listing.
#[derive(Debug, Clone)]
pub struct ListedEntry {
    pub name: OsString,
    pub kind: EntryKind,
}

/// Opens directories and reads files for a walk.
pub trait DirSource: Send + Sync {
    /// Opens the directory at the absolute `path` (symbolic links followed).
    fn open(&self, path: &Path) -> io::Result<Box<dyn OpenDir>>;

    /// Reads the whole file at the absolute `path`.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;
}

/// An open directory.
pub trait OpenDir {
    /// Its entries, in no particular order, with the types the listing carries.
    fn entries(&self) -> io::Result<Vec<ListedEntry>>;

    /// Opens the subdirectory `name` (not through a symbolic link).
    fn open_dir(&self, name: &OsStr) -> io::Result<Box<dyn OpenDir>>;

    /// Reads the whole file `name` of this directory.
    fn read_file(&self, name: &OsStr) -> io::Result<Vec<u8>>;
}

/// `std::fs`: `read_dir` takes the types from the listing (`d_type`) where the platform has
/// them.
#[derive(Debug, Clone, Copy, Default)]
pub struct StdSource;

struct StdDir(PathBuf);

impl DirSource for StdSource {
    fn open(&self, path: &Path) -> io::Result<Box<dyn OpenDir>> {
        if !std::fs::metadata(path)?.is_dir() {
            return Err(io::Error::other("not a directory"));
        }
        Ok(Box::new(StdDir(path.to_path_buf())))
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        std::fs::read(path)
    }
}

impl OpenDir for StdDir {
    fn entries(&self) -> io::Result<Vec<ListedEntry>> {
        let mut entries = Vec::new();
        for entry in std::fs::read_dir(&self.0)? {
            let entry = entry?;
            let kind = match entry.file_type() {
                Ok(t) if t.is_symlink() => EntryKind::Symlink,
                Ok(t) if t.is_dir() => EntryKind::Dir,
                Ok(t) if t.is_file() => EntryKind::File,
                _ => EntryKind::Other,
            };
            entries.push(ListedEntry {
                name: entry.file_name(),
                kind,
            });
        }
        Ok(entries)
    }

    fn open_dir(&self, name: &OsStr) -> io::Result<Box<dyn OpenDir>> {
        Ok(Box::new(StdDir(self.0.join(name))))
    }

    fn read_file(&self, name: &OsStr) -> io::Result<Vec<u8>> {
        std::fs::read(self.0.join(name))
    }
}
