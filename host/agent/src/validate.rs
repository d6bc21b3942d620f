//! Tool argument validation against a JSON Schema, with pi's coercion pass (pi-ai
//! `validateToolArguments`). Covers the keywords tool schemas use: type, required, properties,
//! additionalProperties, items, enum, const, anyOf/oneOf/allOf, minimum/maximum (and the
//! exclusive forms), minLength/maxLength, minItems/maxItems, pattern. Error texts follow the
//! wording pi's validator prints (`must be string`, `must have required property 'x'`, …).

use serde_json::{Map, Number, Value};

/// One failed check: where (a JSON pointer into the arguments) and what.
#[derive(Debug, Clone, PartialEq)]
struct Failure {
    path: String,
    message: String,
}

/// Coerces then validates `args`. Returns the (possibly coerced) arguments, or pi's error text:
/// `Validation failed for tool "NAME":\n  - path: message\n…\n\nReceived arguments:\n{json}`.
pub fn validate_tool_arguments(
    tool_name: &str,
    schema: &Value,
    args: &Value,
) -> Result<Value, String> {
    let mut value = args.clone();
    coerce(schema, &mut value);
    let mut failures = Vec::new();
    check(schema, &value, "", &mut failures);
    if failures.is_empty() {
        return Ok(value);
    }
    let lines: Vec<String> = failures
        .iter()
        .map(|f| format!("  - {}: {}", display_path(&f.path), f.message))
        .collect();
    let received = serde_json::to_string_pretty(args).unwrap_or_else(|_| args.to_string());
    Err(format!(
        "Validation failed for tool \"{tool_name}\":\n{}\n\nReceived arguments:\n{received}",
        lines.join("\n")
    ))
}

/// `/a/0/b` → `a.0.b`; the empty pointer → `root`.
fn display_path(pointer: &str) -> String {
    if pointer.is_empty() {
        "root".to_owned()
    } else {
        pointer.trim_start_matches('/').replace('/', ".")
    }
}

fn child(path: &str, key: &str) -> String {
    let escaped = key.replace('~', "~0").replace('/', "~1");
    format!("{path}/{escaped}")
}

/// Returns true when the schema accepts `value` (no error collection).
pub fn is_valid(schema: &Value, value: &Value) -> bool {
    let mut failures = Vec::new();
    check(schema, value, "", &mut failures);
    failures.is_empty()
}

fn declared_types(schema: &Map<String, Value>) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn has_type(value: &Value, ty: &str) -> bool {
    match ty {
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => is_integer(value),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        _ => true,
    }
}

fn is_integer(value: &Value) -> bool {
    match value {
        Value::Number(n) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => false,
    }
}

// ---- coercion -------------------------------------------------------------------------------

/// pi's coercion pass for plain JSON-Schema parameters: fixes scalar types the model got
/// "almost right" (numbers as strings and the like), recursing into objects, arrays and unions.
fn coerce(schema: &Value, value: &mut Value) {
    let Value::Object(schema) = schema else {
        return;
    };
    let types = declared_types(schema);
    if !types.is_empty()
        && !types.iter().any(|t| has_type(value, t))
        && let Some(converted) = types.iter().find_map(|t| coerce_scalar(value, t))
    {
        *value = converted;
    }
    coerce_children(schema, value);
    if let Some(Value::Array(members)) = schema.get("allOf") {
        for member in members {
            coerce(member, value);
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(members)) = schema.get(key) {
            coerce_union(members, value);
        }
    }
}

fn coerce_children(schema: &Map<String, Value>, value: &mut Value) {
    match value {
        Value::Object(object) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let additional = schema.get("additionalProperties").filter(|s| s.is_object());
            for (key, item) in object.iter_mut() {
                match properties.and_then(|p| p.get(key)) {
                    Some(property) => coerce(property, item),
                    None => {
                        if let Some(additional) = additional {
                            coerce(additional, item);
                        }
                    }
                }
            }
        }
        Value::Array(items) => match schema.get("items") {
            Some(Value::Array(tuple)) => {
                for (item, item_schema) in items.iter_mut().zip(tuple) {
                    coerce(item_schema, item);
                }
            }
            Some(item_schema) => {
                for item in items.iter_mut() {
                    coerce(item_schema, item);
                }
            }
            None => {}
        },
        _ => {}
    }
}

