//! Where a component's bytes come from: a file of an extension package, or bytes built into pi.

use std::path::PathBuf;

/// Where a component's bytes come from.
#[derive(Clone)]
pub enum ComponentSource {
    /// A `.wasm` file on disk (extensions).
    File(PathBuf),
    /// Bytes built into pi (the built-in tools). `name` stands in for a path in messages;
    /// `sha256` is the digest of `bytes`, computed at build time so that finding the cached
    /// artifact never reads (and so never pages in) the embedded bytes.
    Embedded {
        name: String,
        bytes: &'static [u8],
        sha256: &'static str,
    },
}

impl ComponentSource {
    /// The path, or the embedded component's name, for messages.
    pub fn display_path(&self) -> PathBuf {
        match self {
            ComponentSource::File(path) => path.clone(),
            ComponentSource::Embedded { name, .. } => PathBuf::from(name),
        }
    }
}
