//! Typing text values by a tool's schema: XML parameters carry no types,
//! so `"42"` is a number only when the schema says the slot is one.

use serde_json::{Map, Value};

use crate::repair::repair_value;

/// The arguments, each text value typed by its property's `type` when the
/// text reads as that type; anything else is left as it is.
pub(super) fn type_arguments(arguments: Map<String, Value>, schema: &Value) -> Map<String, Value> {
    let properties = schema.get("properties").and_then(Value::as_object);
    arguments
        .into_iter()
        .map(|(key, value)| {
            let property = properties.and_then(|p| p.get(&key));
            let typed = match (value, property) {
                (Value::String(text), Some(property)) => typed(text, property),
                (value, _) => value,
            };
            (key, typed)
        })
        .collect()
}

fn typed(text: String, property: &Value) -> Value {
    let types: Vec<&str> = match property.get("type") {
        Some(Value::String(one)) => vec![one.as_str()],
        Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if types.is_empty() || types.contains(&"string") {
        return Value::String(text);
    }
    let trimmed = text.trim();
    for kind in types {
        let value = match kind {
            "integer" => trimmed.parse::<i64>().ok().map(Value::from),
            "number" => trimmed.parse::<i64>().ok().map(Value::from).or_else(|| {
                trimmed
                    .parse::<f64>()
                    .ok()
                    .and_then(|f| serde_json::Number::from_f64(f).map(Value::Number))
            }),
            "boolean" => match trimmed {
                "true" | "True" => Some(Value::Bool(true)),
                "false" | "False" => Some(Value::Bool(false)),
                _ => None,
            },
            "null" => matches!(trimmed, "null" | "None" | "").then_some(Value::Null),
            "array" => repair_value(trimmed).ok().filter(Value::is_array),
            "object" => repair_value(trimmed).ok().filter(Value::is_object),
            _ => None,
        };
        if let Some(value) = value {
            return value;
        }
    }
    Value::String(text)
}
