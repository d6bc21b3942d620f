//! Ignore files outside the workspace, for `grep` and `find` running as components.
//!
//! rg and fd respect the ignore files of every directory between the searched directory and
//! its git repository root, the repository's `info/exclude` (in the common git directory
//! when the repository is a linked worktree) and the user's global git excludes. A component
//! only has the workspace preopened, so it can read none of those that lie outside it, nor
//! see the `.git` that makes a `.gitignore` count. The host therefore reads them
//! ([`AncestorIgnores::read`], [`GitExcludes::read`]) and sends them with the call (the
//! invocation context); the walk puts their rules above the workspace's
//! own, so a `!pattern` in the workspace re-includes what they ignore. Natively nothing is
//! sent: the tools read them with the same functions themselves.

use crate::paths::normalize_lexically;
use serde::{Deserialize, Serialize};
use std::io;
use std::path::{Path, PathBuf};

/// Names of the ignore files read in each ancestor, lowest precedence first (as the `ignore`
/// crate ranks them: `.ignore` over `.gitignore`, a tool's own file over both).
const NAMES: [&str; 4] = [".gitignore", ".ignore", ".rgignore", ".fdignore"];
/// The repository's own exclude file, below every ignore file in precedence (the name its
/// rules are filed under, wherever a worktree's common git directory keeps it).
const EXCLUDE: &str = ".git/info/exclude";

/// One ignore file of a directory above the workspace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AncestorIgnoreFile {
    /// The directory its rules are anchored at (absolute host path).
    pub dir: PathBuf,
    /// Its name inside `dir` (`.gitignore`, `.ignore`, ...).
    pub name: String,
    pub contents: String,
}

/// The ignore files between the workspace (excluded) and its git repository root (included).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AncestorIgnores {
    /// The directory holding `.git`, above the workspace.
    pub repo_root: PathBuf,
    /// Nearest directory first; within a directory, lowest precedence first.
    pub files: Vec<AncestorIgnoreFile>,
}

impl AncestorIgnores {
    /// Reads the ignore files from the parent of `workspace` up to its git repository root.
    /// `None` when the workspace is itself a repository root or lies in no repository: then
    /// nothing above it is read (rg and fd would not apply those `.gitignore` files either).
    pub fn read(workspace: &Path) -> Option<Self> {
        if workspace.join(".git").exists() {
            return None;
        }
        let repo_root = workspace
            .ancestors()
            .skip(1)
            .find(|dir| dir.join(".git").exists())?;
        let mut files = Vec::new();
        for dir in workspace.ancestors().skip(1) {
            let names = if dir == repo_root {
                std::iter::once(EXCLUDE).chain(NAMES).collect()
            } else {
                NAMES.to_vec()
            };
            for name in names {
                let path = if name == EXCLUDE {
                    exclude_path(dir, &mut |p| std::fs::read(p))
                } else {
                    Some(dir.join(name))
                };
                if let Some(Ok(contents)) = path.map(std::fs::read_to_string) {
                    files.push(AncestorIgnoreFile {
                        dir: dir.to_path_buf(),
                        name: name.to_owned(),
                        contents,
                    });
                }
            }
            if dir == repo_root {
                break;
            }
        }
        Some(AncestorIgnores {
            repo_root: repo_root.to_path_buf(),
            files,
        })
    }
}

/// Git's exclude files outside the workspace that the walk applies besides the ignore files:
/// what a component cannot read (the host reads them with [`GitExcludes::read`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GitExcludes {
    /// The user's global excludes file (see [`global_excludes_file`]); its patterns are
    /// relative to the session cwd, as rg's and fd's are to their working directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub global: Option<String>,
    /// `info/exclude` of the repository when the workspace root is a linked worktree (its
    /// `.git` a file): it lives in the repository's common git directory, usually outside the
    /// workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_exclude: Option<String>,
}

