//! The system prompt's `mcp_servers` section, as pi 1.6 writes it: the servers whose tools are
//! not declared to the model, how their tools are reached, and a one-line summary of each,
//! within 4096 characters (descriptions shrink to fit; servers that still do not fit are
//! counted in a closing line).

use pi_mcp::{Exposure, ServerSpec};

pub const SECTION: &str = "mcp_servers";
const MAX_DESCRIPTION: usize = 250;
const MAX_SECTION: usize = 4096;

/// One listed server: its spec and the `instructions` it sent, when connected.
pub(super) struct Listed<'a> {
    pub spec: &'a ServerSpec,
    pub instructions: Option<&'a str>,
}

/// Whether some of the server's tools are reached through `tool_search` (`deferred`, and
/// `codemode`, which this build serves the same way).
pub(super) fn has_indirect_tools(spec: &ServerSpec) -> bool {
    spec.exposures()
        .any(|e| matches!(e, Exposure::Deferred | Exposure::Codemode))
}

fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    if max <= 1 {
        return String::new();
    }
    let head: String = text.chars().take(max - 1).collect();
    format!("{}…", head.trim_end())
}

/// The section's text, `None` when no server has indirect tools.
pub(super) fn render(servers: &[Listed<'_>]) -> Option<String> {
    let mut listed: Vec<&Listed<'_>> = servers
        .iter()
        .filter(|s| has_indirect_tools(s.spec))
        .collect();
    if listed.is_empty() {
        return None;
    }
    listed.sort_by(|a, b| a.spec.name.cmp(&b.spec.name));
    let intro = "MCP servers whose tools are not declared to you. Load the tools of \
                 `tool_search` servers with `tool_search`.";
    let heads: Vec<String> = listed
        .iter()
        .map(|s| {
            format!(
                "- {} (tool_search)",
                pi_mcp::naming::mcp_namespace(&s.spec.name)
            )
        })
        .collect();
    let omitted = |count: usize| -> Vec<String> {
        match count {
            0 => Vec::new(),
            1 => vec!["- … 1 more server; find its tools with tool_search".to_owned()],
            n => vec![format!(
                "- … {n} more servers; find their tools with tool_search"
            )],
        }
    };
    let size = |kept: usize| -> usize {
        let mut lines = vec![intro.to_owned()];
        lines.extend(heads[..kept].iter().cloned());
        lines.extend(omitted(listed.len() - kept));
        lines.join("\n").chars().count()
    };
    let mut kept = listed.len();
    while kept > 0 && size(kept) > MAX_SECTION {
        kept -= 1;
    }
    let per_server = match kept {
        0 => 0,
        _ => ((MAX_SECTION - size(kept)) / kept)
            .saturating_sub(2)
            .min(MAX_DESCRIPTION),
    };
    let mut lines = vec![intro.to_owned()];
    for (server, head) in listed.iter().zip(&heads).take(kept) {
        let text =
            pi_mcp::naming::server_summary(server.spec.description.as_deref(), server.instructions);
        let text = if per_server > 0 {
            truncate(&text, per_server)
        } else {
            String::new()
        };
        lines.push(match text.is_empty() {
            true => head.clone(),
            false => format!("{head}: {text}"),
        });
    }
    lines.extend(omitted(listed.len() - kept));
    Some(lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_mcp::{AuthSpec, TransportSpec};
    use std::time::Duration;

    fn spec(name: &str, exposure: Exposure, description: Option<&str>) -> ServerSpec {
        ServerSpec {
            name: name.to_owned(),
            transport: TransportSpec::Http {
                url: "http://127.0.0.1:1/mcp".into(),
                headers: Vec::new(),
            },
            timeout: Duration::from_secs(60),
            exposure,
            tool_exposure: Vec::new(),
            description: description.map(str::to_owned),
            auth: AuthSpec::None,
        }
    }

    #[test]
    fn lists_the_servers_with_indirect_tools_by_name_with_their_summary() {
        let (a, b, c) = (
            spec(
                "zeta-docs",
                Exposure::Deferred,
                Some("Docs search\nsecond line"),
            ),
            spec("alpha", Exposure::Codemode, None),
            spec("direct", Exposure::Direct, Some("never listed")),
        );
        let servers = [
            Listed {
                spec: &a,
                instructions: None,
            },
            Listed {
                spec: &b,
                instructions: Some("Use me for alpha things."),
            },
            Listed {
                spec: &c,
                instructions: None,
            },
        ];
        assert_eq!(
            render(&servers).as_deref(),
            Some(
                "MCP servers whose tools are not declared to you. Load the tools of \
                 `tool_search` servers with `tool_search`.\n\
                 - mcp__alpha (tool_search): Use me for alpha things.\n\
                 - mcp__zeta_docs (tool_search): Docs search"
            )
        );
        assert_eq!(render(&servers[2..]), None);
    }

    #[test]
    fn a_long_list_stays_within_the_limit() {
        let long = "x".repeat(400);
        let specs: Vec<ServerSpec> = (0..300)
            .map(|i| spec(&format!("server-{i:03}"), Exposure::Deferred, Some(&long)))
            .collect();
        let servers: Vec<Listed<'_>> = specs
            .iter()
            .map(|spec| Listed {
                spec,
                instructions: None,
            })
            .collect();
        let text = render(&servers).unwrap_or_default();
        assert!(text.chars().count() <= MAX_SECTION, "{}", text.len());
        assert!(
            text.ends_with("more servers; find their tools with tool_search"),
            "{text}"
        );
    }
}
