//! Permission modes and approvals: what a run may do without asking, enforced by the host
//! (the tools a mode offers, the grants their components get, the Landlock rules of `bash`),
//! and the rules the user's approvals leave behind.
//!
//! - `mode`: the four modes and which calls each puts to the user.
//! - `rules`: what an approval rule allows (command prefix, path glob, tool name).
//! - `ledger`: the rules of the session, the project and the user, and their files.
//! - `listing`: the rules as lines to read (`pi grants list`, `/grants`).
//! - `plan`: plan mode's tool set (no writing tools, read-only `bash` and extension grants).

pub mod ledger;
mod listing;
mod mode;
pub mod plan;
pub mod rules;

pub use ledger::{Ledger, LedgerError, ProjectFile};
pub use listing::rule_lines;
pub use mode::PermissionMode;
pub use rules::{CallFacts, Rule, RuleKind, Scope, rule_for};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

/// The run's current mode, shared by the session's tool-call gate and whoever switches it
/// (`/mode`, the mode key, RPC's `set_permission_mode`). Cheap to clone; clones share it.
#[derive(Debug, Clone, Default)]
pub struct ModeCell(Arc<AtomicU8>);

impl ModeCell {
    pub fn new(mode: PermissionMode) -> Self {
        let cell = ModeCell::default();
        cell.set(mode);
        cell
    }

    pub fn get(&self) -> PermissionMode {
        let n = usize::from(self.0.load(Ordering::Acquire));
        PermissionMode::ALL.get(n).copied().unwrap_or_default()
    }

    pub fn set(&self, mode: PermissionMode) {
        let n = PermissionMode::ALL
            .iter()
            .position(|m| *m == mode)
            .unwrap_or(0);
        self.0
            .store(u8::try_from(n).unwrap_or(0), Ordering::Release);
    }
}
