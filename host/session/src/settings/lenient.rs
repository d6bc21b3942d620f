//! Reading a settings file whose known keys may hold values of the wrong type.
//!
//! pi does not validate its settings files: a value of the wrong type stays in the file and the
//! code that reads it falls back to the default. Here such a value is reported (file, key) and
//! kept aside, the other keys are read as usual, and a save writes the value back unchanged
//! unless the user has since set that key.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// A value that did not fit its key, at `path` (`["compaction", "reserveTokens"]`).
#[derive(Debug, Clone, PartialEq)]
pub struct Rejected {
    pub path: Vec<String>,
    pub value: Value,
    /// Why it did not fit (serde's words).
    pub reason: String,
}

impl Rejected {
    /// The dotted key (`compaction.reserveTokens`).
    pub fn key(&self) -> String {
        self.path.join(".")
    }
}

/// `T` from `object`, leaving out (and returning) the values that do not fit their key.
pub fn read_lenient<T: DeserializeOwned + Default>(
    object: Map<String, Value>,
) -> (T, Vec<Rejected>) {
    let mut object = object;
    if let Ok(typed) = serde_json::from_value(Value::Object(object.clone())) {
        return (typed, Vec::new());
    }
    let mut rejected = Vec::new();
    sift::<T>(&mut object, &mut Vec::new(), &mut rejected);
    let typed = serde_json::from_value(Value::Object(object)).unwrap_or_default();
    (typed, rejected)
}

/// Removes from `object` (found at `path` in the file) every value that does not fit `T` on
/// its own, descending into objects so one bad field does not cost its siblings.
fn sift<T: DeserializeOwned>(
    object: &mut Map<String, Value>,
    path: &mut Vec<String>,
    rejected: &mut Vec<Rejected>,
) {
    let keys: Vec<String> = object.keys().cloned().collect();
    for key in keys {
        path.push(key.clone());
        if let Some(reason) = misfit::<T>(path, &object[&key]) {
            // An object is sifted key by key first; it goes whole only if it still misfits.
            let still_misfits = match object.get_mut(&key) {
                Some(Value::Object(inner)) => {
                    sift::<T>(inner, path, rejected);
                    misfit::<T>(path, &object[&key]).is_some()
                }
                _ => true,
            };
            if still_misfits && let Some(value) = object.shift_remove(&key) {
                rejected.push(Rejected {
                    path: path.clone(),
                    value,
                    reason,
                });
            }
        }
        path.pop();
    }
}

/// Why `value` alone at `path` does not make a `T`, or `None` when it does.
fn misfit<T: DeserializeOwned>(path: &[String], value: &Value) -> Option<String> {
    let mut probe = value.clone();
    for key in path.iter().rev() {
        probe = Value::Object(Map::from_iter([(key.clone(), probe)]));
    }
    serde_json::from_value::<T>(probe)
        .err()
        .map(|e| e.to_string())
}

/// Puts the rejected values back into `object` where nothing else took their place.
pub fn restore(object: &mut Map<String, Value>, rejected: &[Rejected]) {
    for item in rejected {
        put_back(object, &item.path, &item.value);
    }
}

fn put_back(object: &mut Map<String, Value>, path: &[String], value: &Value) {
    match path {
        [] => {}
        [last] => {
            if !object.contains_key(last) {
                object.insert(last.clone(), value.clone());
            }
        }
        [first, rest @ ..] => {
            let slot = object
                .entry(first.clone())
                .or_insert_with(|| Value::Object(Map::new()));
            // A key the user has since set to something else than an object wins.
            if let Value::Object(inner) = slot {
                put_back(inner, rest, value);
            }
        }
    }
}
