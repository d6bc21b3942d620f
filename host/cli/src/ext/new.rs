//! `pi ext new <name>`: a package skeleton from an embedded template (see `templates`), written
//! into a fresh folder that builds with `./build.sh` and installs with `pi ext install .`.
//!
//! The package is written into a hidden folder beside the target and renamed into place at the
//! end, so a failure (or an interrupted run) never leaves a half-written package where the
//! user asked for one; the rename also refuses a target that was filled in the meantime.

use super::templates::{self, Lang, PackageFile};
use pi_ext_host::World;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// `pi ext new`'s arguments.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Writes pi-extension.toml, the sources, build.sh, README.md, .gitignore and the WIT files of \
this pi (wit/, with its WASI deps), so the package builds on its own. Then:
  cd <dir> && ./build.sh && pi ext install .
--list-templates lists the languages and worlds this pi has templates for.")]
pub struct NewArgs {
    /// The package name: a-z first, then a-z, 0-9, - and _ (at most 64)
    #[arg(value_parser = package_name, required_unless_present = "list_templates")]
    name: Option<String>,
    /// The language of the template
    #[arg(long, value_enum, default_value = "rust")]
    lang: Lang,
    /// The world the component implements
    #[arg(long, default_value = "tool", value_parser = world_parser())]
    world: World,
    /// The folder to create (default: ./<name>); an existing one must be empty
    #[arg(long, value_name = "PATH")]
    dir: Option<PathBuf>,
    /// List the templates (one `<lang> <world>` a line) and exit
    #[arg(long, conflicts_with_all = ["name", "dir"])]
    list_templates: bool,
}

/// Why no package was written; each names what to change.
#[derive(Debug, thiserror::Error)]
pub enum NewError {
    #[error("this pi has no {lang} template for the {world} world (templates: {available})")]
    NoTemplate {
        lang: &'static str,
        world: &'static str,
        available: String,
    },
    #[error("{} already exists and is not empty: choose another --dir, or remove it", .0.display())]
    NotEmpty(PathBuf),
    #[error("{} already exists and is not a folder: choose another --dir", .0.display())]
    NotAFolder(PathBuf),
    #[error("cannot {action} {}: {source}", .path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}

fn package_name(name: &str) -> Result<String, String> {
    pi_ext_host::manifest::check_name(name).map(|()| name.to_owned())
}

fn world_parser() -> impl clap::builder::TypedValueParser<Value = World> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(World::ALL.map(World::as_str))
        .try_map(|world| World::parse(&world).ok_or("not a world"))
}

/// Runs `pi ext new`; relative paths are taken from `cwd`.
pub fn run(args: &NewArgs, cwd: &Path) -> Result<(), NewError> {
    let (false, Some(name)) = (args.list_templates, args.name.as_deref()) else {
        for (lang, world) in templates::available() {
            println!("{} {}", lang.as_str(), world.as_str());
        }
        return Ok(());
    };
    let files = templates::package_files(args.lang, args.world, name).ok_or_else(|| {
        NewError::NoTemplate {
            lang: args.lang.as_str(),
            world: args.world.as_str(),
            available: templates::available()
                .iter()
                .map(|(l, w)| format!("{} {}", l.as_str(), w.as_str()))
                .collect::<Vec<_>>()
                .join(", "),
        }
    })?;
    let shown = args.dir.clone().unwrap_or_else(|| PathBuf::from(name));
    create(&cwd.join(&shown), &files)?;
    println!(
        "Created {name} ({} {}) in {}:",
        args.lang.as_str(),
        args.world.as_str(),
        shown.display()
    );
    let wit = files.iter().filter(|f| f.path.starts_with("wit/")).count();
    for file in files.iter().filter(|f| !f.path.starts_with("wit/")) {
        println!("  {}", file.path);
    }
    println!(
        "  wit/ ({wit} files: pi:extension@{} and the WASI packages it uses)",
        templates::WIT_VERSION
    );
    println!("Next:");
    println!(
        "  cd {} && ./build.sh && pi ext install .",
        shell_word(&shown.to_string_lossy())
    );
    Ok(())
}

/// Writes `files` as the new folder `dir` (absent, or an empty folder), all or nothing.
fn create(dir: &Path, files: &[PackageFile]) -> Result<(), NewError> {
    match std::fs::read_dir(dir).map(|mut entries| entries.next().is_none()) {
        Ok(true) => {}
        Ok(false) => return Err(NewError::NotEmpty(dir.to_owned())),
        Err(error) if error.kind() == ErrorKind::NotFound => {}
        Err(error) if error.kind() == ErrorKind::NotADirectory => {
            return Err(NewError::NotAFolder(dir.to_owned()));
        }
        Err(source) => return Err(io("read", dir, source)),
    }
    let staging = staging_dir(dir)?;
    let written = write_files(&staging, files).and_then(|()| {
        std::fs::rename(&staging, dir).map_err(|source| match source.kind() {
            ErrorKind::DirectoryNotEmpty | ErrorKind::AlreadyExists => {
                NewError::NotEmpty(dir.to_owned())
            }
            _ => io("create", dir, source),
        })
    });
    if written.is_err()
        && let Err(error) = std::fs::remove_dir_all(&staging)
    {
        tracing::warn!(dir = %staging.display(), %error, "cannot remove the unfinished package");
    }
    written
}

/// A new hidden folder beside `dir` (its parents made first), named after it.
fn staging_dir(dir: &Path) -> Result<PathBuf, NewError> {
    let parent = dir.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|source| io("create", parent, source))?;
    let base = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut attempt: u32 = 0;
    loop {
        // A fixed-width suffix: the same length whichever process writes it.
        let suffix = std::process::id().wrapping_mul(31).wrapping_add(attempt);
        let staging = parent.join(format!(".{base}.pi-ext-new-{suffix:010}"));
        match std::fs::create_dir(&staging) {
            Ok(()) => return Ok(staging),
            Err(error) if error.kind() == ErrorKind::AlreadyExists && attempt < 100 => {
                attempt += 1;
            }
            Err(source) => return Err(io("create", &staging, source)),
        }
    }
}

fn write_files(root: &Path, files: &[PackageFile]) -> Result<(), NewError> {
    for file in files {
        let path = root.join(&file.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| io("create", parent, source))?;
        }
        std::fs::write(&path, &file.contents).map_err(|source| io("write", &path, source))?;
        if file.executable {
            make_executable(&path)?;
        }
    }
    Ok(())
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<(), NewError> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path)
        .map_err(|source| io("read", path, source))?
        .permissions()
        .mode();
    // Executable for whoever may read it, as `chmod +x` does under the usual umask.
    let executable = mode | ((mode & 0o444) >> 2);
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(executable))
        .map_err(|source| io("make executable", path, source))
}

#[cfg(not(unix))]
fn make_executable(_path: &Path) -> Result<(), NewError> {
    Ok(())
}

fn io(action: &'static str, path: &Path, source: std::io::Error) -> NewError {
    NewError::Io {
        action,
        path: path.to_owned(),
        source,
    }
}

/// `word` as one word for a POSIX shell: as it is when it holds nothing the shell reads.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./+,:@%".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}
