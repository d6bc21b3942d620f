//! The permission modes: `auto` (pi's behaviour, the default), `ask-writes`, `ask-all` and
//! `plan`, named as the flag `--permission-mode` and the setting `permissionMode` spell them.

use std::fmt;

/// What a run may do without asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PermissionMode {
    /// Nothing is asked (pi's behaviour).
    #[default]
    Auto,
    /// Calls that can change something (writes, edits, `bash`, tools granted writes or
    /// processes) ask first.
    AskWrites,
    /// Every call asks, except the read-only built-ins.
    AskAll,
    /// Nothing can change anything: the writing tools are not offered, `bash` runs read-only
    /// without network, extension components get read-only grants.
    Plan,
}

impl PermissionMode {
    pub const ALL: [PermissionMode; 4] = [
        PermissionMode::Auto,
        PermissionMode::AskWrites,
        PermissionMode::AskAll,
        PermissionMode::Plan,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PermissionMode::Auto => "auto",
            PermissionMode::AskWrites => "ask-writes",
            PermissionMode::AskAll => "ask-all",
            PermissionMode::Plan => "plan",
        }
    }

    /// The mode a flag or setting names; `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|mode| mode.as_str() == text)
    }

    /// The next mode in the order the mode key cycles through.
    pub fn next(self) -> Self {
        match self {
            PermissionMode::Auto => PermissionMode::AskWrites,
            PermissionMode::AskWrites => PermissionMode::AskAll,
            PermissionMode::AskAll => PermissionMode::Plan,
            PermissionMode::Plan => PermissionMode::Auto,
        }
    }
}

impl fmt::Display for PermissionMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_read_back_as_written_and_cycle_through_all_four() {
        for mode in PermissionMode::ALL {
            assert_eq!(PermissionMode::parse(mode.as_str()), Some(mode));
        }
        assert_eq!(PermissionMode::parse("Plan"), None);
        let mut seen = vec![PermissionMode::default()];
        while seen.len() < 5 {
            seen.push(seen[seen.len() - 1].next());
        }
        assert_eq!(seen[0], PermissionMode::Auto);
        assert_eq!(seen[4], PermissionMode::Auto);
        assert_eq!(&seen[..4], &PermissionMode::ALL);
    }
}
