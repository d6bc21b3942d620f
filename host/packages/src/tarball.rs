//! Unpacking an npm package tarball (a gzipped tar whose entries sit under one top folder,
//! `package/` by convention) into a directory, refusing anything that could write elsewhere.

use flate2::read::GzDecoder;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// The most a package may unpack to (a gzip bomb stops here).
const MAX_UNPACKED: u64 = 512 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum TarballError {
    #[error("cannot read the tarball: {0}")]
    Read(#[source] std::io::Error),
    #[error("tarball entry \"{0}\" points outside the package")]
    UnsafePath(String),
    #[error("tarball entry \"{0}\" is a link; packages hold regular files only")]
    Link(String),
    #[error("the package unpacks to more than {} MB", MAX_UNPACKED / (1024 * 1024))]
    TooLarge,
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Unpacks the `.tgz` bytes into `dest` (created), dropping each entry's top folder. A link is
/// refused (it could point out of the package); other special files are skipped: a package of
/// WebAssembly components needs none.
pub fn unpack(tgz: &[u8], dest: &Path) -> Result<(), TarballError> {
    let write_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| TarballError::Write { path, source }
    };
    std::fs::create_dir_all(dest).map_err(write_err(dest))?;
    let mut archive = tar::Archive::new(GzDecoder::new(tgz));
    let mut total: u64 = 0;
    for entry in archive.entries().map_err(TarballError::Read)? {
        let mut entry = entry.map_err(TarballError::Read)?;
        let raw = entry.path().map_err(TarballError::Read)?.into_owned();
        let Some(relative) = inside(&raw)? else {
            continue;
        };
        let target = dest.join(&relative);
        let kind = entry.header().entry_type();
        if kind.is_dir() {
            std::fs::create_dir_all(&target).map_err(write_err(&target))?;
            continue;
        }
        if kind.is_symlink() || kind.is_hard_link() {
            return Err(TarballError::Link(raw.display().to_string()));
        }
        if !kind.is_file() {
            tracing::debug!("tarball entry {} skipped ({kind:?})", raw.display());
            continue;
        }
        total = total.saturating_add(entry.size());
        if total > MAX_UNPACKED {
            return Err(TarballError::TooLarge);
        }
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(write_err(parent))?;
        }
        let mut bytes = Vec::new();
        (&mut entry)
            .take(MAX_UNPACKED)
            .read_to_end(&mut bytes)
            .map_err(TarballError::Read)?;
        // A fresh file: `create_new` never follows a link or overwrites an earlier entry.
        let _ = std::fs::remove_file(&target);
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&target)
            .and_then(|mut file| std::io::Write::write_all(&mut file, &bytes))
            .map_err(write_err(&target))?;
    }
    Ok(())
}

/// The entry's path below its top folder: `None` for the top folder itself, an error for an
/// absolute path or one with `..`.
fn inside(raw: &Path) -> Result<Option<PathBuf>, TarballError> {
    let mut parts = Vec::new();
    for component in raw.components() {
        match component {
            Component::Normal(part) => parts.push(part),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(TarballError::UnsafePath(raw.display().to_string()));
            }
        }
    }
    if parts.len() < 2 {
        return Ok(None);
    }
    Ok(Some(parts[1..].iter().collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tgz(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut builder = tar::Builder::new(Vec::new());
        for (path, data) in entries {
            let mut header = tar::Header::new_gnu();
            header.set_size(data.len() as u64);
            header.set_mode(0o644);
            header.set_entry_type(tar::EntryType::Regular);
            // set_path refuses `..`; write the raw name so the reader's check is what is tested.
            let name = &mut header.as_old_mut().name;
            name[..path.len()].copy_from_slice(path.as_bytes());
            header.set_cksum();
            builder.append(&header, *data).unwrap();
        }
        let tar = builder.into_inner().unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, &tar).unwrap();
        gz.finish().unwrap()
    }

    #[test]
    fn unpacks_below_the_top_folder() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out");
        let bytes = tgz(&[
            ("package/pi-extension.toml", b"manifest"),
            ("package/sub/tool.wasm", b"wasm"),
        ]);
        unpack(&bytes, &dest).unwrap();
        assert_eq!(
            std::fs::read(dest.join("pi-extension.toml")).unwrap(),
            b"manifest"
        );
        assert_eq!(std::fs::read(dest.join("sub/tool.wasm")).unwrap(), b"wasm");
    }

    #[test]
    fn refuses_parent_and_absolute_paths() {
        for bad in ["package/../../evil", "/etc/evil", "../evil"] {
            let dir = tempfile::tempdir().unwrap();
            let dest = dir.path().join("out");
            let bytes = tgz(&[("package/ok", b"ok"), (bad, b"evil")]);
            match unpack(&bytes, &dest) {
                Err(TarballError::UnsafePath(path)) => assert_eq!(path, bad),
                other => panic!("{bad}: {other:?}"),
            }
            assert!(!dir.path().join("evil").exists());
        }
    }

    #[test]
    fn refuses_links() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out");
        let mut builder = tar::Builder::new(Vec::new());
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Symlink);
        header.set_size(0);
        builder
            .append_link(&mut header, "package/link", "/etc/passwd")
            .unwrap();
        let tar = builder.into_inner().unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, &tar).unwrap();
        assert!(matches!(
            unpack(&gz.finish().unwrap(), &dest),
            Err(TarballError::Link(name)) if name == "package/link"
        ));
        assert!(std::fs::symlink_metadata(dest.join("link")).is_err());
    }

    #[test]
    fn garbage_is_a_read_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            unpack(b"not gzip", &dir.path().join("out")),
            Err(TarballError::Read(_))
        ));
    }
}
