//! `-e` sources that are not local directories: `npm:pkg[@version]`, `git:host/user/repo[@ref]`,
//! `git:git@host:user/repo[@ref]` and the protocol URLs `https://`, `http://`, `ssh://`,
//! `git://` (with an optional `@ref` after the repository path), as pi accepts them, and
//! `file://` repositories on this machine. `fetch` gets them.

use std::fmt;

/// What one `-e` argument names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A directory (tilde and relative paths are resolved by the caller).
    Local(String),
    Npm(NpmSpec),
    Git(GitSpec),
    /// An `https://` (or loopback `http://`) URL of a `.tar.gz` / `.tgz` package.
    Url(String),
    /// `oci://registry/repository:tag` or `…@sha256:…` (kept without the scheme).
    Oci(String),
    /// A single component file: a package of one component, the world read from its exports.
    Wasm(String),
}

/// `npm:<name>[@<version or dist-tag>]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NpmSpec {
    /// `pkg` or `@scope/pkg`.
    pub name: String,
    /// An exact version or a dist-tag; `None` means the `latest` tag.
    pub version: Option<String>,
}

/// A git repository and the ref to check out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitSpec {
    /// What `git clone` is given.
    pub url: String,
    /// A branch, tag or commit; `None` is the remote's default branch.
    pub reference: Option<String>,
}

/// Why an `-e` argument is not a usable source.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    #[error("invalid npm package name \"{0}\"")]
    NpmName(String),
    #[error("empty version after \"@\"")]
    EmptyVersion,
    #[error("invalid git source \"{0}\": expected host/user/repo, git@host:user/repo or a URL")]
    GitSource(String),
    #[error("invalid git ref \"{0}\"")]
    GitRef(String),
    #[error("{0}")]
    Oci(String),
    #[error("\"{0}\": plain http is allowed for 127.0.0.1, ::1 and localhost only; use https")]
    InsecureUrl(String),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Local(path) | Source::Url(path) | Source::Wasm(path) => f.write_str(path),
            Source::Oci(reference) => write!(f, "oci://{reference}"),
            Source::Npm(spec) => match &spec.version {
                Some(version) => write!(f, "npm:{}@{version}", spec.name),
                None => write!(f, "npm:{}", spec.name),
            },
            Source::Git(spec) => match &spec.reference {
                Some(reference) => write!(f, "{}@{reference}", spec.url),
                None => f.write_str(&spec.url),
            },
        }
    }
}

const URL_SCHEMES: [&str; 5] = ["https://", "http://", "ssh://", "git://", "file://"];

/// Parses one `-e` argument. Anything that is not `npm:`, `git:` or a protocol URL is a path.
pub fn parse(arg: &str) -> Result<Source, SourceError> {
    if let Some(rest) = arg.strip_prefix("npm:") {
        return parse_npm(rest).map(Source::Npm);
    }
    if let Some(reference) = arg.strip_prefix("oci://") {
        crate::oci::parse(reference).map_err(|e| SourceError::Oci(e.to_string()))?;
        return Ok(Source::Oci(reference.to_owned()));
    }
    if arg.ends_with(".wasm") && !URL_SCHEMES.iter().any(|s| arg.starts_with(s)) {
        return Ok(Source::Wasm(arg.to_owned()));
    }
    if is_tarball_url(arg) {
        return tarball_url(arg).map(Source::Url);
    }
    // Before `git:`, which `git://` also starts with.
    if URL_SCHEMES.iter().any(|s| arg.starts_with(s)) {
        return parse_git(arg).map(Source::Git);
    }
    if let Some(rest) = arg.strip_prefix("git:") {
        return parse_git(rest).map(Source::Git);
    }
    Ok(Source::Local(arg.to_owned()))
}

fn is_tarball_url(arg: &str) -> bool {
    (arg.starts_with("https://") || arg.starts_with("http://"))
        && [".tar.gz", ".tgz"].iter().any(|end| arg.ends_with(end))
}

/// An `http://` URL must stay on this machine: a package fetched in the clear from elsewhere
/// could be anything by the time it arrives.
fn tarball_url(arg: &str) -> Result<String, SourceError> {
    if let Some(rest) = arg.strip_prefix("http://") {
        let host = rest.split('/').next().unwrap_or("");
        let host = match host.strip_prefix('[') {
            Some(v6) => v6.split(']').next().unwrap_or(""),
            None => host.split(':').next().unwrap_or(""),
        };
        if !["127.0.0.1", "localhost", "::1"].contains(&host) {
            return Err(SourceError::InsecureUrl(arg.to_owned()));
        }
    }
    Ok(arg.to_owned())
}

