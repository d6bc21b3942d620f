//! `tool_search`: finds the MCP tools that are not declared to the model (`deferred`
//! exposure) and loads the matches, so the next request declares them. The load is the tool
//! result's `details.loaded`, which is how the session knows it again on this branch.
//!
//! Ranking is Okapi BM25 over each tool's description and schema text, with its name and its
//! server's name as separate fields, as pi 1.6 ranks: a tool matching more of the query's terms
//! comes first; a term in the name outweighs any number of mentions; a query that is exactly a
//! tool's name (or its part after a `__`) puts that tool first.

use super::McpTools;
use pi_agent::{AgentTool, BoxFuture, ToolError, ToolOutput, ToolUpdateFn};
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Weak};
use tokio_util::sync::CancellationToken;

pub const TOOL_SEARCH: &str = "tool_search";
const DEFAULT_LIMIT: usize = 8;

const DESCRIPTION: &str = "# Tool discovery\n\nSearches the metadata of deferred tools with BM25 \
and declares the matching tools for your next call.\n\nSome tools, such as the tools of MCP \
servers, are not declared to you upfront: use this tool (`tool_search`) to find the ones you \
need. For MCP tools, always use `tool_search`.";

const STOP_WORDS: [&str; 21] = [
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "it", "of", "on",
    "or", "that", "the", "this", "to", "with",
];

/// A term in the name counts this many times its IDF; in the server's name or description,
/// half of it (shared by every tool of the server, it finds the server, not the tool).
const NAME_WEIGHT: f64 = 3.0;
const SERVER_WEIGHT: f64 = 0.5;
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// What one tool is searched by.
pub(super) struct Document {
    pub name: String,
    /// The description, then the schema's property names and descriptions.
    pub text: String,
    /// The server's name and description.
    pub server_text: String,
}

/// The `tool_search` tool of one session's MCP tools.
pub(super) struct ToolSearch {
    tools: Weak<McpTools>,
    parameters: pi_ai::Schema,
}

impl ToolSearch {
    pub(super) fn new(tools: Weak<McpTools>) -> Self {
        let parameters = pi_ai::Schema::from(json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Search query for deferred tools."},
                "limit": {
                    "type": "number",
                    "description": format!("Maximum number of tools to return. Defaults to {DEFAULT_LIMIT}.")
                }
            },
            "required": ["query"]
        }));
        ToolSearch { tools, parameters }
    }

    async fn search(
        &self,
        args: &Value,
        cancel: &CancellationToken,
    ) -> Result<ToolOutput, ToolError> {
        let query = args.get("query").and_then(Value::as_str).unwrap_or("");
        if query.trim().is_empty() {
            return Err(ToolError::new("query must not be empty"));
        }
        let limit = match args.get("limit") {
            None | Some(Value::Null) => DEFAULT_LIMIT,
            Some(value) => match value.as_f64() {
                Some(n) if n >= 1.0 && n.fract() == 0.0 && n <= 1000.0 => n as usize,
                _ => return Err(ToolError::new("limit must be a positive integer")),
            },
        };
        let Some(tools) = self.tools.upgrade() else {
            return Err(ToolError::new("the session has ended"));
        };
        // A query can match any server's tools: wait for those still connecting.
        tokio::select! {
            () = tools.wait_for_connecting() => {}
            () = cancel.cancelled() => return Err(ToolError::new("aborted")),
        }
        let (documents, descriptions): (Vec<Document>, Vec<String>) =
            tools.searchable().into_iter().unzip();
        let found: Vec<(&str, &str)> = rank(query, &documents, limit)
            .into_iter()
            .map(|i| (documents[i].name.as_str(), descriptions[i].as_str()))
            .collect();
        let text = if found.is_empty() {
            "No matching tools found.".to_owned()
        } else {
            let lines: Vec<String> = found
                .iter()
                .map(|(name, description)| {
                    format!(
                        "- {name}: {}",
                        description.trim().lines().next().unwrap_or("")
                    )
                })
                .collect();
            format!(
                "Loaded {} tool{}. They are available from your next call:\n{}",
                found.len(),
                if found.len() == 1 { "" } else { "s" },
                lines.join("\n")
            )
        };
        let loaded: Vec<&str> = found.iter().map(|(name, _)| *name).collect();
        Ok(ToolOutput::text(text).with_details(json!({ "loaded": loaded })))
    }
}

