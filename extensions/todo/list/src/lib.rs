//! The todo list the todo package's components share: stored whole, as JSON, in a session `custom` entry of
//! type [`CUSTOM_TYPE`] after every change, so the newest entry on the current branch is the
//! list (a fork or a `/tree` jump back gets the list as it was there).

use pi_guest_sdk::session;
use serde_json::{Value, json};

/// The custom entry type the list is stored under.
pub const CUSTOM_TYPE: &str = "todo";

/// One item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// Its number, from 1, never reused.
    pub id: u64,
    pub text: String,
    pub done: bool,
}

/// The list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct List {
    pub items: Vec<Item>,
}

impl List {
    /// The list as the session holds it: its newest `todo` entry, or empty.
    pub fn load() -> Result<List, String> {
        let entries = session::entries(CUSTOM_TYPE)?;
        Ok(entries
            .last()
            .map(|data| List::from_json(data))
            .unwrap_or_default())
    }

    /// Stores the list as a new entry.
    pub fn save(&self) -> Result<(), String> {
        session::append_entry(CUSTOM_TYPE, &self.to_json())
    }

    /// Reads stored JSON; items that are not well formed are left out.
    pub fn from_json(data: &str) -> List {
        let value: Value = serde_json::from_str(data).unwrap_or(Value::Null);
        let items = value["items"].as_array().map(Vec::as_slice).unwrap_or(&[]);
        List {
            items: items
                .iter()
                .filter_map(|item| {
                    Some(Item {
                        id: item["id"].as_u64()?,
                        text: item["text"].as_str()?.to_owned(),
                        done: item["done"].as_bool().unwrap_or(false),
                    })
                })
                .collect(),
        }
    }

    pub fn to_json(&self) -> String {
        let items: Vec<Value> = self
            .items
            .iter()
            .map(|i| json!({"id": i.id, "text": i.text, "done": i.done}))
            .collect();
        json!({ "items": items }).to_string()
    }

    /// Adds an item and returns its id.
    pub fn add(&mut self, text: &str) -> u64 {
        let id = self.items.iter().map(|i| i.id).max().unwrap_or(0) + 1;
        self.items.push(Item {
            id,
            text: text.trim().to_owned(),
            done: false,
        });
        id
    }

    /// Marks item `id` done; false when there is none.
    pub fn done(&mut self, id: u64) -> bool {
        match self.items.iter_mut().find(|i| i.id == id) {
            Some(item) => {
                item.done = true;
                true
            }
            None => false,
        }
    }

    /// How many items are not done.
    pub fn open(&self) -> usize {
        self.items.iter().filter(|i| !i.done).count()
    }

    /// The footer status: "3 open", or none for an empty list.
    pub fn status(&self) -> Option<String> {
        match (self.items.len(), self.open()) {
            (0, _) => None,
            (_, 0) => Some("all done".into()),
            (_, open) => Some(format!("{open} open")),
        }
    }

    /// One line an item: `[ ] 1. text` or `[x] 2. text`.
    pub fn render(&self) -> String {
        if self.items.is_empty() {
            return "No todos.".into();
        }
        self.items
            .iter()
            .map(|i| format!("[{}] {}. {}", if i.done { "x" } else { " " }, i.id, i.text))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::List;

    #[test]
    fn a_list_survives_its_json_and_counts_what_is_open() {
        let mut list = List::default();
        assert_eq!(list.status(), None);
        assert_eq!(list.add(" write tests "), 1);
        assert_eq!(list.add("ship"), 2);
        assert!(list.done(1));
        assert!(!list.done(9));
        let back = List::from_json(&list.to_json());
        assert_eq!(back, list);
        assert_eq!(back.status().as_deref(), Some("1 open"));
        assert_eq!(back.render(), "[x] 1. write tests\n[ ] 2. ship");
        assert_eq!(List::from_json("not json"), List::default());
    }
}
