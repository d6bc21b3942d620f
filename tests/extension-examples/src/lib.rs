//! The example extension packages of `extensions/`, built for the tests: each one's package
//! directory (manifest and README, as a user installs it) and its component.

/// An example package.
#[derive(Debug, Clone, Copy)]
pub struct Example {
    /// The package directory in the repository.
    pub dir: &'static str,
    /// The component the build made; the manifest names it by its file name in `dir`.
    pub component: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/examples.rs"));