impl AgentTool for ToolSearch {
    fn name(&self) -> &str {
        TOOL_SEARCH
    }
    fn description(&self) -> &str {
        DESCRIPTION
    }
    fn parameters(&self) -> &pi_ai::Schema {
        &self.parameters
    }
    fn execute<'a>(
        &'a self,
        _call_id: &'a str,
        args: Value,
        cancel: CancellationToken,
        _on_update: ToolUpdateFn,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move { self.search(&args, &cancel).await })
    }
}

/// The names a `tool_search` result loaded (its `details.loaded`).
pub(super) fn loaded_by(details: &Value) -> impl Iterator<Item = &str> {
    details
        .get("loaded")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

/// The search text of a tool's schema: property names and descriptions, nested.
pub(super) fn schema_text(schema: &Value, out: &mut Vec<String>, depth: usize) {
    let Some(object) = schema.as_object() else {
        return;
    };
    if depth > 8 {
        return;
    }
    if let Some(description) = object.get("description").and_then(Value::as_str) {
        out.push(description.to_owned());
    }
    if let Some(properties) = object.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            out.push(name.clone());
            schema_text(property, out, depth + 1);
        }
    }
    if let Some(items) = object.get("items") {
        schema_text(items, out, depth + 1);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for variant in object
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            schema_text(variant, out, depth + 1);
        }
    }
}

/// Lowercase words, split at identifier boundaries (`camelCase`, `snake_case`), without stop
/// words, in a naive singular form.
fn tokenize(text: &str) -> Vec<String> {
    let mut spaced = String::with_capacity(text.len() + 8);
    let mut previous: Option<char> = None;
    for c in text.chars() {
        if let Some(p) = previous
            && c.is_uppercase()
            && (p.is_lowercase() || p.is_ascii_digit())
        {
            spaced.push(' ');
        }
        spaced.push(c);
        previous = Some(c);
    }
    spaced
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !STOP_WORDS.contains(w))
        .map(stem)
        .collect()
}

fn stem(word: &str) -> String {
    let ascii = word.bytes().all(|b| b.is_ascii_alphanumeric());
    if !ascii {
        return word.to_owned();
    }
    let len = word.len();
    if len > 4 && word.ends_with("ies") {
        return format!("{}y", &word[..len - 3]);
    }
    if len > 4
        && ["ches", "shes", "sses", "xes", "zes"]
            .iter()
            .any(|s| word.ends_with(s))
    {
        return word[..len - 2].to_owned();
    }
    if len > 3 && word.ends_with('s') && !word.ends_with("ss") {
        return word[..len - 1].to_owned();
    }
    word.to_owned()
}

