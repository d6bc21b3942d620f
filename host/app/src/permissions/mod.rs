//! Permission modes and approvals: what a run may do without asking, enforced by the host
//! (the tools a mode offers, the grants their components get, the Landlock rules of `bash`),
//! and the rules the user's approvals leave behind.
//!
//! - `mode`: the four modes and which calls each puts to the user.

mod mode;

pub use mode::PermissionMode;
