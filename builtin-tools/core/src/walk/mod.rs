//! The directory walk of `grep` and `find`: rg's and fd's filtering (ignore files per
//! directory, the ignore files above the workspace, overrides) over a [`DirSource`], one
//! directory listing per directory and no per-entry `stat`.
//!
//! The `ignore` crate supplies the rules themselves (`rules`); only its walking is replaced,
//! so that a component can list a directory in one host call (its own walker stats every
//! entry through WASI). Entries come in path order (each directory's entries sorted by name,
//! a directory right before its contents), so a walk that stops at a limit keeps the first
//! results in the order they are shown. Symbolic links are reported, never followed (except
//! the walk's start).

mod rules;
pub mod shard;
pub mod source;

use crate::ancestor_ignores::{self, AncestorIgnores, GitExcludes};
use ignore::gitignore::Gitignore;
use ignore::overrides::Override;
use rules::{Kind, Layer, Rules};
use shard::Shard;
pub use source::{DirSource, EntryKind, ListedEntry, OpenDir, StdSource};
use std::ffi::OsStr;
use std::io;
use std::ops::ControlFlow;
use std::path::Path;

/// What a walk filters, as the tool's rg or fd command line would.
pub struct WalkConfig<'a> {
    /// The tool's own ignore file (`.rgignore`, `.fdignore`).
    pub tool_file: &'static str,
    /// Whether git's rules count only inside a repository (rg; fd runs with
    /// `--no-require-git`).
    pub require_git: bool,
    /// Whether `.git` directories are left out (fd).
    pub skip_git_dir: bool,
    /// Globs that decide before any ignore file (rg's `--glob`).
    pub overrides: Option<Override>,
    /// The ignore files above the workspace, nearest first.
    pub ancestors: Option<&'a AncestorIgnores>,
    /// The workspace root: ignore files between it and the walk's start are read too.
    pub workspace_root: &'a Path,
    /// Git's exclude files outside the workspace (the user's global excludes, the workspace
    /// root's `info/exclude` when it is a linked worktree).
    pub git_excludes: Option<&'a GitExcludes>,
    /// The session cwd, which the global excludes' patterns are relative to (rg's and fd's
    /// are relative to their working directory).
    pub cwd: &'a Path,
    /// The part of the walk this call does when split between instances.
    pub shard: Option<Shard>,
}

/// One entry the walk yields.
pub struct Entry<'a> {
    /// Absolute path.
    pub path: &'a Path,
    /// 0 for the walk's start, 1 for its entries, and so on.
    pub depth: usize,
    pub kind: EntryKind,
    /// Its name (the last component of `path`).
    pub name: &'a OsStr,
    /// The directory holding it (none for the walk's start).
    parent: Option<&'a dyn OpenDir>,
}

impl Entry<'_> {
    /// Reads the entry's whole contents.
    pub fn read(&self, source: &dyn DirSource) -> io::Result<Vec<u8>> {
        match self.parent {
            Some(dir) => dir.read_file(self.name),
            None => source.read(self.path),
        }
    }
}

/// Walks `root` (a directory, or a single file yielded alone), calling `visit` for every
/// entry the rules keep until it breaks. Directories that cannot be listed are skipped.
pub fn walk(
    source: &dyn DirSource,
    root: &Path,
    root_is_dir: bool,
    config: &WalkConfig<'_>,
    visit: &mut dyn FnMut(&Entry<'_>) -> ControlFlow<()>,
) {
    let entry = Entry {
        path: root,
        depth: 0,
        kind: if root_is_dir {
            EntryKind::Dir
        } else {
            EntryKind::File
        },
        name: root.file_name().unwrap_or_default(),
        parent: None,
    };
    if visit(&entry).is_break() || !root_is_dir {
        return;
    }
    let Ok(top) = source.open(root) else {
        tracing::debug!(dir = %root.display(), "walk cannot open its start");
        return;
    };
    let mut walker = Walker {
        config,
        rules: Rules::new(config.require_git, global_excludes(config)),
        source,
        visit,
        root,
        stopped: false,
    };
    walker.parents(source, root);
    walker.dir(&*top, root, 1);
}

/// The user's global git excludes (read natively, sent by the host to a component), anchored
/// at the session cwd as rg anchors them at its working directory.
fn global_excludes(config: &WalkConfig<'_>) -> Option<Gitignore> {
    let contents = config.git_excludes?.global.as_deref()?;
    rules::matcher(config.cwd, config.cwd, "global git excludes", contents)
}

struct Walker<'c, 'v> {
    config: &'c WalkConfig<'c>,
    rules: Rules,
    source: &'c dyn DirSource,
    visit: &'v mut dyn FnMut(&Entry<'_>) -> ControlFlow<()>,
    root: &'c Path,
    stopped: bool,
}

