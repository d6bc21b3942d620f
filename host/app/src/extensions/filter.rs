//! The resource filter of an object-form `packages` entry in settings.json, in pi's shape:
//! `{"source": …, "autoload"?: bool, "extensions"?: […], "skills"?: […], "prompts"?: […],
//! "themes"?: […], "agents"?: […]}` (`agents`, the agent definitions, is this pi's own). Each list holds glob patterns relative to the package's root (`*` stays
//! inside one path segment, `**` crosses them) and `!pattern` exclusions. A kind whose key is
//! missing loads everything unless `autoload` is false; an empty list loads nothing; a list of
//! exclusions only loads everything but them.

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The kinds of resource a package ships, by their settings key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceKind {
    /// Components (pi's key is `extensions`).
    Extensions,
    Skills,
    Prompts,
    Themes,
    /// Agent definitions (`*.md`) for the `subagent` tool.
    Agents,
}

impl ResourceKind {
    const ALL: [ResourceKind; 5] = [
        ResourceKind::Extensions,
        ResourceKind::Skills,
        ResourceKind::Prompts,
        ResourceKind::Themes,
        ResourceKind::Agents,
    ];

    fn key(self) -> &'static str {
        match self {
            ResourceKind::Extensions => "extensions",
            ResourceKind::Skills => "skills",
            ResourceKind::Prompts => "prompts",
            ResourceKind::Themes => "themes",
            ResourceKind::Agents => "agents",
        }
    }
}

/// What one kind's list keeps.
#[derive(Debug, Clone)]
struct Patterns {
    include: GlobSet,
    exclude: GlobSet,
}

impl Patterns {
    fn keeps(&self, relative: &Path) -> bool {
        let included = if self.include.is_empty() {
            // Exclusions alone subtract from everything; an empty list keeps nothing.
            !self.exclude.is_empty()
        } else {
            self.include.is_match(relative)
        };
        included && !self.exclude.is_match(relative)
    }
}

/// Which of a package's resources load.
#[derive(Debug, Clone)]
pub struct PackageFilter {
    autoload: bool,
    kinds: [Option<Patterns>; 5],
}

impl PackageFilter {
    /// The filter of a `packages` entry: `None` for a plain source string (everything loads).
    /// A malformed entry is an error saying which key is wrong.
    pub fn of_entry(entry: &Value) -> Result<Option<PackageFilter>, String> {
        let Value::Object(object) = entry else {
            return Ok(None);
        };
        let autoload = match object.get("autoload") {
            None => true,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err("\"autoload\" must be true or false".into()),
        };
        let mut kinds: [Option<Patterns>; 5] = Default::default();
        for (slot, kind) in kinds.iter_mut().zip(ResourceKind::ALL) {
            if let Some(list) = object.get(kind.key()) {
                *slot = Some(patterns(kind.key(), list)?);
            }
        }
        Ok(Some(PackageFilter { autoload, kinds }))
    }

    /// Whether the resource at `relative` (to the package root) of `kind` loads.
    pub fn keeps(&self, kind: ResourceKind, relative: &Path) -> bool {
        match &self.kinds[kind as usize] {
            Some(patterns) => patterns.keeps(relative),
            None => self.autoload,
        }
    }

    /// Whether every resource of `kind` loads (nothing to pick one by one).
    fn keeps_all(&self, kind: ResourceKind) -> bool {
        self.autoload && self.kinds[kind as usize].is_none()
    }
}

fn patterns(key: &str, list: &Value) -> Result<Patterns, String> {
    let Value::Array(items) = list else {
        return Err(format!("\"{key}\" must be a list of patterns"));
    };
    let mut include = GlobSetBuilder::new();
    let mut exclude = GlobSetBuilder::new();
    for item in items {
        let Some(text) = item.as_str() else {
            return Err(format!("\"{key}\" must be a list of patterns"));
        };
        let (set, pattern) = match text.strip_prefix('!') {
            Some(rest) => (&mut exclude, rest),
            None => (&mut include, text),
        };
        let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
        set.add(glob(pattern).map_err(|e| format!("\"{key}\": {e}"))?);
    }
    let build = |set: GlobSetBuilder| set.build().map_err(|e| format!("\"{key}\": {e}"));
    Ok(Patterns {
        include: build(include)?,
        exclude: build(exclude)?,
    })
}

fn glob(pattern: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(pattern.trim_end_matches('/'))
        .literal_separator(true)
        .build()
}

/// What of one resource folder loads: the folder itself, or the entries the filter kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Picked {
    All(PathBuf),
    Some(Vec<PathBuf>),
}

/// Picks the entries of the package folder `root`'s resource folder `folder` (relative) that
/// `filter` keeps: for skills the skill folders and root `.md` files, for prompts and agents
/// the `.md` files, for themes the `.json` files. A skill folder is kept when its path or its
/// `SKILL.md`'s matches.
pub fn pick(
    filter: Option<&PackageFilter>,
    kind: ResourceKind,
    root: &Path,
    folder: &Path,
) -> Picked {
    let dir = root.join(folder);
    let Some(filter) = filter.filter(|f| !f.keeps_all(kind)) else {
        return Picked::All(dir);
    };
    let mut kept: Vec<PathBuf> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name();
            let relative = folder.join(&name);
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            let wanted = match kind {
                ResourceKind::Skills if is_dir => {
                    filter.keeps(kind, &relative) || filter.keeps(kind, &relative.join("SKILL.md"))
                }
                ResourceKind::Skills | ResourceKind::Prompts | ResourceKind::Agents => {
                    has_extension(&relative, "md") && filter.keeps(kind, &relative)
                }
                ResourceKind::Themes => {
                    has_extension(&relative, "json") && filter.keeps(kind, &relative)
                }
                ResourceKind::Extensions => false,
            };
            wanted.then(|| dir.join(name))
        })
        .collect();
    kept.sort();
    Picked::Some(kept)
}