/// Lowercase with everything outside `[a-z0-9_$]` as `_`.
fn normalize_name(name: &str) -> String {
    name.trim()
        .to_lowercase()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '$' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

struct Indexed {
    name_terms: HashSet<String>,
    local_terms: Vec<String>,
    counts: HashMap<String, usize>,
    length: usize,
    server_terms: HashSet<String>,
}

fn index(document: &Document) -> Indexed {
    let mut counts = HashMap::new();
    for term in tokenize(&document.text) {
        *counts.entry(term).or_insert(0) += 1;
    }
    let local = document.name.rsplit("__").next().unwrap_or(&document.name);
    let mut local_terms = tokenize(local);
    local_terms.dedup();
    Indexed {
        name_terms: tokenize(&document.name).into_iter().collect(),
        local_terms,
        length: counts.values().sum(),
        counts,
        server_terms: tokenize(&document.server_text).into_iter().collect(),
    }
}

/// The indexes of the best `limit` documents for `query`, best first.
pub(super) fn rank(query: &str, documents: &[Document], limit: usize) -> Vec<usize> {
    let terms: Vec<String> = {
        let mut seen = HashSet::new();
        tokenize(query)
            .into_iter()
            .filter(|t| seen.insert(t.clone()))
            .collect()
    };
    if terms.is_empty() || documents.is_empty() || limit == 0 {
        return Vec::new();
    }
    let indexed: Vec<Indexed> = documents.iter().map(index).collect();
    let count = indexed.len() as f64;
    let average = (indexed.iter().map(|d| d.length).sum::<usize>() as f64 / count).max(1.0);
    let idf: Vec<f64> = terms
        .iter()
        .map(|term| {
            let frequency = indexed
                .iter()
                .filter(|d| {
                    d.name_terms.contains(term)
                        || d.counts.contains_key(term)
                        || d.server_terms.contains(term)
                })
                .count() as f64;
            (1.0 + (count - frequency + 0.5) / (frequency + 0.5)).ln()
        })
        .collect();
    let full_name_bonus: f64 = idf.iter().sum();
    let exact_query = normalize_name(query);
    let mut matches: Vec<(usize, f64, usize, bool)> = Vec::new();
    for (i, document) in indexed.iter().enumerate() {
        let norm = K1 * (1.0 - B + B * document.length as f64 / average);
        let (mut score, mut covered) = (0.0, 0);
        for (term, idf) in terms.iter().zip(&idf) {
            let count = document.counts.get(term).copied().unwrap_or(0) as f64;
            let weight = if document.name_terms.contains(term) {
                NAME_WEIGHT
            } else {
                0.0
            } + if document.server_terms.contains(term) {
                SERVER_WEIGHT
            } else {
                0.0
            } + count * (K1 + 1.0) / (count + norm);
            if weight > 0.0 {
                covered += 1;
            }
            score += idf * weight;
        }
        if score == 0.0 {
            continue;
        }
        if !document.local_terms.is_empty()
            && document.local_terms.iter().all(|t| terms.contains(t))
        {
            score += full_name_bonus;
        }
        let name = normalize_name(&documents[i].name);
        let exact = name == exact_query || name.ends_with(&format!("__{exact_query}"));
        matches.push((i, score, covered, exact));
    }
    // Stable: ties keep the documents' order.
    matches.sort_by(|a, b| {
        b.3.cmp(&a.3)
            .then(b.2.cmp(&a.2))
            .then(b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal))
    });
    matches.into_iter().take(limit).map(|m| m.0).collect()
}

/// A shared handle, for the session's tool list.
pub(super) fn tool(tools: &Arc<McpTools>) -> Arc<dyn AgentTool> {
    Arc::new(ToolSearch::new(Arc::downgrade(tools)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(name: &str, text: &str) -> Document {
        Document {
            name: name.to_owned(),
            text: text.to_owned(),
            server_text: String::new(),
        }
    }

    #[test]
    fn words_split_at_identifier_boundaries_lose_stop_words_and_plurals() {
        assert_eq!(
            tokenize("getIssues for the repo_names, searches"),
            ["get", "issue", "repo", "name", "search"]
        );
    }

    #[test]
    fn more_terms_matched_rank_first_and_a_name_beats_mentions() {
        let documents = [
            doc("mcp__w__window", "Lists open things"),
            doc("mcp__w__capture", "Takes a screenshot of a window"),
            doc("mcp__w__echo", "Echoes the window window window text"),
            doc("mcp__w__add", "Adds two numbers"),
        ];
        // Both terms (in the description) beat one term in the name.
        assert_eq!(rank("screenshot window", &documents, 8)[0], 1);
        // A name match beats three mentions.
        assert_eq!(rank("window", &documents, 8)[..2], [0, 2]);
        // An exact name comes first; nothing matching gives nothing.
        assert_eq!(rank("add", &documents, 1), [3]);
        assert!(rank("zebra", &documents, 8).is_empty());
        assert!(rank("the", &documents, 8).is_empty());
    }
}