impl Walker<'_, '_> {
    /// Loads the rules of the directories above `root`: those the host read above the
    /// workspace, then those between the workspace root and `root`.
    fn parents(&mut self, source: &dyn DirSource, root: &Path) {
        if let Some(ancestors) = self.config.ancestors {
            for layer in ancestor_layers(ancestors, self.config) {
                self.rules.push(layer);
            }
        }
        let mut between: Vec<&Path> = root
            .ancestors()
            .skip(1)
            .take_while(|dir| dir.starts_with(self.config.workspace_root))
            .collect();
        between.reverse();
        for dir in between {
            let Ok(handle) = source.open(dir) else {
                continue;
            };
            let Ok(entries) = handle.entries() else {
                continue;
            };
            let layer = read_layer(source, &*handle, dir, &entries, self.config);
            self.rules.push(layer);
        }
    }

    /// Yields the entries of the directory `path` (open as `handle`) and walks into its
    /// subdirectories.
    fn dir(&mut self, handle: &dyn OpenDir, path: &Path, depth: usize) {
        let Ok(mut entries) = handle.entries() else {
            tracing::debug!(dir = %path.display(), "walk skipped a directory it cannot list");
            return;
        };
        entries.sort_unstable_by(|a, b| a.name.cmp(&b.name));
        let layer = read_layer(self.source, handle, path, &entries, self.config);
        let pushed = self.rules.push(layer);
        for listed in &entries {
            let child = path.join(&listed.name);
            let is_dir = listed.kind == EntryKind::Dir;
            if self.skips(&child, &listed.name, is_dir, depth) {
                continue;
            }
            let entry = Entry {
                path: &child,
                depth,
                kind: listed.kind,
                name: &listed.name,
                parent: Some(handle),
            };
            if (self.visit)(&entry).is_break() {
                self.stopped = true;
                break;
            }
            if is_dir {
                match handle.open_dir(&listed.name) {
                    Ok(sub) => self.dir(&*sub, &child, depth + 1),
                    Err(err) => {
                        tracing::debug!(dir = %child.display(), %err, "walk skipped a directory")
                    }
                }
                if self.stopped {
                    break;
                }
            }
        }
        if pushed {
            self.rules.pop();
        }
    }

    /// Whether the walk leaves out the entry at `path` (and, for a directory, all below it).
    fn skips(&self, path: &Path, name: &OsStr, is_dir: bool, depth: usize) -> bool {
        let decided = match &self.config.overrides {
            Some(overrides) => {
                let m = overrides.matched(path, is_dir);
                if m.is_ignore() {
                    return true;
                }
                m.is_whitelist()
            }
            None => false,
        };
        if !decided && self.rules.ignores(path, is_dir) {
            return true;
        }
        if self.config.skip_git_dir && name == ".git" {
            return true;
        }
        // Only the split depth is shared out (`Path::strip_prefix` compares component by
        // component: not for every entry).
        self.config.shard.is_some_and(|shard| {
            depth == shard::SHARD_DEPTH && {
                let rel = path.strip_prefix(self.root).unwrap_or(path);
                !shard::walks(Some(shard), depth, rel)
            }
        })
    }
}

