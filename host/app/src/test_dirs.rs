//! An agent directory and a project beside it in a temp dir, for unit tests.

use std::path::PathBuf;

pub(crate) struct Dirs {
    _tmp: tempfile::TempDir,
    pub(crate) agent: PathBuf,
    pub(crate) cwd: PathBuf,
}

#[allow(clippy::unwrap_used)]
pub(crate) fn dirs() -> Dirs {
    let tmp = tempfile::tempdir().unwrap();
    let (agent, cwd) = (tmp.path().join("agent"), tmp.path().join("project"));
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::create_dir_all(&cwd).unwrap();
    Dirs {
        _tmp: tmp,
        agent,
        cwd,
    }
}