fn parse_npm(spec: &str) -> Result<NpmSpec, SourceError> {
    // The version separator is the first `@` that does not open a scope.
    let search_from = usize::from(spec.starts_with('@'));
    let (name, version) = match spec[search_from..].find('@') {
        Some(at) => {
            let at = at + search_from;
            let version = &spec[at + 1..];
            if version.is_empty() {
                return Err(SourceError::EmptyVersion);
            }
            (&spec[..at], Some(version.to_owned()))
        }
        None => (spec, None),
    };
    if !valid_npm_name(name) {
        return Err(SourceError::NpmName(name.to_owned()));
    }
    Ok(NpmSpec {
        name: name.to_owned(),
        version,
    })
}

/// npm's rules for new package names, enough to keep the name a single URL path segment.
fn valid_npm_name(name: &str) -> bool {
    let part_ok = |part: &str| {
        !part.is_empty()
            && !part.starts_with('.')
            && !part.starts_with('_')
            && part
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-._~".contains(c))
    };
    if name.len() > 214 {
        return false;
    }
    match name.strip_prefix('@') {
        Some(scoped) => match scoped.split_once('/') {
            Some((scope, pkg)) => part_ok(scope) && part_ok(pkg),
            None => false,
        },
        None => part_ok(name),
    }
}

fn parse_git(spec: &str) -> Result<GitSpec, SourceError> {
    let invalid = || SourceError::GitSource(spec.to_owned());
    // Split into the part naming the host (kept whole, it may hold `user@`) and the path,
    // whose last `@` starts the ref.
    let (head, path, url_of): (&str, &str, fn(&str, &str) -> String) =
        if let Some(scheme_end) = spec.find("://") {
            let after = scheme_end + 3;
            let slash = spec[after..].find('/').ok_or_else(invalid)? + after;
            (&spec[..slash], &spec[slash..], |h, p| format!("{h}{p}"))
        } else if let Some((host, path)) = scp_form(spec) {
            (host, path, |h, p| format!("{h}:{p}"))
        } else {
            // Shorthand `host/user/repo`: pi clones it over https.
            let slash = spec.find('/').ok_or_else(invalid)?;
            (&spec[..slash], &spec[slash..], |h, p| {
                format!("https://{h}{p}")
            })
        };
    let (path, reference) = match path.rfind('@') {
        Some(at) => (&path[..at], Some(path[at + 1..].to_owned())),
        None => (path, None),
    };
    let repo_path = path.trim_matches('/');
    if head.is_empty() || head.starts_with('-') || head.contains(char::is_whitespace) {
        return Err(invalid());
    }
    if repo_path.is_empty() || repo_path.contains(char::is_whitespace) {
        return Err(invalid());
    }
    if let Some(reference) = reference.as_ref().filter(|r| !valid_ref(r)) {
        return Err(SourceError::GitRef(reference.clone()));
    }
    Ok(GitSpec {
        url: url_of(head, path),
        reference,
    })
}

/// `user@host:path` (scp-like ssh); a `:` must come before any `/`.
fn scp_form(spec: &str) -> Option<(&str, &str)> {
    let colon = spec.find(':')?;
    if spec[..colon].contains('/') || !spec[..colon].contains('@') {
        return None;
    }
    Some((&spec[..colon], &spec[colon + 1..]))
}

