//! Snapshots of a git work tree in a private git directory (`<checkpoints>/git`): its own
//! index (seeded from the repository's, so only changed files are read), its own objects (it
//! borrows the repository's through `alternates`, so a tracked file is never stored twice), the
//! repository's ignore rules. The repository itself is only read: its index, refs, stash, HEAD
//! and object store stay as they were. The user's git configuration is not read either (no
//! clean filters, no line-ending conversion: a snapshot holds the bytes on disk); only the
//! excludes file it names is copied in.

use super::CheckpointError;
use super::blobs::Blobs;
use super::journal::FileState;
use std::collections::{BTreeSet, HashMap};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A git work tree and the private git directory its snapshots go to.
pub(crate) struct Private {
    git_dir: PathBuf,
    root: PathBuf,
}

/// What the first part of a snapshot gave.
pub(crate) enum Taken {
    /// Nothing changed since the last snapshot: its tree.
    Same(String),
    /// These paths (relative to the work tree) changed.
    Changed(Vec<String>),
    /// They changed, and add up to more than the cap (bytes).
    TooBig(u64, Vec<String>),
}

/// A file of a tree: its git mode and blob id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TreeFile {
    pub mode: u32,
    pub oid: String,
}

/// The top of the git work tree `cwd` is in (`None`: not in one, or no git).
pub(crate) fn toplevel(cwd: &Path) -> Option<PathBuf> {
    let output = user_git(cwd, &["rev-parse", "--show-toplevel"]).ok()?;
    let top = output.trim();
    (!top.is_empty()).then(|| PathBuf::from(top))
}

/// `git args` in the user's repository at `dir`, read-only (no optional locks); its stdout.
fn user_git(dir: &Path, args: &[&str]) -> Result<String, CheckpointError> {
    let mut command = Command::new("git");
    command
        .args(args)
        .current_dir(dir)
        .env("GIT_OPTIONAL_LOCKS", "0");
    for name in REDIRECTS {
        command.env_remove(name);
    }
    run(command, None, args)
}

/// Variables that would point git at another repository than the one asked.
const REDIRECTS: [&str; 6] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
];