/// A union takes the first member the value already satisfies; failing that, the first member
/// it satisfies after coercion.
fn coerce_union(members: &[Value], value: &mut Value) {
    if members.iter().any(|member| is_valid(member, value)) {
        return;
    }
    for member in members {
        let mut candidate = value.clone();
        coerce(member, &mut candidate);
        if is_valid(member, &candidate) {
            *value = candidate;
            return;
        }
    }
}

fn coerce_scalar(value: &Value, ty: &str) -> Option<Value> {
    match ty {
        "number" | "integer" => coerce_number(value, ty == "integer"),
        "boolean" => match value {
            Value::String(s) if s == "true" => Some(Value::Bool(true)),
            Value::String(s) if s == "false" => Some(Value::Bool(false)),
            Value::Number(n) if n.as_f64() == Some(1.0) => Some(Value::Bool(true)),
            Value::Number(n) if n.as_f64() == Some(0.0) => Some(Value::Bool(false)),
            Value::Null => Some(Value::Bool(false)),
            _ => None,
        },
        "string" => match value {
            Value::Number(n) => Some(Value::String(n.to_string())),
            Value::Bool(b) => Some(Value::String(b.to_string())),
            Value::Null => Some(Value::String(String::new())),
            _ => None,
        },
        "null" => match value {
            Value::String(s) if s.is_empty() => Some(Value::Null),
            Value::Number(n) if n.as_f64() == Some(0.0) => Some(Value::Null),
            Value::Bool(false) => Some(Value::Null),
            _ => None,
        },
        _ => None,
    }
}

fn coerce_number(value: &Value, integer: bool) -> Option<Value> {
    let number = match value {
        Value::String(s) => {
            let trimmed = s.trim();
            if trimmed.is_empty() {
                return None;
            }
            if let Ok(i) = trimmed.parse::<i64>() {
                return Some(Value::Number(i.into()));
            }
            trimmed.parse::<f64>().ok().filter(|f| f.is_finite())?
        }
        Value::Bool(b) => return Some(Value::Number(u8::from(*b).into())),
        Value::Null => return Some(Value::Number(0.into())),
        _ => return None,
    };
    if integer && number.fract() != 0.0 {
        return None;
    }
    Number::from_f64(number).map(Value::Number)
}

// ---- validation -----------------------------------------------------------------------------

fn fail(failures: &mut Vec<Failure>, path: &str, message: String) {
    failures.push(Failure {
        path: path.to_owned(),
        message,
    });
}

fn check(schema: &Value, value: &Value, path: &str, failures: &mut Vec<Failure>) {
    let schema = match schema {
        Value::Object(schema) => schema,
        Value::Bool(false) => return fail(failures, path, "boolean schema is false".to_owned()),
        _ => return,
    };
    let types = declared_types(schema);
    if !types.is_empty() && !types.iter().any(|t| has_type(value, t)) {
        fail(failures, path, format!("must be {}", types.join(",")));
    }
    match value {
        Value::String(s) => check_string(schema, s, path, failures),
        Value::Number(n) => check_number(schema, n, path, failures),
        Value::Array(items) => check_array(schema, items, path, failures),
        Value::Object(object) => check_object(schema, object, path, failures),
        _ => {}
    }
    check_values(schema, value, path, failures);
    check_combinators(schema, value, path, failures);
}

fn limit(schema: &Map<String, Value>, key: &str) -> Option<u64> {
    schema.get(key).and_then(Value::as_u64)
}

