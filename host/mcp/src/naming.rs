//! Names as models see them, built exactly as pi 1.6 builds them (`pi-mcp/dist/naming.js`), so
//! a session moved between the two calls the same tools: a server's namespace
//! (`mcp__<server>`), its tools' names (`mcp__<server>__<tool>`), and its one-line summary.

use sha2::{Digest, Sha256};

/// Provider tool names are limited to 64 characters of `[A-Za-z0-9_-]`.
const MAX_TOOL_NAME_LENGTH: usize = 64;
/// Hex digits of the hash suffix of a shortened or colliding name.
const HASH_LENGTH: usize = 8;

/// `mcp__<server>__<tool>` with everything but `[A-Za-z0-9_]` made `_`; when that is longer
/// than 64 characters or `is_taken` (another MCP tool already has it, as `a-b` and `a_b` would),
/// its first 55 characters, `_` and the first 8 hex digits of `sha256(server \0 tool)`.
pub fn mcp_tool_name(server: &str, tool: &str, is_taken: impl Fn(&str) -> bool) -> String {
    // pi's regex replaces UTF-16 code units: a character outside the BMP becomes two `_`.
    let mut name = String::new();
    for c in format!("mcp__{server}__{tool}").chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            name.push(c);
        } else {
            name.extend(std::iter::repeat_n('_', c.len_utf16()));
        }
    }
    if name.len() <= MAX_TOOL_NAME_LENGTH && !is_taken(&name) {
        return name;
    }
    let mut hasher = Sha256::new();
    hasher.update(server.as_bytes());
    hasher.update([0u8]);
    hasher.update(tool.as_bytes());
    let hash: String = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>()
        .chars()
        .take(HASH_LENGTH)
        .collect();
    // The sanitized name is ASCII: every char is one byte, so this cut is on a boundary.
    let keep = MAX_TOOL_NAME_LENGTH - HASH_LENGTH - 1;
    format!("{}_{hash}", &name[..name.len().min(keep)])
}

/// The namespace of a server's tools: `mcp__<server>` with `-` made `_`. Two servers whose
/// names differ only in `-` and `_` would share it, so a configuration must not have both.
pub fn mcp_namespace(server: &str) -> String {
    format!("mcp__{}", server.replace('-', "_"))
}

/// A server's line in the system prompt: the first line of its configured description, else
/// of the instructions it sent when it connected; empty when it has neither.
pub fn server_summary(description: Option<&str>, instructions: Option<&str>) -> String {
    let text = [description, instructions]
        .into_iter()
        .flatten()
        .map(str::trim)
        .find(|text| !text.is_empty())
        .unwrap_or("");
    text.lines().next().unwrap_or("").trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash8(server: &str, tool: &str) -> String {
        let digest = Sha256::digest(format!("{server}\0{tool}").as_bytes());
        digest
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()[..8]
            .to_owned()
    }

    #[test]
    fn plain_names_are_prefixed_and_sanitized() {
        assert_eq!(
            mcp_tool_name("everything", "echo", |_| false),
            "mcp__everything__echo"
        );
        assert_eq!(
            mcp_tool_name("my-server", "get.file", |_| false),
            "mcp__my_server__get_file"
        );
        assert_eq!(mcp_tool_name("é", "x y", |_| false), "mcp_____x_y");
        assert_eq!(mcp_tool_name("s", "😀", |_| false), "mcp__s____");
    }

    #[test]
    fn long_names_are_cut_with_a_hash_suffix() {
        let tool = "a".repeat(80);
        let name = mcp_tool_name("srv", &tool, |_| false);
        assert_eq!(name.len(), 64);
        let expected = format!(
            "{}_{}",
            &format!("mcp__srv__{tool}")[..55],
            hash8("srv", &tool)
        );
        assert_eq!(name, expected);
        // Exactly 64 characters still fit.
        let fits = "b".repeat(64 - "mcp__srv__".len());
        assert_eq!(mcp_tool_name("srv", &fits, |_| false).len(), 64);
        assert!(!mcp_tool_name("srv", &fits, |_| false).contains(&hash8("srv", &fits)));
    }

    /// Names pi 1.6's `createMcpToolName` gives (run with the reference pi's `naming.js`).
    #[test]
    fn names_match_the_reference_pi() {
        let taken = |n: &str| n == "mcp__s__a_b";
        assert_eq!(mcp_tool_name("s", "a_b", taken), "mcp__s__a_b_8d47d403");
        assert_eq!(
            mcp_tool_name("srv", &"a".repeat(80), |_| false),
            "mcp__srv__aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_3b75b5cc"
        );
        assert_eq!(
            mcp_tool_name(
                "github-enterprise-server",
                "create_or_update_pull_request_review_comment",
                |_| false
            ),
            "mcp__github_enterprise_server__create_or_update_pull_re_2d2c2dbb"
        );
    }

    #[test]
    fn collisions_get_the_hash_suffix() {
        let first = mcp_tool_name("s", "a-b", |_| false);
        assert_eq!(first, "mcp__s__a_b");
        let second = mcp_tool_name("s", "a_b", |n| n == first);
        assert_eq!(second, format!("mcp__s__a_b_{}", hash8("s", "a_b")));
    }

    #[test]
    fn namespaces_and_summaries() {
        assert_eq!(mcp_namespace("a-b_c"), "mcp__a_b_c");
        assert_eq!(server_summary(Some("  \n"), Some("Docs\nmore")), "Docs");
        assert_eq!(server_summary(Some("Mine\nx"), Some("Docs")), "Mine");
        assert_eq!(server_summary(None, None), "");
    }
}