fn run(
    mut command: Command,
    input: Option<&[u8]>,
    args: &[&str],
) -> Result<String, CheckpointError> {
    let bytes = run_bytes(&mut command, input, args)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn run_bytes(
    command: &mut Command,
    input: Option<&[u8]>,
    args: &[&str],
) -> Result<Vec<u8>, CheckpointError> {
    let name = args.first().copied().unwrap_or("").to_owned();
    let failed = |message: String| CheckpointError::Git {
        command: name.clone(),
        message,
    };
    command
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().map_err(|e| failed(e.to_string()))?;
    let writer = match (input, child.stdin.take()) {
        (Some(input), Some(mut stdin)) => {
            let input = input.to_vec();
            Some(std::thread::spawn(move || stdin.write_all(&input)))
        }
        _ => None,
    };
    let mut stdout = Vec::new();
    if let Some(mut out) = child.stdout.take() {
        out.read_to_end(&mut stdout)
            .map_err(|e| failed(e.to_string()))?;
    }
    let output = child
        .wait_with_output()
        .map_err(|e| failed(e.to_string()))?;
    if let Some(writer) = writer {
        let _ = writer.join();
    }
    if !output.status.success() {
        let message = String::from_utf8_lossy(&output.stderr).trim().to_owned();
        return Err(failed(if message.is_empty() {
            output.status.to_string()
        } else {
            message
        }));
    }
    Ok(stdout)
}

impl Private {
    /// The private git directory `git_dir` for the work tree at `root`, made on first use.
    pub(crate) fn open(git_dir: PathBuf, root: &Path) -> Result<Private, CheckpointError> {
        let private = Private {
            git_dir,
            root: root.to_path_buf(),
        };
        if !private.git_dir.join("HEAD").exists() {
            private.create()?;
        }
        Ok(private)
    }

    fn create(&self) -> Result<(), CheckpointError> {
        let common = user_git(
            &self.root,
            &["rev-parse", "--path-format=absolute", "--git-common-dir"],
        )?;
        let own = user_git(&self.root, &["rev-parse", "--absolute-git-dir"])?;
        let (common, own) = (PathBuf::from(common.trim()), PathBuf::from(own.trim()));
        let dir = &self.git_dir;
        let io = |path: &Path| CheckpointError::io("write", path);
        for sub in ["objects/info", "refs", "info"] {
            let path = dir.join(sub);
            std::fs::create_dir_all(&path).map_err(io(&path))?;
        }
        let write = |name: &str, text: String| {
            let path = dir.join(name);
            std::fs::write(&path, text).map_err(io(&path))
        };
        write("HEAD", "ref: refs/heads/snapshots\n".to_owned())?;
        write(
            "config",
            "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tautocrlf = false\n\tsymlinks = true\n"
                .to_owned(),
        )?;
        write(
            "objects/info/alternates",
            format!("{}\n", common.join("objects").display()),
        )?;
        write("info/exclude", self.excludes(&common))?;
        // The repository's index tells which files are unchanged without reading them. A copy
        // git cannot read (a split index) is dropped at the first snapshot.
        let index = own.join("index");
        if index.exists() {
            let _ = std::fs::copy(&index, dir.join("index"));
        }
        Ok(())
    }

    /// The repository's `info/exclude` and the user's global excludes file, in one.
    fn excludes(&self, common: &Path) -> String {
        let mut text = std::fs::read_to_string(common.join("info/exclude")).unwrap_or_default();
        let global = user_git(
            &self.root,
            &["config", "--get", "--path", "core.excludesFile"],
        )
        .ok()
        .map(|p| PathBuf::from(p.trim()))
        .filter(|p| !p.as_os_str().is_empty())
        .or_else(default_global_excludes);
        if let Some(global) = global
            && let Ok(more) = std::fs::read_to_string(global)
        {
            text.push('\n');
            text.push_str(&more);
        }
        text
    }

    fn git(&self) -> Command {
        let mut command = Command::new("git");
        command
            .current_dir(&self.root)
            .env("GIT_DIR", &self.git_dir)
            .env("GIT_WORK_TREE", &self.root)
            .env("GIT_INDEX_FILE", self.git_dir.join("index"))
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_OPTIONAL_LOCKS", "0")
            .env_remove("GIT_OBJECT_DIRECTORY")
            .env_remove("GIT_ALTERNATE_OBJECT_DIRECTORIES")
            .env_remove("GIT_COMMON_DIR");
        command
    }

    fn call(&self, args: &[&str], input: Option<&[u8]>) -> Result<Vec<u8>, CheckpointError> {
        let mut command = self.git();
        command.args(args);
        run_bytes(&mut command, input, args)
    }

    /// The work tree now, as a tree, whatever its size. `last` is the tree of the previous
    /// snapshot: when no file changed since (one status check), it is the answer.
    pub(crate) fn snapshot(&self, last: Option<&str>) -> Result<String, CheckpointError> {
        match self.take(last, None)? {
            Taken::Same(tree) => Ok(tree),
            Taken::Changed(paths) | Taken::TooBig(_, paths) => self.finish(&paths),
        }
    }

    /// The part of a snapshot that must happen before the work tree changes: which files
    /// changed since the private index (one status check). Reading them into the tree
    /// ([`Private::finish`]) can wait when the caller keeps their contents meanwhile.
    pub(crate) fn take(
        &self,
        last: Option<&str>,
        cap: Option<u64>,
    ) -> Result<Taken, CheckpointError> {
        let changed = match self.changed() {
            Ok(changed) => changed,
            Err(_) => {
                // A copied index git cannot use: start from an empty one.
                let _ = std::fs::remove_file(self.git_dir.join("index"));
                self.changed()?
            }
        };
        if changed.is_empty()
            && let Some(last) = last
        {
            return Ok(Taken::Same(last.to_owned()));
        }
        let paths: Vec<String> = changed.into_iter().collect();
        if let Some(cap) = cap {
            let bytes: u64 = paths
                .iter()
                .filter_map(|p| std::fs::symlink_metadata(self.root.join(p)).ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum();
            if bytes > cap {
                return Ok(Taken::TooBig(bytes, paths));
            }
        }
        Ok(Taken::Changed(paths))
    }

    /// Makes the tree of the work tree with `paths` read again into the private index.
    pub(crate) fn finish(&self, paths: &[String]) -> Result<String, CheckpointError> {
        if !paths.is_empty() {
            let list: Vec<u8> = paths
                .iter()
                .flat_map(|p| p.bytes().chain(std::iter::once(0)))
                .collect();
            self.call(
                &[
                    "update-index",
                    "--add",
                    "--remove",
                    "--replace",
                    "-z",
                    "--stdin",
                ],
                Some(&list),
            )?;
        }
        let tree = self.call(&["write-tree"], None)?;
        Ok(String::from_utf8_lossy(&tree).trim().to_owned())
    }

    /// Makes the tree of the work tree as it was when `kept` was read (paths relative to the
    /// work tree, with their states then): their contents come from the blob store, not the
    /// work tree, which a command may be changing meanwhile. Their stat data is left empty, so
    /// the next status check reads them again.
    pub(crate) fn finish_kept(
        &self,
        kept: &[(String, FileState)],
        blobs: &Blobs,
    ) -> Result<String, CheckpointError> {
        let mut files = Vec::new();
        let mut info = Vec::new();
        let mut other = Vec::new();
        for (path, state) in kept {
            match state {
                FileState::File { sha256, mode, .. } => {
                    files.push((path, *mode, blobs.path(sha256)))
                }
                FileState::Absent => {
                    info.extend_from_slice(format!("0 {}\t{path}\0", "0".repeat(40)).as_bytes());
                }
                FileState::Link { .. } | FileState::Dir => other.push(path.clone()),
            }
        }
        if !files.is_empty() {
            let list: String = files
                .iter()
                .map(|(_, _, blob)| format!("{}\n", blob.display()))
                .collect();
            let out = self.call(
                &["hash-object", "-w", "--no-filters", "--stdin-paths"],
                Some(list.as_bytes()),
            )?;
            let oids = String::from_utf8_lossy(&out).into_owned();
            for ((path, mode, _), oid) in files.iter().zip(oids.lines()) {
                let mode = if mode & 0o111 != 0 {
                    "100755"
                } else {
                    "100644"
                };
                info.extend_from_slice(format!("{mode} {oid}\t{path}\0").as_bytes());
            }
        }
        if !info.is_empty() {
            self.call(&["update-index", "-z", "--index-info"], Some(&info))?;
        }
        self.finish(&other)
    }

    /// The paths that differ from the private index: changed or deleted (`diff-files`), and
    /// new and not ignored (`ls-files --others`); the two run at once.
    fn changed(&self) -> Result<BTreeSet<String>, CheckpointError> {
        let tracked = ["diff-files", "--name-only", "-z"];
        let others = ["ls-files", "-z", "--others", "--exclude-standard"];
        let spawn = |args: &[&str]| {
            let mut command = self.git();
            command
                .args(args)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
        };
        let failed = |command: &str, message: String| CheckpointError::Git {
            command: command.to_owned(),
            message,
        };
        let first = spawn(&tracked).map_err(|e| failed("diff-files", e.to_string()))?;
        let second = spawn(&others).map_err(|e| failed("ls-files", e.to_string()))?;
        let mut changed = BTreeSet::new();
        for (name, child) in [("diff-files", first), ("ls-files", second)] {
            let output = child
                .wait_with_output()
                .map_err(|e| failed(name, e.to_string()))?;
            if !output.status.success() {
                let message = String::from_utf8_lossy(&output.stderr).trim().to_owned();
                return Err(failed(name, message));
            }
            changed.extend(split_z(&output.stdout).map(str::to_owned));
        }
        Ok(changed)
    }

    /// The files of `tree`, by path relative to the work tree.
    pub(crate) fn files(&self, tree: &str) -> Result<HashMap<String, TreeFile>, CheckpointError> {
        let out = self.call(&["ls-tree", "-r", "-z", "--full-tree", tree], None)?;
        let mut files = HashMap::new();
        for line in split_z(&out) {
            let Some((meta, path)) = line.split_once('\t') else {
                continue;
            };
            let mut parts = meta.split(' ');
            let (Some(mode), Some(kind), Some(oid)) = (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            // Submodules (`commit`) are another repository's business.
            if kind != "blob" {
                continue;
            }
            let Ok(mode) = u32::from_str_radix(mode, 8) else {
                continue;
            };
            files.insert(
                path.to_owned(),
                TreeFile {
                    mode,
                    oid: oid.to_owned(),
                },
            );
        }
        Ok(files)
    }

    /// The paths whose file differs between the trees `a` and `b`.
    pub(crate) fn differing(&self, a: &str, b: &str) -> Result<Vec<String>, CheckpointError> {
        if a == b {
            return Ok(Vec::new());
        }
        let out = self.call(
            &["diff-tree", "-r", "-z", "--no-renames", "--name-only", a, b],
            None,
        )?;
        Ok(split_z(&out).map(str::to_owned).collect())
    }

    /// The contents of the blobs `oids`.
    pub(crate) fn contents(
        &self,
        oids: &[&str],
    ) -> Result<HashMap<String, Vec<u8>>, CheckpointError> {
        if oids.is_empty() {
            return Ok(HashMap::new());
        }
        let input = oids
            .iter()
            .map(|oid| format!("{oid}\n"))
            .collect::<String>();
        let out = self.call(&["cat-file", "--batch"], Some(input.as_bytes()))?;
        parse_batch(&out)
    }

    pub(crate) fn root(&self) -> &Path {
        &self.root
    }
}

fn default_global_excludes() -> Option<PathBuf> {
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))?;
    Some(config.join("git/ignore"))
}

fn split_z(out: &[u8]) -> impl Iterator<Item = &str> {
    out.split(|b| *b == 0)
        .filter(|part| !part.is_empty())
        .filter_map(|part| std::str::from_utf8(part).ok())
}

/// `cat-file --batch` output: `<oid> <type> <size>\n<content>\n` per object.
fn parse_batch(mut out: &[u8]) -> Result<HashMap<String, Vec<u8>>, CheckpointError> {
    let bad = |message: &str| CheckpointError::Git {
        command: "cat-file".to_owned(),
        message: message.to_owned(),
    };
    let mut contents = HashMap::new();
    while !out.is_empty() {
        let end = out
            .iter()
            .position(|b| *b == b'\n')
            .ok_or_else(|| bad("no header"))?;
        let header = String::from_utf8_lossy(&out[..end]).into_owned();
        let mut parts = header.split(' ');
        let oid = parts.next().unwrap_or_default().to_owned();
        let size = match (parts.next(), parts.next()) {
            (Some(_), Some(size)) => size.parse::<usize>().map_err(|_| bad(&header))?,
            _ => return Err(bad(&format!("{header} (missing object)"))),
        };
        let body = out
            .get(end + 1..end + 1 + size)
            .ok_or_else(|| bad("short object"))?;
        contents.insert(oid, body.to_vec());
        out = out.get(end + 2 + size..).unwrap_or_default();
    }
    Ok(contents)
}
