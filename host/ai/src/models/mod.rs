//! Models: the built-in catalog, the user's models.json, the registry joining them, and pattern
//! and thinking-level resolution.

pub mod base_url;
pub mod catalog;
pub mod models_json;
pub mod registry;
pub mod resolve;

pub use catalog::{SUPPORTED_APIS, builtin_models};
pub use models_json::ModelsError;
pub use registry::{ModelRef, ModelRegistry, PatternMatch, is_reserved_provider};
pub use resolve::{PatternUse, Reached, clamp_thinking_level, supported_thinking_levels};