/// The layer of a directory from its listing: the rule files present in it, read through
/// `handle` (a worktree's exclude through `source`).
fn read_layer(
    source: &dyn DirSource,
    handle: &dyn OpenDir,
    dir: &Path,
    entries: &[ListedEntry],
    config: &WalkConfig<'_>,
) -> Layer {
    let mut files: Vec<(Kind, String)> = Vec::new();
    let mut git_dir = None;
    for entry in entries {
        let Some(name) = entry.name.to_str() else {
            continue;
        };
        if name == ".git" {
            git_dir = Some(entry.kind);
            continue;
        }
        let Some(kind) = Kind::of(name, config.tool_file).filter(|k| *k != Kind::Exclude) else {
            continue;
        };
        if let Ok(bytes) = handle.read_file(&entry.name) {
            files.push((kind, String::from_utf8_lossy(&bytes).into_owned()));
        }
    }
    if let Some(kind) = git_dir
        && let Some(contents) = read_exclude(source, handle, dir, kind, config)
    {
        files.push((Kind::Exclude, contents));
    }
    // (A `.git` file, a linked worktree's, makes a repository root too, as for rg.)
    let has_git = config.require_git && git_dir.is_some();
    Layer::build(dir, files.iter().map(|(k, c)| (*k, c.as_str())), has_git)
}

/// The `info/exclude` of the repository rooted at `dir`, whose `.git` is listed as `kind`:
/// inside `.git` when it is a directory. A linked worktree's `.git` is a file and the exclude
/// lies in the repository's common git directory: the host sends it for the workspace root
/// (a component cannot read outside the workspace); elsewhere it is read through `source`,
/// which inside a component fails (and the exclude is skipped) when it lies outside.
fn read_exclude(
    source: &dyn DirSource,
    handle: &dyn OpenDir,
    dir: &Path,
    kind: EntryKind,
    config: &WalkConfig<'_>,
) -> Option<String> {
    if kind == EntryKind::Dir {
        return read_git_dir_exclude(handle);
    }
    if dir == config.workspace_root
        && let Some(sent) = config.git_excludes.and_then(|g| g.root_exclude.as_ref())
    {
        return Some(sent.clone());
    }
    // (A symbolic link may lead to either.)
    if kind == EntryKind::Symlink
        && let Some(contents) = read_git_dir_exclude(handle)
    {
        return Some(contents);
    }
    let path = ancestor_ignores::worktree_exclude_path(dir, &mut |p| source.read(p))?;
    match source.read(&path) {
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Err(err) => {
            tracing::debug!(file = %path.display(), %err, "worktree exclude skipped");
            None
        }
    }
}