impl GitExcludes {
    /// Reads the global excludes file at `global_file` (from [`global_excludes_file`]) and,
    /// when `root` is a linked worktree, its repository's `info/exclude`. `None` when neither
    /// exists.
    pub fn read(global_file: Option<&Path>, root: &Path) -> Option<Self> {
        let global = global_file.and_then(read_text);
        let root_exclude = if root.join(".git").is_file() {
            worktree_exclude_path(root, &mut |p| std::fs::read(p)).and_then(|p| read_text(&p))
        } else {
            None
        };
        (global.is_some() || root_exclude.is_some()).then_some(GitExcludes {
            global,
            root_exclude,
        })
    }
}

fn read_text(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Where the `info/exclude` of the repository rooted at `dir` is, natively.
fn exclude_path(dir: &Path, read: &mut dyn FnMut(&Path) -> io::Result<Vec<u8>>) -> Option<PathBuf> {
    if dir.join(".git").is_dir() {
        Some(dir.join(EXCLUDE))
    } else {
        worktree_exclude_path(dir, read)
    }
}

/// The `info/exclude` of a linked worktree's repository, found as git and the `ignore` crate
/// find it: `dir/.git` is a file `gitdir: <path>` naming the worktree's git directory, whose
/// `commondir` file names the repository's common git directory, which holds
/// `info/exclude`. Relative paths count from the directory holding the file that names them
/// (git's rule). `read` reads a whole file. `None` when a step is missing or unreadable
/// (logged): without a `commondir` (a submodule's git directory) rg reads no exclude either.
pub fn worktree_exclude_path(
    dir: &Path,
    read: &mut dyn FnMut(&Path) -> io::Result<Vec<u8>>,
) -> Option<PathBuf> {
    let dot_git = dir.join(".git");
    let line = first_line(&dot_git, read)?;
    let Some(git_dir) = line.strip_prefix("gitdir: ") else {
        tracing::debug!(file = %dot_git.display(), "a .git file without `gitdir: `");
        return None;
    };
    let git_dir = normalize_lexically(&dir.join(git_dir));
    let common = first_line(&git_dir.join("commondir"), read)?;
    Some(normalize_lexically(
        &git_dir.join(common).join("info/exclude"),
    ))
}

/// The first line of the file at `path`.
fn first_line(path: &Path, read: &mut dyn FnMut(&Path) -> io::Result<Vec<u8>>) -> Option<String> {
    match read(path) {
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).lines().next()?.to_owned()),
        Err(err) => {
            tracing::debug!(file = %path.display(), %err, "git worktree: cannot read");
            None
        }
    }
}

