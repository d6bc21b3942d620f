//! Names as models see them, built the way pi 1.6 builds them: a server's namespace
//! (`mcp__<server>`), its tools' names (`mcp__<server>__<tool>`), and its one-line summary.

use sha2::{Digest, Sha256};

/// Providers accept tool names of at most 64 characters of `[A-Za-z0-9_-]`.
const MAX_TOOL_NAME_LENGTH: usize = 64;

/// `mcp__<server>__<tool>` with every character outside `[A-Za-z0-9_]` made `_`. A name longer
/// than 64 characters, or one `is_taken` reports as used by another tool (sanitising can map
/// `a-b` and `a_b` to one name), is cut and given an 8-hex-digit hash of server and tool.
pub fn mcp_tool_name(server: &str, tool: &str, is_taken: impl Fn(&str) -> bool) -> String {
    let name: String = format!("mcp__{server}__{tool}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.len() <= MAX_TOOL_NAME_LENGTH && !is_taken(&name) {
        return name;
    }
    let digest = Sha256::digest(format!("{server}\0{tool}").as_bytes());
    let hash: String = digest
        .iter()
        .take(4)
        .map(|byte| format!("{byte:02x}"))
        .collect();
    // Sanitised names are ASCII, so any byte index is a character boundary.
    let keep = name.len().min(MAX_TOOL_NAME_LENGTH - hash.len() - 1);
    format!("{}_{hash}", &name[..keep])
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

    #[test]
    fn tool_names_are_sanitised_and_long_or_taken_ones_hashed() {
        assert_eq!(
            mcp_tool_name("my-srv", "get.it", |_| false),
            "mcp__my_srv__get_it"
        );
        let long = mcp_tool_name("server", &"t".repeat(80), |_| false);
        assert_eq!(long.len(), 64);
        assert!(long.starts_with("mcp__server__ttt"));
        // pi 1.6: the first 8 hex digits of sha256("server\0" + 80 × "t").
        assert!(long.ends_with("_5601f10f"), "{long}");
        let taken = mcp_tool_name("a", "b-c", |name| name == "mcp__a__b_c");
        assert_eq!(taken.len(), "mcp__a__b_c".len() + 9);
        assert!(taken.starts_with("mcp__a__b_c_"));
        assert_ne!(
            taken,
            mcp_tool_name("a", "b_c", |name| name == "mcp__a__b_c")
        );
    }

    #[test]
    fn namespaces_and_summaries() {
        assert_eq!(mcp_namespace("a-b_c"), "mcp__a_b_c");
        assert_eq!(server_summary(Some("  \n"), Some("Docs\nmore")), "Docs");
        assert_eq!(server_summary(Some("Mine\nx"), Some("Docs")), "Mine");
        assert_eq!(server_summary(None, None), "");
    }
}