/// A ref git accepts as a single argument (never an option).
fn valid_ref(reference: &str) -> bool {
    !reference.is_empty()
        && !reference.starts_with('-')
        && !reference.contains("..")
        && reference
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-._/+".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npm(name: &str, version: Option<&str>) -> Source {
        Source::Npm(NpmSpec {
            name: name.to_owned(),
            version: version.map(str::to_owned),
        })
    }

    fn git(url: &str, reference: Option<&str>) -> Source {
        Source::Git(GitSpec {
            url: url.to_owned(),
            reference: reference.map(str::to_owned),
        })
    }

    #[test]
    fn tarball_urls_need_https_unless_on_this_machine() {
        for ok in [
            "https://example.com/p-1.0.0.tar.gz",
            "http://127.0.0.1:8080/p.tgz",
            "http://localhost/p.tgz",
            "http://[::1]:9/p.tar.gz",
        ] {
            assert_eq!(parse(ok), Ok(Source::Url(ok.to_owned())), "{ok}");
        }
        assert_eq!(
            parse("http://example.com/p.tgz"),
            Err(SourceError::InsecureUrl("http://example.com/p.tgz".into()))
        );
        assert!(matches!(
            parse("http://127.0.0.1.evil.com/p.tgz"),
            Err(SourceError::InsecureUrl(_))
        ));
        // A repository URL is still git.
        assert!(matches!(
            parse("https://github.com/u/r"),
            Ok(Source::Git(_))
        ));
    }

    #[test]
    fn paths_stay_local() {
        for arg in ["./ext", "/abs/ext", "~/ext", "ext", "C:/x", "npmx:foo"] {
            assert_eq!(parse(arg), Ok(Source::Local(arg.to_owned())));
        }
    }

    #[test]
    fn npm_forms() {
        assert_eq!(parse("npm:pkg"), Ok(npm("pkg", None)));
        assert_eq!(parse("npm:pkg@1.2.3"), Ok(npm("pkg", Some("1.2.3"))));
        assert_eq!(parse("npm:pkg@latest"), Ok(npm("pkg", Some("latest"))));
        assert_eq!(parse("npm:@scope/pkg"), Ok(npm("@scope/pkg", None)));
        assert_eq!(
            parse("npm:@scope/pkg@2.0.0-beta.1"),
            Ok(npm("@scope/pkg", Some("2.0.0-beta.1")))
        );
        assert_eq!(
            parse("npm:@scope/pkg@2.0.0").map(|s| s.to_string()),
            Ok("npm:@scope/pkg@2.0.0".to_owned())
        );
    }

    #[test]
    fn bad_npm_sources() {
        for arg in [
            "npm:",
            "npm:@",
            "npm:@scope",
            "npm:@scope/",
            "npm:Pkg",
            "npm:a/b",
            "npm:../x",
            "npm:.hidden",
            "npm:a b",
            "npm:@/pkg",
        ] {
            assert!(
                matches!(parse(arg), Err(SourceError::NpmName(_))),
                "{arg}: {:?}",
                parse(arg)
            );
        }
        assert_eq!(parse("npm:pkg@"), Err(SourceError::EmptyVersion));
    }

    #[test]
    fn git_shorthand_is_https() {
        assert_eq!(
            parse("git:github.com/user/repo"),
            Ok(git("https://github.com/user/repo", None))
        );
        assert_eq!(
            parse("git:github.com/user/repo@v1.0"),
            Ok(git("https://github.com/user/repo", Some("v1.0")))
        );
        assert_eq!(
            parse("git:gitlab.example.org/group/sub/repo.git@main"),
            Ok(git(
                "https://gitlab.example.org/group/sub/repo.git",
                Some("main")
            ))
        );
    }

    #[test]
    fn file_urls_are_local_git_repositories() {
        assert_eq!(
            parse("file:///srv/git/repo.git@v2"),
            Ok(git("file:///srv/git/repo.git", Some("v2")))
        );
    }

    #[test]
    fn git_scp_form() {
        assert_eq!(
            parse("git:git@github.com:user/repo"),
            Ok(git("git@github.com:user/repo", None))
        );
        assert_eq!(
            parse("git:git@github.com:user/repo.git@feature/x"),
            Ok(git("git@github.com:user/repo.git", Some("feature/x")))
        );
    }

    #[test]
    fn protocol_urls() {
        assert_eq!(
            parse("https://github.com/user/repo"),
            Ok(git("https://github.com/user/repo", None))
        );
        assert_eq!(
            parse("http://127.0.0.1:8080/repo.git@v1"),
            Ok(git("http://127.0.0.1:8080/repo.git", Some("v1")))
        );
        assert_eq!(
            parse("ssh://git@host.example/user/repo@abc123"),
            Ok(git("ssh://git@host.example/user/repo", Some("abc123")))
        );
        assert_eq!(
            parse("git://127.0.0.1:9418/repo.git"),
            Ok(git("git://127.0.0.1:9418/repo.git", None))
        );
        assert_eq!(
            parse("git:https://github.com/user/repo@v2"),
            Ok(git("https://github.com/user/repo", Some("v2")))
        );
        assert_eq!(
            parse("git://127.0.0.1:9418/repo.git@v1").map(|s| s.to_string()),
            Ok("git://127.0.0.1:9418/repo.git@v1".to_owned())
        );
    }

    #[test]
    fn bad_git_sources() {
        for arg in [
            "git:",
            "git:github.com",
            "git:github.com/",
            "https://github.com",
            "git:-oProxyCommand=x/y",
            "git:host/a b",
        ] {
            assert!(
                matches!(parse(arg), Err(SourceError::GitSource(_))),
                "{arg}: {:?}",
                parse(arg)
            );
        }
        for arg in [
            "git:github.com/user/repo@",
            "git:github.com/user/repo@-x",
            "git:github.com/user/repo@a..b",
            "https://h/r@a;b",
        ] {
            assert!(
                matches!(parse(arg), Err(SourceError::GitRef(_))),
                "{arg}: {:?}",
                parse(arg)
            );
        }
    }
}
