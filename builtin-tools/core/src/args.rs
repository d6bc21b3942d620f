//! Reading tool arguments out of the JSON object the model sent.
//!
//! The host validates arguments against each tool's schema before calling it; these helpers
//! still check types so a tool called directly never panics on bad input.

use crate::ToolError;
use serde_json::{Map, Value};

pub(crate) struct Args<'a> {
    tool: &'static str,
    map: &'a Map<String, Value>,
}

impl<'a> Args<'a> {
    pub(crate) fn new(tool: &'static str, value: &'a Value) -> Result<Self, ToolError> {
        match value.as_object() {
            Some(map) => Ok(Args { tool, map }),
            None => Err(ToolError::new(format!(
                "Invalid arguments for tool \"{tool}\": expected an object"
            ))),
        }
    }

    fn invalid(&self, name: &str, expected: &str) -> ToolError {
        ToolError::new(format!(
            "Invalid arguments for tool \"{}\": {name} must be {expected}",
            self.tool
        ))
    }

    pub(crate) fn raw(&self, name: &str) -> Option<&'a Value> {
        self.map.get(name).filter(|v| !v.is_null())
    }

    pub(crate) fn string(&self, name: &str) -> Result<&'a str, ToolError> {
        self.opt_string(name)?
            .ok_or_else(|| self.invalid(name, "a string (required)"))
    }

    pub(crate) fn opt_string(&self, name: &str) -> Result<Option<&'a str>, ToolError> {
        match self.raw(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(self.invalid(name, "a string")),
        }
    }

    pub(crate) fn opt_number(&self, name: &str) -> Result<Option<f64>, ToolError> {
        match self.raw(name) {
            None => Ok(None),
            Some(Value::Number(n)) => n
                .as_f64()
                .map(Some)
                .ok_or_else(|| self.invalid(name, "a number")),
            Some(_) => Err(self.invalid(name, "a number")),
        }
    }

    pub(crate) fn opt_bool(&self, name: &str) -> Result<Option<bool>, ToolError> {
        match self.raw(name) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(self.invalid(name, "a boolean")),
        }
    }
}

/// A count argument: JS-style numbers, truncated toward zero, negative clamped to zero.
pub(crate) fn as_count(value: f64) -> usize {
    if value.is_finite() && value > 0.0 {
        value.trunc() as usize
    } else {
        0
    }
}

/// `{}` for tools that report no details.
pub(crate) fn no_details() -> Value {
    Value::Object(Map::new())
}

/// Object schema from `(name, type, description)` triples and the required names.
pub(crate) fn schema(props: &[(&str, &str, &str)], required: &[&str]) -> Value {
    let mut properties = Map::new();
    for (name, ty, description) in props {
        properties.insert(
            (*name).to_string(),
            serde_json::json!({ "type": ty, "description": description }),
        );
    }
    serde_json::json!({
        "type": "object",
        "properties": properties,
        "required": required,
    })
}
