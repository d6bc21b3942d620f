//! OCI registries: `oci://<registry>/<repository>:<tag>` or `…@sha256:<digest>`, pulled and
//! pushed with oci-client (blob digests are checked as they arrive). Two artifact shapes are
//! read: a pi package (a layer holding the package tarball, as `pi ext publish` pushes it) and
//! a WebAssembly component as wkg publishes it (one wasm layer), which becomes a one-component
//! package. Plain http is used for registries on this machine only.

use oci_client::client::{ClientConfig, ClientProtocol, Config, ImageLayer};
use oci_client::secrets::RegistryAuth;
use oci_client::{Client, Reference};

/// The layer of a pi package: a gzipped tar of the package directory under `package/`.
pub const PACKAGE_LAYER: &str = "application/vnd.pi.package.v1.tar+gzip";
/// The config of a pi package artifact: its name, version and WIT version as JSON.
pub const PACKAGE_CONFIG: &str = "application/vnd.pi.package.config.v1+json";
/// Wasm component layers: the wasm OCI artifact layout wkg uses, and oci-client's own.
const WASM_LAYERS: [&str; 2] = [
    "application/wasm",
    oci_client::manifest::WASM_LAYER_MEDIA_TYPE,
];

#[derive(Debug, thiserror::Error)]
pub enum OciError {
    #[error("invalid OCI reference \"{reference}\": {message}")]
    Reference { reference: String, message: String },
    #[error("{reference}: {message}")]
    Registry { reference: String, message: String },
    #[error("{reference}: no pi package or wasm component layer in the artifact")]
    NoLayer { reference: String },
    #[error("cannot start the network runtime: {0}")]
    Runtime(#[source] std::io::Error),
}

/// What an artifact held.
pub enum Artifact {
    /// A package tarball.
    Package(Vec<u8>),
    /// A bare component.
    Component(Vec<u8>),
}

/// A pulled artifact and the manifest digest it resolved to.
pub struct Pulled {
    pub artifact: Artifact,
    pub digest: String,
    /// The repository's last path segment and the tag: a bare component's name and version.
    pub name: String,
    pub tag: Option<String>,
}

/// `registry/repository:tag` (or `@sha256:…`) from an `oci://` source.
pub fn parse(reference: &str) -> Result<Reference, OciError> {
    reference
        .parse::<Reference>()
        .map_err(|e| OciError::Reference {
            reference: reference.to_owned(),
            message: e.to_string(),
        })
}

fn client(reference: &Reference) -> Client {
    let registry = reference.registry().to_owned();
    let host = registry
        .rsplit_once(':')
        .map_or(registry.as_str(), |(h, _)| h);
    let local = ["127.0.0.1", "localhost", "[::1]"].contains(&host);
    Client::new(ClientConfig {
        protocol: if local {
            ClientProtocol::HttpsExcept(vec![registry])
        } else {
            ClientProtocol::Https
        },
        ..ClientConfig::default()
    })
}

fn registry_error(
    reference: &Reference,
) -> impl FnOnce(oci_client::errors::OciDistributionError) -> OciError + '_ {
    move |e| OciError::Registry {
        reference: reference.whole(),
        message: e.to_string(),
    }
}

/// Pulls the artifact `reference` names.
pub fn pull(reference: &Reference) -> Result<Pulled, OciError> {
    let client = client(reference);
    let mut accepted = vec![PACKAGE_LAYER];
    accepted.extend(WASM_LAYERS);
    let image =
        crate::runtime::block_on(client.pull(reference, &RegistryAuth::Anonymous, accepted))
            .map_err(OciError::Runtime)?
            .map_err(registry_error(reference))?;
    let digest = image.digest.clone().unwrap_or_default();
    let mut layers = image.layers.into_iter();
    let artifact = layers
        .find_map(|layer| match layer.media_type.as_str() {
            PACKAGE_LAYER => Some(Artifact::Package(layer.data)),
            t if WASM_LAYERS.contains(&t) => Some(Artifact::Component(layer.data)),
            _ => None,
        })
        .ok_or_else(|| OciError::NoLayer {
            reference: reference.whole(),
        })?;
    let name = reference
        .repository()
        .rsplit('/')
        .next()
        .unwrap_or("component")
        .to_owned();
    Ok(Pulled {
        artifact,
        digest,
        name,
        tag: reference.tag().map(str::to_owned),
    })
}

/// Pushes a package tarball with its config; returns the manifest digest.
pub fn push(reference: &Reference, tarball: Vec<u8>, config: Vec<u8>) -> Result<String, OciError> {
    let client = client(reference);
    let layers = [ImageLayer::new(tarball, PACKAGE_LAYER.to_owned(), None)];
    let config = Config::new(config, PACKAGE_CONFIG.to_owned(), None);
    let auth = RegistryAuth::Anonymous;
    crate::runtime::block_on(async {
        client.push(reference, &layers, config, &auth, None).await?;
        client.fetch_manifest_digest(reference, &auth).await
    })
    .map_err(OciError::Runtime)?
    .map_err(registry_error(reference))
}
