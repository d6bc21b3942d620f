//! Installing an `npm:` extension source: the registry's package document (`GET
//! <registry>/<name>`) names the version's tarball and its integrity; the tarball is
//! downloaded, checked and unpacked. Start-up is synchronous, so the requests run on a small
//! runtime of their own that exists only while a package is fetched.

use crate::source::NpmSpec;
use crate::tarball::{self, TarballError};
use base64::Engine;
use serde_json::Value;
use sha2::{Digest, Sha512};
use std::path::{Path, PathBuf};
use std::time::Duration;

const DEFAULT_REGISTRY: &str = "https://registry.npmjs.org";
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
const REQUEST_TIMEOUT: Duration = Duration::from_secs(120);
/// The largest tarball pi downloads.
const MAX_TARBALL: usize = 128 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum NpmError {
    #[error("cannot start the download: {0}")]
    Runtime(#[source] std::io::Error),
    #[error("GET {url}: {message}")]
    Http { url: String, message: String },
    #[error("GET {url}: HTTP {status}")]
    Status { url: String, status: u16 },
    #[error("the registry's answer for {name} is not a package document: {message}")]
    Metadata { name: String, message: String },
    #[error(
        "version range \"{0}\" is not supported; give an exact version or a dist-tag \
         (npm:pkg@1.2.3, npm:pkg@latest)"
    )]
    Range(String),
    #[error("{name} has no version or dist-tag \"{wanted}\"")]
    NoVersion { name: String, wanted: String },
    #[error("the tarball of {0} does not match its integrity ({1})")]
    Integrity(String, String),
    #[error("the tarball is larger than {} MB", MAX_TARBALL / (1024 * 1024))]
    TooLarge,
    #[error(transparent)]
    Tarball(#[from] TarballError),
}

/// Downloads `spec` from the configured registry and unpacks it into `dest`; returns the
/// version it resolved to (a dist-tag names one).
pub fn install(spec: &NpmSpec, dest: &Path) -> Result<String, NpmError> {
    install_from(spec, dest, &registry_url(home_npmrc().as_deref()))
}

fn install_from(spec: &NpmSpec, dest: &Path, registry: &str) -> Result<String, NpmError> {
    let (bytes, version) = block_on(fetch(spec, registry))?;
    tarball::unpack(&bytes, dest)?;
    Ok(version)
}

/// The body of `url` (a package tarball), at most the tarball size limit.
pub fn download(url: &str) -> Result<Vec<u8>, NpmError> {
    block_on(async {
        let client = client(url)?;
        get(&client, url, "application/octet-stream").await
    })
}

fn block_on<T: Send, F>(download: F) -> Result<T, NpmError>
where
    F: std::future::Future<Output = Result<T, NpmError>> + Send,
{
    crate::runtime::block_on(download).map_err(NpmError::Runtime)?
}

/// The registry: `npm_config_registry` (as npm reads it, either case), else `registry=` in
/// `~/.npmrc`, else the public registry. No trailing slash.
fn registry_url(npmrc: Option<&str>) -> String {
    let from_env = ["npm_config_registry", "NPM_CONFIG_REGISTRY"]
        .iter()
        .find_map(|k| std::env::var(k).ok())
        .filter(|v| !v.trim().is_empty());
    let from_rc = || npmrc.and_then(npmrc_registry);
    from_env
        .or_else(from_rc)
        .unwrap_or_else(|| DEFAULT_REGISTRY.to_owned())
        .trim()
        .trim_end_matches('/')
        .to_owned()
}

fn home_npmrc() -> Option<String> {
    let home: PathBuf = pi_session::paths::home_dir()?;
    std::fs::read_to_string(home.join(".npmrc")).ok()
}

/// The `registry=` line of an npmrc (`;` and `#` start comments).
fn npmrc_registry(text: &str) -> Option<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.starts_with(';') && !l.starts_with('#'))
        .filter_map(|l| l.split_once('='))
        .find(|(key, _)| key.trim() == "registry")
        .map(|(_, value)| value.trim().trim_matches('"').to_owned())
        .filter(|v| !v.is_empty())
}