/// `.git/info/exclude` of a repository root whose `.git` is a directory.
fn read_git_dir_exclude(handle: &dyn OpenDir) -> Option<String> {
    let git = handle.open_dir(OsStr::new(".git")).ok()?;
    let info = git.open_dir(OsStr::new("info")).ok()?;
    let bytes = info.read_file(OsStr::new("exclude")).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// The layers of the ignore files above the workspace, top directory first.
fn ancestor_layers(ancestors: &AncestorIgnores, config: &WalkConfig<'_>) -> Vec<Layer> {
    let mut layers = Vec::new();
    let mut dirs: Vec<&Path> = Vec::new();
    for file in &ancestors.files {
        if dirs.last() != Some(&file.dir.as_path()) {
            dirs.push(&file.dir);
        }
    }
    if !dirs.contains(&ancestors.repo_root.as_path()) {
        dirs.push(&ancestors.repo_root);
    }
    for dir in dirs.into_iter().rev() {
        let files = ancestors
            .files
            .iter()
            .filter(|f| f.dir == dir)
            .filter_map(|f| Some((Kind::of(&f.name, config.tool_file)?, f.contents.as_str())));
        let has_git = config.require_git && dir == ancestors.repo_root;
        layers.push(Layer::build(dir, files, has_git));
    }
    layers
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// `std::fs`, except that directories named `locked` cannot be listed (as a directory
    /// without read permission, which a test running as root cannot make).
    struct Locked;
    struct LockedDir(Box<dyn OpenDir>, bool);

    impl DirSource for Locked {
        fn open(&self, path: &Path) -> io::Result<Box<dyn OpenDir>> {
            Ok(Box::new(LockedDir(StdSource.open(path)?, false)))
        }
        fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
            StdSource.read(path)
        }
    }

    impl OpenDir for LockedDir {
        fn entries(&self) -> io::Result<Vec<ListedEntry>> {
            if self.1 {
                return Err(io::Error::from(io::ErrorKind::PermissionDenied));
            }
            self.0.entries()
        }
        fn open_dir(&self, name: &OsStr) -> io::Result<Box<dyn OpenDir>> {
            Ok(Box::new(LockedDir(
                self.0.open_dir(name)?,
                name == "locked",
            )))
        }
        fn read_file(&self, name: &OsStr) -> io::Result<Vec<u8>> {
            self.0.read_file(name)
        }
    }

    fn paths(source: &dyn DirSource, root: &Path, config: &WalkConfig<'_>) -> Vec<String> {
        let mut found = Vec::new();
        walk(source, root, true, config, &mut |entry| {
            let rel = entry.path.strip_prefix(root).unwrap_or(entry.path);
            found.push(rel.to_string_lossy().into_owned());
            ControlFlow::Continue(())
        });
        found
    }

    fn config(root: &Path) -> WalkConfig<'_> {
        WalkConfig {
            tool_file: ".fdignore",
            require_git: false,
            skip_git_dir: true,
            overrides: None,
            ancestors: None,
            workspace_root: root,
            git_excludes: None,
            cwd: root,
            shard: None,
        }
    }

    fn tree() -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        for file in [
            "b/x.txt",
            "locked/secret.txt",
            "a.txt",
            "c/d/e.txt",
            ".git/HEAD",
        ] {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x").unwrap();
        }
        (tmp, root)
    }

    #[test]
    fn entries_come_in_path_order_and_git_dirs_are_left_out() {
        let (_tmp, root) = tree();
        assert_eq!(
            paths(&StdSource, &root, &config(&root)),
            [
                "",
                "a.txt",
                "b",
                "b/x.txt",
                "c",
                "c/d",
                "c/d/e.txt",
                "locked",
                "locked/secret.txt"
            ]
        );
    }

    #[test]
    fn a_directory_that_cannot_be_listed_is_skipped_and_the_walk_goes_on() {
        let (_tmp, root) = tree();
        assert_eq!(
            paths(&Locked, &root, &config(&root)),
            [
                "",
                "a.txt",
                "b",
                "b/x.txt",
                "c",
                "c/d",
                "c/d/e.txt",
                "locked"
            ]
        );
    }

    #[test]
    fn deeper_rules_win_and_the_tool_file_beats_gitignore() {
        let (_tmp, root) = tree();
        std::fs::write(root.join(".gitignore"), "*.txt\n").unwrap();
        std::fs::write(root.join("c/.gitignore"), "!e.txt\n").unwrap();
        std::fs::write(root.join("b/.fdignore"), "!x.txt\n").unwrap();
        std::fs::write(root.join(".fdignore"), "locked/\n").unwrap();
        assert_eq!(
            paths(&StdSource, &root, &config(&root)),
            [
                "",
                ".fdignore",
                ".gitignore",
                "b",
                "b/.fdignore",
                "b/x.txt",
                "c",
                "c/.gitignore",
                "c/d",
                "c/d/e.txt"
            ]
        );
    }

    /// `std::fs` confined to a directory, as a component's preopened workspace: nothing
    /// outside it can be opened or read.
    struct Confined(PathBuf);

    impl Confined {
        fn check(&self, path: &Path) -> io::Result<()> {
            if path.starts_with(&self.0) {
                Ok(())
            } else {
                Err(io::Error::from(io::ErrorKind::PermissionDenied))
            }
        }
    }

    impl DirSource for Confined {
        fn open(&self, path: &Path) -> io::Result<Box<dyn OpenDir>> {
            self.check(path)?;
            StdSource.open(path)
        }
        fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
            self.check(path)?;
            StdSource.read(path)
        }
    }

    fn put(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// A linked worktree at `dir` of the repository whose git directory is `main_git`.
    fn worktree(dir: &Path, main_git: &Path, name: &str) {
        let git_dir = main_git.join("worktrees").join(name);
        put(&git_dir.join("commondir"), "../..\n");
        put(
            &dir.join(".git"),
            &format!("gitdir: {}\n", git_dir.display()),
        );
    }

    #[test]
    fn a_worktree_exclude_comes_from_the_common_directory_or_from_the_host() {
        let tmp = tempfile::tempdir().unwrap();
        let top = tmp.path().canonicalize().unwrap();
        let main_git = top.join("main/.git");
        put(&main_git.join("info/exclude"), "/only.txt\n");
        let ws = top.join("ws");
        worktree(&ws, &main_git, "ws");
        put(&ws.join("only.txt"), "x");
        put(&ws.join("sub/only.txt"), "x");
        let mut config = config(&ws);
        config.require_git = true;
        let kept = ["", "sub", "sub/only.txt"];
        assert_eq!(paths(&StdSource, &ws, &config), kept);
        // A component cannot read the common directory outside its workspace...
        let confined = Confined(ws.clone());
        assert_eq!(
            paths(&confined, &ws, &config),
            ["", "only.txt", "sub", "sub/only.txt"]
        );
        // ...so the host sends the workspace root's exclude.
        let sent = GitExcludes {
            root_exclude: Some("/only.txt\n".into()),
            ..GitExcludes::default()
        };
        config.git_excludes = Some(&sent);
        assert_eq!(paths(&confined, &ws, &config), kept);
        // A worktree nested in the workspace, whose common directory the workspace holds,
        // is read through the source.
        let main = top.join("main");
        worktree(&main.join("nested"), &main_git, "nested");
        put(&main.join("nested/only.txt"), "x");
        put(&main.join("nested/other.txt"), "x");
        let mut config = super::tests::config(&main);
        config.require_git = true;
        assert_eq!(
            paths(&Confined(main.clone()), &main, &config),
            ["", "nested", "nested/other.txt"]
        );
    }

    #[test]
    fn global_excludes_are_relative_to_the_cwd_and_may_need_a_repository() {
        let (_tmp, root) = tree();
        std::fs::remove_dir_all(root.join(".git")).unwrap();
        put(&root.join("b/a.txt"), "x");
        let global = GitExcludes {
            global: Some("/a.txt\nx.txt\n".into()),
            ..GitExcludes::default()
        };
        let mut config = config(&root);
        let cwd = root.join("b");
        config.cwd = &cwd;
        config.git_excludes = Some(&global);
        let all = paths(&StdSource, &root, &config);
        assert!(all.contains(&"a.txt".to_owned()), "{all:?}");
        assert!(!all.iter().any(|p| p.starts_with("b/")), "{all:?}");
        // When git's rules need a repository (rg), they need one...
        config.require_git = true;
        let outside = paths(&StdSource, &root, &config);
        assert!(outside.contains(&"b/a.txt".to_owned()), "{outside:?}");
        assert!(outside.contains(&"b/x.txt".to_owned()), "{outside:?}");
        // ...and a `.git` file (a linked worktree's) makes one.
        put(&root.join(".git"), "gitdir: /nowhere\n");
        let inside = paths(&StdSource, &root, &config);
        assert!(!inside.iter().any(|p| p.starts_with("b/")), "{inside:?}");
    }
}