fn has_extension(path: &Path, extension: &str) -> bool {
    path.extension().is_some_and(|e| e == extension)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn filter(entry: Value) -> PackageFilter {
        PackageFilter::of_entry(&entry).unwrap().unwrap()
    }

    #[test]
    fn a_plain_source_has_no_filter() {
        assert!(PackageFilter::of_entry(&json!("npm:x")).unwrap().is_none());
    }

    #[test]
    fn missing_keys_keep_all_unless_autoload_is_off() {
        let f = filter(json!({"source": "x", "skills": ["skills/a"]}));
        assert!(f.keeps(ResourceKind::Prompts, Path::new("prompts/p.md")));
        assert!(f.keeps(ResourceKind::Skills, Path::new("skills/a")));
        assert!(!f.keeps(ResourceKind::Skills, Path::new("skills/b")));
        let f = filter(json!({"source": "x", "autoload": false, "skills": ["skills/a"]}));
        assert!(!f.keeps(ResourceKind::Prompts, Path::new("prompts/p.md")));
        assert!(f.keeps(ResourceKind::Skills, Path::new("skills/a")));
    }

    #[test]
    fn globs_stay_in_a_segment_and_exclusions_subtract() {
        let f = filter(json!({"source": "x", "extensions": ["*.wasm", "!legacy.wasm"]}));
        assert!(f.keeps(ResourceKind::Extensions, Path::new("tool.wasm")));
        assert!(!f.keeps(ResourceKind::Extensions, Path::new("legacy.wasm")));
        assert!(!f.keeps(ResourceKind::Extensions, Path::new("sub/tool.wasm")));
        let f = filter(json!({"source": "x", "themes": ["!themes/loud.json"], "prompts": []}));
        assert!(f.keeps(ResourceKind::Themes, Path::new("themes/calm.json")));
        assert!(!f.keeps(ResourceKind::Themes, Path::new("themes/loud.json")));
        assert!(!f.keeps(ResourceKind::Prompts, Path::new("prompts/p.md")));
    }

    #[test]
    fn agents_are_picked_by_their_own_key() {
        let root = tempfile::tempdir().unwrap();
        let agents = root.path().join("agents");
        std::fs::create_dir_all(&agents).unwrap();
        for file in ["scout.md", "worker.md", "notes.txt"] {
            std::fs::write(agents.join(file), "x").unwrap();
        }
        let f = filter(json!({"source": "x", "agents": ["!agents/worker.md"]}));
        assert_eq!(
            pick(
                Some(&f),
                ResourceKind::Agents,
                root.path(),
                Path::new("agents")
            ),
            Picked::Some(vec![agents.join("scout.md")])
        );
        let f = filter(json!({"source": "x", "skills": []}));
        assert_eq!(
            pick(
                Some(&f),
                ResourceKind::Agents,
                root.path(),
                Path::new("agents")
            ),
            Picked::All(agents.clone())
        );
        let f = filter(json!({"source": "x", "autoload": false}));
        assert_eq!(
            pick(
                Some(&f),
                ResourceKind::Agents,
                root.path(),
                Path::new("agents")
            ),
            Picked::Some(Vec::new())
        );
        let e = PackageFilter::of_entry(&json!({"source": "x", "agents": "a"})).unwrap_err();
        assert!(e.contains("\"agents\""), "{e}");
    }

    #[test]
    fn malformed_entries_name_the_key() {
        let e = PackageFilter::of_entry(&json!({"source": "x", "skills": "a"})).unwrap_err();
        assert!(e.contains("\"skills\""), "{e}");
        let e = PackageFilter::of_entry(&json!({"source": "x", "themes": ["a[" ]})).unwrap_err();
        assert!(e.contains("\"themes\""), "{e}");
        let e = PackageFilter::of_entry(&json!({"source": "x", "autoload": "no"})).unwrap_err();
        assert!(e.contains("autoload"), "{e}");
    }

    #[test]
    fn picks_the_kept_entries_of_a_folder() {
        let root = tempfile::tempdir().unwrap();
        for skill in ["a", "b"] {
            let dir = root.path().join("skills").join(skill);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("SKILL.md"), "x").unwrap();
        }
        std::fs::write(root.path().join("skills/c.md"), "x").unwrap();
        let f = filter(json!({"source": "x", "skills": ["skills/a/SKILL.md", "skills/*.md"]}));
        let picked = pick(
            Some(&f),
            ResourceKind::Skills,
            root.path(),
            Path::new("skills"),
        );
        let skills = root.path().join("skills");
        assert_eq!(
            picked,
            Picked::Some(vec![skills.join("a"), skills.join("c.md")])
        );
        assert_eq!(
            pick(None, ResourceKind::Skills, root.path(), Path::new("skills")),
            Picked::All(skills)
        );
    }
}