/// Where the user's global git excludes file is, looked up as the `ignore` crate (rg, fd)
/// looks it up: `core.excludesFile` of the first git config that sets it among
/// `$GIT_CONFIG_GLOBAL`, `~/.gitconfig`, `$XDG_CONFIG_HOME/git/config` (or
/// `~/.config/git/config`) and the system config (`$GIT_CONFIG_SYSTEM` or `/etc/gitconfig`);
/// otherwise `$XDG_CONFIG_HOME/git/ignore` (or `~/.config/git/ignore`). `home` and `env` are
/// the user's home and environment, given rather than taken from the process so a host (or a
/// test) decides whose they are. The file may not exist.
pub fn global_excludes_file(home: Option<&Path>, env: &[(String, String)]) -> Option<PathBuf> {
    let var = |name: &str| {
        env.iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
    };
    let config_home = var("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| home.map(|h| h.join(".config")));
    let configs = [
        var("GIT_CONFIG_GLOBAL").map(PathBuf::from),
        home.map(|h| h.join(".gitconfig")),
        config_home.as_ref().map(|c| c.join("git/config")),
        Some(PathBuf::from(
            var("GIT_CONFIG_SYSTEM").unwrap_or("/etc/gitconfig"),
        )),
    ];
    configs
        .into_iter()
        .flatten()
        .find_map(|config| parse_excludes_file(&read_text(&config)?, home))
        .or_else(|| config_home.map(|c| c.join("git/ignore")))
}

/// `core.excludesFile` of a git config's text, read as the `ignore` crate reads it: the first
/// line `excludesfile = <value>` (any case, in any section, the value optionally quoted and
/// without inner spaces), a leading `~` standing for `home`.
fn parse_excludes_file(config: &str, home: Option<&Path>) -> Option<PathBuf> {
    const KEY: &str = "excludesfile";
    config.lines().find_map(|line| {
        let line = line.trim();
        if !line.get(..KEY.len())?.eq_ignore_ascii_case(KEY) {
            return None;
        }
        let value = line[KEY.len()..].trim_start().strip_prefix('=')?.trim();
        let value = value.strip_prefix('"').unwrap_or(value).trim_start();
        let value = value.strip_suffix('"').unwrap_or(value).trim_end();
        if value.is_empty() || value.contains(char::is_whitespace) {
            return None;
        }
        Some(expand_tilde(value, home))
    })
}

/// `~` and `~/rest` as paths in `home` (git expands no `~user`).
fn expand_tilde(path: &str, home: Option<&Path>) -> PathBuf {
    match (home, path.strip_prefix('~')) {
        (Some(home), Some("")) => home.to_path_buf(),
        (Some(home), Some(rest)) if rest.starts_with('/') => home.join(&rest[1..]),
        _ => PathBuf::from(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn reads_up_to_the_repository_root_only() {
        let tmp = tempfile::tempdir().unwrap();
        let top = tmp.path().canonicalize().unwrap();
        write(&top.join(".gitignore"), "above-the-repo\n");
        let repo = top.join("repo");
        std::fs::create_dir_all(repo.join(".git/info")).unwrap();
        write(&repo.join(".git/info/exclude"), "excluded\n");
        write(&repo.join(".gitignore"), "*.log\n");
        write(&repo.join("a/.ignore"), "*.tmp\n");
        write(&repo.join("a/.rgignore"), "*.rg\n");
        let ws = repo.join("a/ws");
        write(&ws.join(".gitignore"), "the workspace reads its own\n");
        let found = AncestorIgnores::read(&ws).unwrap();
        assert_eq!(found.repo_root, repo);
        let names: Vec<(PathBuf, &str)> = found
            .files
            .iter()
            .map(|f| (f.dir.clone(), f.name.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                (repo.join("a"), ".ignore"),
                (repo.join("a"), ".rgignore"),
                (repo.clone(), EXCLUDE),
                (repo.clone(), ".gitignore"),
            ]
        );
        assert_eq!(found.files[3].contents, "*.log\n");
        // The repository root itself as workspace, or no repository: nothing above is read.
        assert_eq!(AncestorIgnores::read(&repo), None);
        let loose = top.join("loose/ws");
        std::fs::create_dir_all(&loose).unwrap();
        assert_eq!(AncestorIgnores::read(&loose), None);
    }

    fn env(pairs: &[(&str, &Path)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string_lossy().into_owned()))
            .collect()
    }

    #[test]
    fn the_global_excludes_file_is_looked_up_as_the_ignore_crate_does() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let none = tmp.path().join("none");
        let isolated = env(&[("GIT_CONFIG_SYSTEM", &none)]);
        // No config sets it: git's default place.
        assert_eq!(
            global_excludes_file(Some(&home), &isolated),
            Some(home.join(".config/git/ignore"))
        );
        let xdg = tmp.path().join("xdg");
        let with_xdg = env(&[("GIT_CONFIG_SYSTEM", &none), ("XDG_CONFIG_HOME", &xdg)]);
        assert_eq!(
            global_excludes_file(Some(&home), &with_xdg),
            Some(xdg.join("git/ignore"))
        );
        // $XDG_CONFIG_HOME/git/config, below ~/.gitconfig, above the system config.
        write(
            &xdg.join("git/config"),
            "[core]\n  excludesfile = /from/xdg\n",
        );
        assert_eq!(
            global_excludes_file(Some(&home), &with_xdg),
            Some(PathBuf::from("/from/xdg"))
        );
        write(
            &home.join(".gitconfig"),
            "[user]\n\tname = x\n[core]\n\tExcludesFile = \"~/ex cl\"\n\texcludesFile = \"~/ex\"\n",
        );
        assert_eq!(
            global_excludes_file(Some(&home), &with_xdg),
            Some(home.join("ex"))
        );
        let global = tmp.path().join("global-config");
        write(&global, "[core]\nexcludesFile=/from/global\n");
        let mut with_global = with_xdg.clone();
        with_global.extend(env(&[("GIT_CONFIG_GLOBAL", &global)]));
        assert_eq!(
            global_excludes_file(Some(&home), &with_global),
            Some(PathBuf::from("/from/global"))
        );
        let system = tmp.path().join("system-config");
        write(&system, "[core]\nexcludesfile = /from/system\n");
        let with_system = env(&[("GIT_CONFIG_SYSTEM", &system)]);
        assert_eq!(
            global_excludes_file(Some(&home), &with_system),
            Some(home.join("ex"))
        );
        assert_eq!(
            global_excludes_file(Some(&none), &with_system),
            Some(PathBuf::from("/from/system"))
        );
        // No home, no XDG: nowhere.
        assert_eq!(global_excludes_file(None, &isolated), None);
    }

    #[test]
    fn a_config_line_names_the_excludes_file_only_when_well_formed() {
        let home = Path::new("/h");
        let parse = |text: &str| parse_excludes_file(text, Some(home));
        assert_eq!(parse("excludesfile = ~"), Some(PathBuf::from("/h")));
        assert_eq!(
            parse("excludesfile=~user/x"),
            Some(PathBuf::from("~user/x"))
        );
        assert_eq!(
            parse(" EXCLUDESFILE = \" /a/b \" "),
            Some(PathBuf::from("/a/b"))
        );
        assert_eq!(parse("excludesfiles = /a"), None);
        assert_eq!(parse("excludefile = /a"), None);
        assert_eq!(parse("excludesfile = /a b"), None);
        assert_eq!(parse("excludesfile ="), None);
    }

    #[test]
    fn a_worktree_exclude_lives_in_the_common_git_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let top = tmp.path().canonicalize().unwrap();
        let git_dir = top.join("main/.git/worktrees/wt");
        write(&git_dir.join("commondir"), "../..\n");
        write(&top.join("main/.git/info/exclude"), "from-main\n");
        let read = &mut |p: &Path| std::fs::read(p);
        // Absolute gitdir (what `git worktree add` writes).
        write(
            &top.join("wt/.git"),
            &format!("gitdir: {}\n", git_dir.display()),
        );
        let exclude = top.join("main/.git/info/exclude");
        assert_eq!(
            worktree_exclude_path(&top.join("wt"), read),
            Some(exclude.clone())
        );
        // Relative gitdir: from the directory holding the `.git` file.
        write(&top.join("wt/.git"), "gitdir: ../main/.git/worktrees/wt");
        assert_eq!(
            worktree_exclude_path(&top.join("wt"), read),
            Some(exclude.clone())
        );
        // A workspace below the worktree gets the exclude with the ancestors.
        std::fs::create_dir_all(top.join("wt/ws")).unwrap();
        let found = AncestorIgnores::read(&top.join("wt/ws")).unwrap();
        assert_eq!(found.repo_root, top.join("wt"));
        assert_eq!(found.files.len(), 1);
        assert_eq!(
            (
                found.files[0].name.as_str(),
                found.files[0].contents.as_str()
            ),
            (EXCLUDE, "from-main\n")
        );
        // The worktree as workspace root: its exclude travels apart.
        let sent = GitExcludes::read(None, &top.join("wt")).unwrap();
        assert_eq!(sent.root_exclude.as_deref(), Some("from-main\n"));
        assert_eq!(sent.global, None);
        // No commondir (a submodule's git directory): none, as for rg.
        std::fs::remove_file(git_dir.join("commondir")).unwrap();
        assert_eq!(worktree_exclude_path(&top.join("wt"), read), None);
        write(&top.join("wt/.git"), "not a gitdir line\n");
        assert_eq!(worktree_exclude_path(&top.join("wt"), read), None);
        assert_eq!(GitExcludes::read(None, &top.join("wt")), None);
    }
}
