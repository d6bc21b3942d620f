//! The entry tree: roots, children, labels. Built flat (ids → children) so a session of any
//! depth is walked without recursion.

use super::entry::{EntryKind, SessionEntry};
use std::collections::HashMap;

/// The tree of a session's entries.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SessionTree {
    /// Entries with no parent, a parent of themselves, or a parent that does not exist.
    pub roots: Vec<String>,
    /// Children of each entry, oldest first.
    pub children: HashMap<String, Vec<String>>,
    /// The current label of each labelled entry.
    pub labels: HashMap<String, Label>,
}

/// A label and when it was set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub label: String,
    pub timestamp: String,
}

impl SessionTree {
    pub fn children_of(&self, id: &str) -> &[String] {
        self.children.get(id).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Ids of all leaves (entries without children), in file order of their roots' walk.
    pub fn leaves(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack: Vec<&String> = self.roots.iter().rev().collect();
        while let Some(id) = stack.pop() {
            let kids = self.children_of(id);
            if kids.is_empty() {
                out.push(id.clone());
            }
            stack.extend(kids.iter().rev());
        }
        out
    }
}

/// Builds the tree of `entries` (file order). `index` maps ids to positions.
pub fn build_tree(entries: &[SessionEntry], index: &HashMap<String, usize>) -> SessionTree {
    let mut tree = SessionTree {
        labels: resolve_labels(entries),
        ..Default::default()
    };
    for entry in entries {
        match &entry.parent_id {
            Some(parent) if parent != &entry.id && index.contains_key(parent) => {
                tree.children
                    .entry(parent.clone())
                    .or_default()
                    .push(entry.id.clone());
            }
            _ => tree.roots.push(entry.id.clone()),
        }
    }
    let stamp = |id: &String| {
        index
            .get(id)
            .map(|&i| entries[i].timestamp.as_str())
            .unwrap_or("")
    };
    // ISO strings of one format sort by time; the sort is stable so ties keep file order.
    for kids in tree.children.values_mut() {
        kids.sort_by(|a, b| stamp(a).cmp(stamp(b)));
    }
    tree
}

/// The latest label of each entry (a `label` entry with no or an empty label clears it).
pub fn resolve_labels(entries: &[SessionEntry]) -> HashMap<String, Label> {
    let mut labels = HashMap::new();
    for entry in entries {
        if let EntryKind::Label { target_id, label } = &entry.kind {
            match label.as_deref().filter(|l| !l.is_empty()) {
                Some(text) => {
                    labels.insert(
                        target_id.clone(),
                        Label {
                            label: text.to_owned(),
                            timestamp: entry.timestamp.clone(),
                        },
                    );
                }
                None => {
                    labels.remove(target_id);
                }
            }
        }
    }
    labels
}

/// The path root → `leaf`, following `parentId`. Stops at a missing parent or a cycle.
pub fn branch<'a>(
    entries: &'a [SessionEntry],
    index: &HashMap<String, usize>,
    leaf: Option<&str>,
) -> Vec<&'a SessionEntry> {
    let mut path = Vec::new();
    let mut current = leaf.and_then(|id| index.get(id).copied());
    while let Some(i) = current {
        let entry = &entries[i];
        path.push(entry);
        if path.len() > entries.len() {
            break;
        }
        current = match &entry.parent_id {
            Some(parent) if parent != &entry.id => index.get(parent).copied(),
            _ => None,
        };
    }
    path.reverse();
    path
}
