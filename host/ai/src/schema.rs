//! A tool's JSON Schema as it travels: the JSON text it arrived in, parsed into a tree only when
//! something reads it.
//!
//! Most schemas are only ever passed on — from a component's description, through the start-up
//! index, into every provider request — and each would otherwise be built into a `Value` tree
//! at every start and cloned into every request. Argument validation is the one reader of the
//! tree; it is parsed on its first call and kept. Clones share both the text and the tree.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;
use std::sync::{Arc, OnceLock};

/// A JSON Schema, shared, with its text and its tree each made on first use.
#[derive(Clone)]
pub struct Schema(Arc<SchemaData>);

/// At least one of the two is set from the start; the other is derived from it.
struct SchemaData {
    text: OnceLock<Box<RawValue>>,
    tree: OnceLock<Value>,
}

impl Schema {
    /// A schema from its JSON text; the text must be one valid JSON value.
    pub fn from_text(text: String) -> Result<Schema, serde_json::Error> {
        RawValue::from_string(text).map(Self::from_raw)
    }

    /// A schema from JSON text a component or model sent: an unparsable one becomes the empty
    /// object schema, so a sloppy component still gets its tools offered.
    pub fn from_text_or_object(text: &str) -> Schema {
        Schema::from_text(text.to_owned())
            .unwrap_or_else(|_| Schema::from(serde_json::json!({"type": "object"})))
    }

    fn from_raw(text: Box<RawValue>) -> Schema {
        Schema(Arc::new(SchemaData {
            text: OnceLock::from(text),
            tree: OnceLock::new(),
        }))
    }

    /// The JSON text, as it is sent to providers and components.
    pub fn text(&self) -> &str {
        self.raw().get()
    }

    fn raw(&self) -> &RawValue {
        // Serialising a `Value` cannot fail (its map keys are strings).
        self.0
            .text
            .get_or_init(|| serde_json::value::to_raw_value(self.value()).unwrap_or_default())
    }

    /// The parsed schema.
    pub fn value(&self) -> &Value {
        self.0.tree.get_or_init(|| match self.0.text.get() {
            // Validated when the schema was made, so this parse cannot fail.
            Some(text) => serde_json::from_str(text.get()).unwrap_or(Value::Null),
            None => Value::Null,
        })
    }
}

impl From<Value> for Schema {
    fn from(tree: Value) -> Schema {
        Schema(Arc::new(SchemaData {
            text: OnceLock::new(),
            tree: OnceLock::from(tree),
        }))
    }
}

impl PartialEq for Schema {
    fn eq(&self, other: &Schema) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.value() == other.value()
    }
}

impl Eq for Schema {}

impl std::fmt::Debug for Schema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.text())
    }
}

impl Serialize for Schema {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.raw().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Schema {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Schema, D::Error> {
        Box::<RawValue>::deserialize(deserializer).map(Schema::from_raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_is_kept_verbatim_and_parsed_on_demand() {
        let schema = Schema::from_text(r#"{"type": "object",  "required":["a"]}"#.into()).unwrap();
        assert_eq!(schema.text(), r#"{"type": "object",  "required":["a"]}"#);
        assert_eq!(
            schema.value(),
            &json!({"type": "object", "required": ["a"]})
        );
        assert!(Schema::from_text("{not json".into()).is_err());
    }

    #[test]
    fn serialises_as_the_schema_itself_and_compares_by_meaning() {
        let schema = Schema::from(json!({"type": "object"}));
        let wrapped = json!({"parameters": schema.clone()});
        assert_eq!(wrapped, json!({"parameters": {"type": "object"}}));
        let body = serde_json::to_string(&wrapped).unwrap();
        assert_eq!(body, r#"{"parameters":{"type":"object"}}"#);
        let back: Schema = serde_json::from_str(r#"{ "type" : "object" }"#).unwrap();
        assert_eq!(back, schema);
        let from_tree: Schema = serde_json::from_value(json!({"type": "object"})).unwrap();
        assert_eq!(from_tree.value(), schema.value());
    }
}
