//! The fields of a Responses stream event that the delta events use, borrowed from the data
//! line. Item and response events are rare and read as a whole `Value` instead.

use crate::providers::lenient::{Obj, Str, U64, present};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
pub(super) struct Event<'a> {
    #[serde(rename = "type", default, borrow)]
    pub kind: Str<'a>,
    /// Outer `None`: no `item_id` key, so the item's own id is used.
    #[serde(default, borrow, deserialize_with = "present")]
    pub item_id: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub item: Obj<ItemRef<'a>>,
    #[serde(default)]
    pub output_index: U64,
    #[serde(default, deserialize_with = "present")]
    pub summary_index: Option<U64>,
    #[serde(default, deserialize_with = "present")]
    pub content_index: Option<U64>,
    #[serde(default, borrow)]
    pub delta: Str<'a>,
}

impl Event<'_> {
    /// The item this event is about: `item_id` when the key is there, else `item.id`.
    pub fn item_id(&self) -> Option<&str> {
        match &self.item_id {
            Some(id) => id.get(),
            None => self.item.get().and_then(|i| i.id.get()),
        }
    }
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct ItemRef<'a> {
    #[serde(default, borrow)]
    pub id: Str<'a>,
}