fn check_string(schema: &Map<String, Value>, s: &str, path: &str, failures: &mut Vec<Failure>) {
    // Lengths count code points, as pi's validator does.
    let length = s.chars().count() as u64;
    if let Some(max) = limit(schema, "maxLength").filter(|max| length > *max) {
        fail(
            failures,
            path,
            format!("must NOT have more than {max} characters"),
        );
    }
    if let Some(min) = limit(schema, "minLength").filter(|min| length < *min) {
        fail(
            failures,
            path,
            format!("must NOT have fewer than {min} characters"),
        );
    }
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str)
        && let Ok(re) = regex::Regex::new(pattern)
        && !re.is_match(s)
    {
        fail(failures, path, format!("must match pattern \"{pattern}\""));
    }
}

fn check_number(schema: &Map<String, Value>, n: &Number, path: &str, failures: &mut Vec<Failure>) {
    let Some(x) = n.as_f64() else {
        return;
    };
    type Bound = (&'static str, &'static str, fn(f64, f64) -> bool);
    let bounds: [Bound; 4] = [
        ("maximum", "<=", |x, b| x <= b),
        ("minimum", ">=", |x, b| x >= b),
        ("exclusiveMaximum", "<", |x, b| x < b),
        ("exclusiveMinimum", ">", |x, b| x > b),
    ];
    for (key, op, ok) in bounds {
        if let Some(bound) = schema.get(key).filter(|b| b.is_number())
            && !bound.as_f64().is_some_and(|b| ok(x, b))
        {
            fail(failures, path, format!("must be {op} {bound}"));
        }
    }
}

fn check_array(
    schema: &Map<String, Value>,
    items: &[Value],
    path: &str,
    failures: &mut Vec<Failure>,
) {
    let count = items.len() as u64;
    if let Some(max) = limit(schema, "maxItems").filter(|max| count > *max) {
        fail(
            failures,
            path,
            format!("must NOT have more than {max} items"),
        );
    }
    if let Some(min) = limit(schema, "minItems").filter(|min| count < *min) {
        fail(
            failures,
            path,
            format!("must NOT have fewer than {min} items"),
        );
    }
    match schema.get("items") {
        Some(Value::Array(tuple)) => {
            for (index, (item, item_schema)) in items.iter().zip(tuple).enumerate() {
                check(
                    item_schema,
                    item,
                    &child(path, &index.to_string()),
                    failures,
                );
            }
        }
        Some(item_schema) => {
            for (index, item) in items.iter().enumerate() {
                check(
                    item_schema,
                    item,
                    &child(path, &index.to_string()),
                    failures,
                );
            }
        }
        None => {}
    }
}

fn check_object(
    schema: &Map<String, Value>,
    object: &Map<String, Value>,
    path: &str,
    failures: &mut Vec<Failure>,
) {
    if let Some(Value::Array(required)) = schema.get("required") {
        for name in required.iter().filter_map(Value::as_str) {
            if !object.contains_key(name) {
                // The path names the missing property itself (pi appends it).
                failures.push(Failure {
                    path: child(path, name),
                    message: format!("must have required property '{name}'"),
                });
            }
        }
    }
    let properties = schema.get("properties").and_then(Value::as_object);
    match schema.get("additionalProperties") {
        Some(Value::Bool(false)) => {
            let extra = object
                .keys()
                .any(|key| !properties.is_some_and(|p| p.contains_key(key)));
            if extra {
                fail(
                    failures,
                    path,
                    "must NOT have additional properties".to_owned(),
                );
            }
        }
        Some(additional @ Value::Object(_)) => {
            for (key, item) in object {
                if !properties.is_some_and(|p| p.contains_key(key)) {
                    check(additional, item, &child(path, key), failures);
                }
            }
        }
        _ => {}
    }
    if let Some(properties) = properties {
        for (key, property) in properties {
            if let Some(item) = object.get(key) {
                check(property, item, &child(path, key), failures);
            }
        }
    }
}

fn check_values(
    schema: &Map<String, Value>,
    value: &Value,
    path: &str,
    failures: &mut Vec<Failure>,
) {
    if let Some(Value::Array(allowed)) = schema.get("enum")
        && !allowed.iter().any(|a| json_equal(a, value))
    {
        fail(
            failures,
            path,
            "must be equal to one of the allowed values".to_owned(),
        );
    }
    if let Some(constant) = schema.get("const")
        && !json_equal(constant, value)
    {
        fail(failures, path, "must be equal to constant".to_owned());
    }
}

