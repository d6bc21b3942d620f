//! Where an entry id is in file order: the lookup the tree walks and appends use.
//!
//! The session's own lookup ([`Slots`]) keeps the entries and a hash table of their positions
//! only: the table compares against the ids the entries already hold, where a map from id
//! strings would hold each id a second time (a long session has tens of thousands).

use super::index::Slot;
use hashbrown::HashTable;
use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::ops::Deref;

/// Finds the position of an entry by id.
pub trait Positions {
    /// The position of the last entry with `id` (a file that repeats an id is read this way
    /// everywhere: the later entry wins).
    fn position(&self, id: &str) -> Option<usize>;

    fn contains(&self, id: &str) -> bool {
        self.position(id).is_some()
    }
}

impl Positions for HashMap<String, usize> {
    fn position(&self, id: &str) -> Option<usize> {
        self.get(id).copied()
    }
}

/// The session's entries in file order, found by position (it derefs to the slice) or by id.
#[derive(Debug, Default)]
pub(crate) struct Slots {
    list: Vec<Slot>,
    table: HashTable<usize>,
    hasher: RandomState,
}

impl Slots {
    pub fn new(list: Vec<Slot>) -> Slots {
        let mut slots = Slots {
            table: HashTable::with_capacity(list.len()),
            list,
            hasher: RandomState::new(),
        };
        for position in 0..slots.list.len() {
            slots.index(position);
        }
        slots
    }

    /// Appends `slot`; its id now finds it.
    pub fn push(&mut self, slot: Slot) {
        self.list.push(slot);
        self.index(self.list.len() - 1);
    }

    /// Makes the id of the entry at `position` find it, in place of an earlier entry with the
    /// same id.
    fn index(&mut self, position: usize) {
        let Slots {
            list,
            table,
            hasher,
        } = self;
        let id = &*list[position].id;
        let hash = hasher.hash_one(id);
        match table.find_mut(hash, |&i| *list[i].id == *id) {
            Some(earlier) => *earlier = position,
            None => {
                table.insert_unique(hash, position, |&i| hasher.hash_one(&*list[i].id));
            }
        }
    }
}

impl Positions for Slots {
    fn position(&self, id: &str) -> Option<usize> {
        let hash = self.hasher.hash_one(id);
        self.table.find(hash, |&i| *self.list[i].id == *id).copied()
    }
}

impl Deref for Slots {
    type Target = [Slot];

    fn deref(&self) -> &[Slot] {
        &self.list
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::entry::{EntryKind, SessionEntry};
    use serde_json::Map;

    fn slot(id: &str) -> Slot {
        let entry = SessionEntry {
            id: id.to_owned(),
            parent_id: None,
            timestamp: "t".to_owned(),
            kind: EntryKind::Label {
                target_id: "x".to_owned(),
                label: None,
            },
            extra: Map::new(),
            message_extra: Map::new(),
        };
        Slot::parsed(entry, None)
    }

    #[test]
    fn ids_find_their_latest_entry_as_a_map_of_them_would() {
        let ids = ["a", "b", "c", "b", "d"];
        let mut slots = Slots::new(ids[..3].iter().map(|id| slot(id)).collect());
        for id in &ids[3..] {
            slots.push(slot(id));
        }
        let map: HashMap<String, usize> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| ((*id).to_owned(), i))
            .collect();
        for id in ["a", "b", "c", "d", "e", ""] {
            assert_eq!(slots.position(id), map.position(id), "{id}");
        }
        assert_eq!(slots.position("b"), Some(3));
        assert!(!slots.contains("e"));
        assert_eq!(slots.len(), 5);
    }
}