/// The URL of a package document: a scoped name's `/` is encoded, as npm does.
fn metadata_url(registry: &str, name: &str) -> String {
    format!("{registry}/{}", name.replace('/', "%2f"))
}

fn client(url: &str) -> Result<reqwest::Client, NpmError> {
    reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(REQUEST_TIMEOUT)
        .build()
        .map_err(|e| NpmError::Http {
            url: url.to_owned(),
            message: e.to_string(),
        })
}

async fn fetch(spec: &NpmSpec, registry: &str) -> Result<(Vec<u8>, String), NpmError> {
    let client = client(registry)?;
    let url = metadata_url(registry, &spec.name);
    let document = get(&client, &url, "application/json").await?;
    let document: Value = serde_json::from_slice(&document).map_err(|e| NpmError::Metadata {
        name: spec.name.clone(),
        message: e.to_string(),
    })?;
    let (version, dist) = pick_version(&document, spec)?;
    let tarball_url = dist["tarball"]
        .as_str()
        .ok_or_else(|| NpmError::Metadata {
            name: spec.name.clone(),
            message: "no dist.tarball".to_owned(),
        })?
        .to_owned();
    let bytes = get(&client, &tarball_url, "application/octet-stream").await?;
    verify(&spec.name, dist, &bytes)?;
    Ok((bytes, version.to_owned()))
}

async fn get(client: &reqwest::Client, url: &str, accept: &str) -> Result<Vec<u8>, NpmError> {
    let http = |e: reqwest::Error| NpmError::Http {
        url: url.to_owned(),
        message: e.to_string(),
    };
    let response = client
        .get(url)
        .header(reqwest::header::ACCEPT, accept)
        .send()
        .await
        .map_err(http)?;
    let status = response.status();
    if !status.is_success() {
        return Err(NpmError::Status {
            url: url.to_owned(),
            status: status.as_u16(),
        });
    }
    if response
        .content_length()
        .is_some_and(|n| n > MAX_TARBALL as u64)
    {
        return Err(NpmError::TooLarge);
    }
    let mut response = response;
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(http)? {
        body.extend_from_slice(&chunk);
        if body.len() > MAX_TARBALL {
            return Err(NpmError::TooLarge);
        }
    }
    Ok(body)
}

/// The `dist` object of the wanted version: an exact version, else a dist-tag (`latest` when
/// none is given). Ranges are refused: the run would not be reproducible from the argument.
fn pick_version<'a>(document: &'a Value, spec: &NpmSpec) -> Result<(&'a str, &'a Value), NpmError> {
    let wanted = spec.version.as_deref().unwrap_or("latest");
    let versions = &document["versions"];
    let version =
        if let Some((known, _)) = versions.as_object().and_then(|v| v.get_key_value(wanted)) {
            known.as_str()
        } else if let Some(tagged) = document["dist-tags"][wanted].as_str() {
            tagged
        } else if is_range(wanted) {
            return Err(NpmError::Range(wanted.to_owned()));
        } else {
            return Err(NpmError::NoVersion {
                name: spec.name.clone(),
                wanted: wanted.to_owned(),
            });
        };
    let dist = &versions[version]["dist"];
    if !dist.is_object() {
        return Err(NpmError::NoVersion {
            name: spec.name.clone(),
            wanted: wanted.to_owned(),
        });
    }
    Ok((version, dist))
}

/// A semver range rather than a version or a tag (`^1`, `~1.2`, `>=1`, `1.x`, `1 - 2`, `1`).
fn is_range(wanted: &str) -> bool {
    let starts_with_digit = wanted.starts_with(|c: char| c.is_ascii_digit());
    wanted.contains(['^', '~', '<', '>', '=', '*', '|', ' '])
        || (starts_with_digit && wanted.split('.').count() < 3)
        || (starts_with_digit && wanted.split('.').any(|p| p == "x" || p == "X"))
}

