//! The entry tree: roots, children, labels. Built flat (ids → children) so a session of any
//! depth is walked without recursion, over anything that knows its id, parent and time (parsed
//! entries, or the index's slots of entries not parsed yet).

use super::entry::{EntryKind, SessionEntry};
use super::index::Slot;
use super::positions::Positions;
use std::collections::HashMap;

/// What the tree needs of an entry.
pub trait Linked {
    fn id(&self) -> &str;
    fn parent_id(&self) -> Option<&str>;
    fn timestamp(&self) -> &str;
}

impl Linked for SessionEntry {
    fn id(&self) -> &str {
        &self.id
    }
    fn parent_id(&self) -> Option<&str> {
        self.parent_id.as_deref()
    }
    fn timestamp(&self) -> &str {
        &self.timestamp
    }
}

impl Linked for Slot {
    fn id(&self) -> &str {
        &self.id
    }
    fn parent_id(&self) -> Option<&str> {
        self.parent_id.as_deref()
    }
    fn timestamp(&self) -> &str {
        &self.timestamp
    }
}

impl<T: Linked> Linked for &T {
    fn id(&self) -> &str {
        (**self).id()
    }
    fn parent_id(&self) -> Option<&str> {
        (**self).parent_id()
    }
    fn timestamp(&self) -> &str {
        (**self).timestamp()
    }
}

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

/// Builds the tree of `entries` (file order) with `labels`. `index` maps ids to positions.
pub fn build_tree<T: Linked>(
    entries: &[T],
    index: &impl Positions,
    labels: HashMap<String, Label>,
) -> SessionTree {
    let mut tree = SessionTree {
        labels,
        ..Default::default()
    };
    for entry in entries {
        match entry.parent_id() {
            Some(parent) if parent != entry.id() && index.contains(parent) => {
                tree.children
                    .entry(parent.to_owned())
                    .or_default()
                    .push(entry.id().to_owned());
            }
            _ => tree.roots.push(entry.id().to_owned()),
        }
    }
    let stamp = |id: &String| {
        index
            .position(id)
            .map(|i| entries[i].timestamp())
            .unwrap_or("")
    };
    // ISO strings of one format sort by time; the sort is stable so ties keep file order.
    for kids in tree.children.values_mut() {
        kids.sort_by(|a, b| stamp(a).cmp(stamp(b)));
    }
    tree
}

/// The latest label of each entry (a `label` entry with no or an empty label clears it).
pub fn resolve_labels<'a>(
    entries: impl IntoIterator<Item = &'a SessionEntry>,
) -> HashMap<String, Label> {
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
pub fn branch<'a, T: Linked>(
    entries: &'a [T],
    index: &impl Positions,
    leaf: Option<&str>,
) -> Vec<&'a T> {
    let mut path = Vec::new();
    let mut current = leaf.and_then(|id| index.position(id));
    while let Some(i) = current {
        let entry = &entries[i];
        path.push(entry);
        if path.len() > entries.len() {
            break;
        }
        current = match entry.parent_id() {
            Some(parent) if parent != entry.id() => index.position(parent),
            _ => None,
        };
    }
    path.reverse();
    path
}
