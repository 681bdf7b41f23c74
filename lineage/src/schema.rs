//! JSON Schema (draft 2020-12) of a command tool's arguments: the model's
//! whole view of the tool's power.

use serde_json::{Map, Number, Value, json};

use crate::SlotType;
use crate::value::{Slot, coerce};

/// What a path slot's description says, so the model knows where paths
/// start.
const PATH_NOTE: &str = "a path inside the workspace, relative to its root";
/// What a `text` slot's schema says of its value.
const TEXT_NOTE: &str = "a phrase, passed as one argument";

/// `{"type": "object", "properties": ..., "required": [...],
/// "additionalProperties": false}`, properties in declaration order.
pub(crate) fn input_schema(slots: &[Slot]) -> Value {
    let properties: Map<String, Value> = slots
        .iter()
        .map(|slot| (slot.name.to_string(), slot_schema(slot)))
        .collect();
    let required: Vec<Value> = slots
        .iter()
        .filter(|slot| slot.spec.required)
        .map(|slot| Value::String(slot.name.to_string()))
        .collect();
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

fn slot_schema(slot: &Slot) -> Value {
    let spec = &slot.spec;
    let mut schema = Map::new();
    let kind = match spec.kind {
        SlotType::Number => "number",
        _ => "string",
    };
    schema.insert("type".to_owned(), json!(kind));
    let description = match (spec.kind, spec.description.as_str()) {
        (SlotType::Path, "") => capitalized(PATH_NOTE),
        (SlotType::Path, text) => format!("{text} ({PATH_NOTE})"),
        (SlotType::Text, "") => capitalized(TEXT_NOTE),
        (SlotType::Text, text) => format!("{text} ({TEXT_NOTE})"),
        (_, text) => text.to_owned(),
    };
    if !description.is_empty() {
        schema.insert("description".to_owned(), json!(description));
    }
    if let Some(choices) = &slot.choices {
        let choices: Vec<Value> = choices.iter().map(|c| typed(spec.kind, c)).collect();
        schema.insert("enum".to_owned(), Value::Array(choices));
    }
    if let Some(pattern) = &spec.pattern {
        schema.insert("pattern".to_owned(), json!(anchored(pattern)));
    }
    if let Some(default) = spec.default.as_ref().and_then(|d| coerce(spec.kind, d)) {
        schema.insert("default".to_owned(), typed(spec.kind, &default));
    }
    Value::Object(schema)
}

/// The argv text of a value as the JSON value of the slot's type.
fn typed(kind: SlotType, text: &str) -> Value {
    match kind {
        SlotType::Number => text
            .parse::<Number>()
            .map_or_else(|_| json!(text), Value::Number),
        _ => json!(text),
    }
}

/// JSON Schema patterns match anywhere; slot patterns match the whole
/// value, so the schema shows them anchored.
fn anchored(pattern: &str) -> String {
    if pattern.starts_with('^') && pattern.ends_with('$') {
        pattern.to_owned()
    } else {
        format!("^(?:{pattern})$")
    }
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}