/// Checks the tarball against `dist.integrity` (sha512 entries of its SRI list). A version
/// with only the legacy `dist.shasum` (sha1) is not checked: pi has no sha1 implementation.
fn verify(name: &str, dist: &Value, bytes: &[u8]) -> Result<(), NpmError> {
    let Some(integrity) = dist["integrity"].as_str() else {
        tracing::debug!("{name}: no dist.integrity; the tarball is not verified");
        return Ok(());
    };
    let expected: Vec<&str> = integrity
        .split_whitespace()
        .filter_map(|entry| entry.strip_prefix("sha512-"))
        .collect();
    if expected.is_empty() {
        tracing::debug!("{name}: no sha512 in dist.integrity; the tarball is not verified");
        return Ok(());
    }
    let actual = base64::engine::general_purpose::STANDARD.encode(Sha512::digest(bytes));
    if expected
        .iter()
        .any(|e| e.split('?').next() == Some(actual.as_str()))
    {
        Ok(())
    } else {
        Err(NpmError::Integrity(name.to_owned(), integrity.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(version: Option<&str>) -> NpmSpec {
        NpmSpec {
            name: "pkg".to_owned(),
            version: version.map(str::to_owned),
        }
    }

    fn document() -> Value {
        json!({
            "name": "pkg",
            "dist-tags": {"latest": "1.1.0", "beta": "2.0.0-beta.1"},
            "versions": {
                "1.0.0": {"dist": {"tarball": "http://r/pkg-1.0.0.tgz"}},
                "1.1.0": {"dist": {"tarball": "http://r/pkg-1.1.0.tgz"}},
                "2.0.0-beta.1": {"dist": {"tarball": "http://r/pkg-2.0.0-beta.1.tgz"}}
            }
        })
    }

    #[test]
    fn picks_exact_versions_and_tags() {
        let doc = document();
        let tarball = |v: Option<&str>| {
            pick_version(&doc, &spec(v)).map(|(_, d)| d["tarball"].as_str().unwrap().to_owned())
        };
        assert_eq!(tarball(None).unwrap(), "http://r/pkg-1.1.0.tgz");
        assert_eq!(tarball(Some("1.0.0")).unwrap(), "http://r/pkg-1.0.0.tgz");
        assert_eq!(
            tarball(Some("beta")).unwrap(),
            "http://r/pkg-2.0.0-beta.1.tgz"
        );
        for range in ["^1.0.0", "~1.1", ">=1", "1.x", "1", "1.2", "*"] {
            assert!(
                matches!(tarball(Some(range)), Err(NpmError::Range(_))),
                "{range}"
            );
        }
        assert!(matches!(
            tarball(Some("3.0.0")),
            Err(NpmError::NoVersion { .. })
        ));
        assert!(matches!(
            tarball(Some("nightly")),
            Err(NpmError::NoVersion { .. })
        ));
    }

    #[test]
    fn integrity_is_sha512() {
        let bytes = b"tarball bytes";
        let good = format!(
            "sha512-{}",
            base64::engine::general_purpose::STANDARD.encode(Sha512::digest(bytes))
        );
        assert!(verify("pkg", &json!({"integrity": good}), bytes).is_ok());
        let bad = format!(
            "sha512-{}",
            base64::engine::general_purpose::STANDARD.encode(Sha512::digest(b"other"))
        );
        assert!(matches!(
            verify("pkg", &json!({"integrity": bad}), bytes),
            Err(NpmError::Integrity(..))
        ));
        // sha1-only metadata is accepted unverified.
        assert!(verify("pkg", &json!({"shasum": "abc"}), bytes).is_ok());
    }

    #[test]
    fn works_from_inside_a_runtime() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let dir = tempfile::tempdir().unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let result = runtime.block_on(async {
            install_from(
                &spec(None),
                &dir.path().join("package"),
                &format!("http://127.0.0.1:{port}"),
            )
        });
        match result {
            Err(NpmError::Http { url, .. }) => {
                assert_eq!(url, format!("http://127.0.0.1:{port}/pkg"))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn urls() {
        assert_eq!(
            metadata_url("https://registry.npmjs.org", "@scope/pkg"),
            "https://registry.npmjs.org/@scope%2fpkg"
        );
        assert_eq!(metadata_url("http://r", "pkg"), "http://r/pkg");
        assert_eq!(
            npmrc_registry("; comment\nfoo=bar\nregistry = https://npm.example/ \n"),
            Some("https://npm.example/".to_owned())
        );
        assert_eq!(npmrc_registry("# registry=x\n"), None);
    }
}
