//! The package templates `pi ext new` writes, embedded in the binary by the build script from
//! `host/cli/templates/<lang>/` (every file there), with the WIT files of the host's `wit/`.
//!
//! A file whose name ends in `.tool`, `.provider`, `.renderer`, `.compactor` or `.hook` belongs
//! to that world only and is written without the suffix; every other file goes to every world. A
//! language offers the worlds it has such a file for. In file names and contents, `{{name}}`,
//! `{{ident}}` (the name with `_` for `-`), `{{world}}` and `{{wit_version}}` are replaced.

use pi_ext_host::World;

/// One file embedded by the build script.
pub struct EmbeddedFile {
    /// Path relative to its folder (`templates/` or `wit/`), with `/`.
    pub path: &'static str,
    pub contents: &'static [u8],
    /// Written executable (the template's `build.sh`).
    pub executable: bool,
}

include!(concat!(env!("OUT_DIR"), "/embedded.rs"));

/// The languages a template may be written in (the folders of `templates/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Lang {
    Rust,
    Python,
    Js,
    C,
}

impl Lang {
    pub const ALL: [Lang; 4] = [Lang::Rust, Lang::Python, Lang::Js, Lang::C];

    /// The template folder's name, as `--lang` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::Python => "python",
            Lang::Js => "js",
            Lang::C => "c",
        }
    }
}

/// A file of a new package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageFile {
    /// Path relative to the package directory, with `/`.
    pub path: String,
    pub contents: Vec<u8>,
    pub executable: bool,
}

/// Every (language, world) a template exists for, languages and worlds in their usual order.
pub fn available() -> Vec<(Lang, World)> {
    Lang::ALL
        .into_iter()
        .flat_map(|lang| worlds_of(lang).into_iter().map(move |world| (lang, world)))
        .collect()
}

/// The worlds `lang`'s template offers.
pub fn worlds_of(lang: Lang) -> Vec<World> {
    World::ALL
        .into_iter()
        .filter(|world| {
            files_of(lang).any(|(path, _)| world_of(path).is_some_and(|(w, _)| w == *world))
        })
        .collect()
}

/// The files of a new package `name` of `world` from `lang`'s template, then the WIT files
/// under `wit/`; none when the template has no such world.
pub fn package_files(lang: Lang, world: World, name: &str) -> Option<Vec<PackageFile>> {
    if !worlds_of(lang).contains(&world) {
        return None;
    }
    let fill = Placeholders::new(name, world);
    let mut files: Vec<PackageFile> = files_of(lang)
        .filter_map(|(path, file)| {
            let path = match world_of(path) {
                Some((only, _)) if only != world => return None,
                Some((_, stripped)) => stripped,
                None => path,
            };
            Some(PackageFile {
                path: fill.text(path),
                contents: fill.bytes(file.contents),
                executable: file.executable,
            })
        })
        .collect();
    files.extend(WIT_FILES.iter().map(|file| PackageFile {
        path: format!("wit/{}", file.path),
        contents: file.contents.to_vec(),
        executable: false,
    }));
    Some(files)
}

/// `lang`'s template files, with their paths inside the template folder.
fn files_of(lang: Lang) -> impl Iterator<Item = (&'static str, &'static EmbeddedFile)> {
    TEMPLATE_FILES.iter().filter_map(move |file| {
        file.path
            .strip_prefix(lang.as_str())
            .and_then(|rest| rest.strip_prefix('/'))
            .map(|path| (path, file))
    })
}

/// The world a template path is limited to, and the path without the suffix.
fn world_of(path: &str) -> Option<(World, &str)> {
    let (stripped, suffix) = path.rsplit_once('.')?;
    // Only the file name's suffix counts, never a folder's.
    if suffix.contains('/') {
        return None;
    }
    World::parse(suffix).map(|world| (world, stripped))
}

/// The values of a package's placeholders.
struct Placeholders {
    pairs: [(&'static str, String); 4],
}

impl Placeholders {
    fn new(name: &str, world: World) -> Placeholders {
        Placeholders {
            pairs: [
                ("{{name}}", name.to_owned()),
                ("{{ident}}", name.replace('-', "_")),
                ("{{world}}", world.as_str().to_owned()),
                ("{{wit_version}}", WIT_VERSION.to_owned()),
            ],
        }
    }

    fn text(&self, text: &str) -> String {
        self.pairs
            .iter()
            .fold(text.to_owned(), |text, (key, value)| {
                text.replace(key, value)
            })
    }

    /// Text files get their placeholders filled; anything else is written as it is.
    fn bytes(&self, contents: &[u8]) -> Vec<u8> {
        match std::str::from_utf8(contents) {
            Ok(text) => self.text(text).into_bytes(),
            Err(_) => contents.to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_world_file_is_kept_for_its_world_only_and_loses_its_suffix() {
        assert_eq!(
            world_of("src/lib.rs.tool"),
            Some((World::Tool, "src/lib.rs"))
        );
        assert_eq!(world_of("README.md"), None);
        assert_eq!(world_of("tool.d/x"), None);
        let files = package_files(Lang::Rust, World::Renderer, "my-ext").unwrap();
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert!(paths.contains(&"src/lib.rs"), "{paths:?}");
        assert!(!paths.iter().any(|p| p.ends_with(".tool")), "{paths:?}");
        assert!(paths.contains(&"wit/worlds.wit"), "{paths:?}");
        let manifest = files
            .iter()
            .find(|f| f.path == "pi-extension.toml")
            .unwrap();
        let text = String::from_utf8(manifest.contents.clone()).unwrap();
        assert!(text.contains("name = \"my-ext\""), "{text}");
        assert!(text.contains("world = \"renderer\""), "{text}");
        assert!(text.contains(&format!("wit = \"{WIT_VERSION}\"")), "{text}");
        assert!(!text.contains("{{"), "{text}");
        let lib = files.iter().find(|f| f.path == "src/lib.rs").unwrap();
        assert!(String::from_utf8_lossy(&lib.contents).contains("\"my_ext\""));
    }
}