fn check_combinators(
    schema: &Map<String, Value>,
    value: &Value,
    path: &str,
    failures: &mut Vec<Failure>,
) {
    if let Some(Value::Array(members)) = schema.get("anyOf")
        && !members.iter().any(|m| is_valid(m, value))
    {
        fail(failures, path, "must match a schema in anyOf".to_owned());
    }
    if let Some(Value::Array(members)) = schema.get("oneOf")
        && members.iter().filter(|m| is_valid(m, value)).count() != 1
    {
        fail(
            failures,
            path,
            "must match exactly one schema in oneOf".to_owned(),
        );
    }
    if let Some(Value::Array(members)) = schema.get("allOf") {
        for member in members {
            check(member, value, path, failures);
        }
    }
}

/// JSON equality where `1` and `1.0` are the same number.
fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "minLength": 1},
                "limit": {"type": "integer", "minimum": 1},
                "mode": {"enum": ["a", "b"]},
                "flag": {"type": "boolean"},
                "edits": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"oldText": {"type": "string"}},
                    "required": ["oldText"],
                    "additionalProperties": false
                }}
            },
            "required": ["path"]
        })
    }

    #[test]
    fn coerces_scalars() {
        let args = json!({"path": 12, "limit": "5", "flag": "true"});
        let out = validate_tool_arguments("t", &schema(), &args).unwrap();
        assert_eq!(out, json!({"path": "12", "limit": 5, "flag": true}));
    }

    #[test]
    fn reports_every_failure_with_paths() {
        let args = json!({"limit": 0, "mode": "c", "edits": [{"x": 1}]});
        let err = validate_tool_arguments("read", &schema(), &args).unwrap_err();
        let expected = "Validation failed for tool \"read\":\n  - path: must have required property 'path'\n  - limit: must be >= 1\n  - mode: must be equal to one of the allowed values\n  - edits.0.oldText: must have required property 'oldText'\n  - edits.0: must NOT have additional properties\n\nReceived arguments:\n{\n  \"limit\": 0,\n  \"mode\": \"c\",\n  \"edits\": [\n    {\n      \"x\": 1\n    }\n  ]\n}";
        assert_eq!(err, expected);
    }

    #[test]
    fn root_type_error() {
        let err =
            validate_tool_arguments("t", &json!({"type": "object"}), &json!([1])).unwrap_err();
        assert!(err.contains("  - root: must be object\n"), "{err}");
    }

    #[test]
    fn unions_pick_first_valid_member() {
        let s = json!({"anyOf": [{"type": "integer"}, {"type": "boolean"}]});
        assert_eq!(
            validate_tool_arguments("t", &s, &json!("7")).unwrap(),
            json!(7)
        );
        assert_eq!(
            validate_tool_arguments("t", &s, &json!(true)).unwrap(),
            json!(true)
        );
        let err = validate_tool_arguments("t", &s, &json!({"a": 1})).unwrap_err();
        assert!(err.contains("root: must match a schema in anyOf"), "{err}");
        let one = json!({"oneOf": [{"type": "number"}, {"type": "integer"}]});
        assert!(validate_tool_arguments("t", &one, &json!(2)).is_err());
        assert!(validate_tool_arguments("t", &one, &json!(2.5)).is_ok());
    }

    #[test]
    fn lengths_const_and_pattern() {
        let s = json!({"type": "string", "maxLength": 3, "pattern": "^a"});
        let err = validate_tool_arguments("t", &s, &json!("bcde")).unwrap_err();
        assert!(
            err.contains("root: must NOT have more than 3 characters"),
            "{err}"
        );
        assert!(err.contains("root: must match pattern \"^a\""), "{err}");
        let c = json!({"const": 1});
        assert!(validate_tool_arguments("t", &c, &json!(1.0)).is_ok());
        assert!(
            validate_tool_arguments("t", &c, &json!(2))
                .unwrap_err()
                .contains("must be equal to constant")
        );
    }
}
