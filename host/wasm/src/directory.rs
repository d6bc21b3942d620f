//! The `directory` interface: a whole directory listed in one call, with the entry types the
//! listing itself carries (`d_type`), for tool components that walk large trees.
//!
//! WASI's `read-directory` stream (wasmtime-wasi 48) stats every entry and costs a host call
//! per entry; the search tools only need names and types. Access stays WASI's decision: the
//! directory is a `wasi:filesystem` descriptor the component opened itself, so only what its
//! preopens reach can be listed, and only with the read access it was opened with.

use crate::bindings::tool::pi::extension::directory::{self, Entry};
use crate::state::HostState;
use rustix::fs::FileType;
use wasmtime::component::{Resource, ResourceTable};
use wasmtime_wasi::OpenMode;
use wasmtime_wasi::filesystem::Descriptor;
use wasmtime_wasi::p2::bindings::sync::filesystem::types::{DescriptorType, ErrorCode};

impl directory::Host for HostState {
    fn entries(&mut self, dir: Resource<Descriptor>) -> Result<Vec<Entry>, ErrorCode> {
        list(&self.table, &dir)
    }
}

/// Lists the directory behind `dir`, refusing files and directories opened without read
/// access.
pub(crate) fn list(
    table: &ResourceTable,
    dir: &Resource<Descriptor>,
) -> Result<Vec<Entry>, ErrorCode> {
    let dir = match table.get(dir) {
        Ok(Descriptor::Dir(dir)) => dir,
        Ok(Descriptor::File(_)) => return Err(ErrorCode::NotDirectory),
        Err(_) => return Err(ErrorCode::BadDescriptor),
    };
    if !dir.open_mode.contains(OpenMode::READ) {
        return Err(ErrorCode::NotPermitted);
    }
    // `read_from` opens its own descriptor of the directory (`openat(fd, ".")`), so the
    // listing position of the component's descriptor is untouched.
    let mut listing = rustix::fs::Dir::read_from(&*dir.dir).map_err(code)?;
    let mut entries = Vec::new();
    while let Some(entry) = listing.read() {
        let entry = entry.map_err(code)?;
        let name = entry.file_name().to_bytes();
        if name == b"." || name == b".." {
            continue;
        }
        let Ok(name) = std::str::from_utf8(name) else {
            tracing::debug!("directory listing left out a name that is not UTF-8");
            continue;
        };
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
            name: name.to_owned(),
            type_: descriptor_type(kind),
        });
    }
    Ok(entries)
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
        Errno::NOMEM => ErrorCode::InsufficientMemory,
        _ => ErrorCode::Io,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasmtime_wasi::FsPerms;
    use wasmtime_wasi::filesystem::{Dir, File};

    fn open_dir(
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
        let mut table = ResourceTable::new();
        let dir = open_dir(&mut table, root, OpenMode::READ);
        let mut found: Vec<(String, DescriptorType)> = list(&table, &dir)
            .unwrap()
            .into_iter()
            .map(|e| (e.name, e.type_))
            .collect();
        found.sort_by(|a, b| a.0.cmp(&b.0));
        let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["dangling", "file.txt", "link-to-dir", "sub"]);
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
        let unreadable = open_dir(&mut table, root, OpenMode::empty());
        assert!(matches!(
            list(&table, &unreadable),
            Err(ErrorCode::NotPermitted)
        ));
        let gone = Resource::<Descriptor>::new_borrow(9999);
        assert!(matches!(list(&table, &gone), Err(ErrorCode::BadDescriptor)));
    }
}
