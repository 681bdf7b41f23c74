//! The descriptor format's JSON Schema, and what its complaints mean.

use std::sync::LazyLock;

use jig_lineage::escape_pointer_segment;
use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{ValidationError, Validator};
use serde_json::Value;

/// The JSON Schema (draft 2020-12) of a `*.tool.json` file, as published
/// in `descriptor/descriptor.schema.json`.
pub const DESCRIPTOR_SCHEMA: &str = include_str!("../descriptor.schema.json");

static SCHEMA: LazyLock<Value> =
    LazyLock::new(|| serde_json::from_str(DESCRIPTOR_SCHEMA).unwrap_or(Value::Null));

/// Formats are checked: `"format": "regex"` makes sure a slot's pattern is
/// also a valid ECMA-262 expression, as the model's schema needs.
static VALIDATOR: LazyLock<Result<Validator, String>> = LazyLock::new(|| {
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(&SCHEMA)
        .map_err(|error| error.to_string())
});

/// [`DESCRIPTOR_SCHEMA`], parsed.
pub fn descriptor_schema() -> &'static Value {
    &SCHEMA
}

/// The compiled validator (compiled once).
pub(crate) fn validator() -> Result<&'static Validator, &'static str> {
    VALIDATOR.as_ref().map_err(String::as_str)
}

const TOP_KEYS: &str =
    "a descriptor has \"name\", \"description\", \"command\", \"arguments\" and \"read_only\"";
const SLOT_KEYS: &str = "a slot has \"type\", \"description\", \"required\", \"default\", \"enum\", \"pattern\" and \"allow_leading_dash\"";

/// One schema complaint, made readable: the pointer of what to point at
/// (a key when the key is the problem) and a lowercase message.
pub(crate) struct Complaint {
    pub(crate) pointer: String,
    pub(crate) at_key: bool,
    pub(crate) message: String,
}

pub(crate) fn complaint(error: &ValidationError<'_>) -> Complaint {
    let pointer = error.instance_path().as_str().to_owned();
    let last = pointer.rsplit('/').next().unwrap_or_default().to_owned();
    let in_slot = pointer.starts_with("/arguments/");
    let instance = short(error.instance());
    let at = |pointer: String, at_key: bool, message: String| Complaint {
        pointer,
        at_key,
        message,
    };
    match error.kind() {
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let key = unexpected.first().cloned().unwrap_or_default();
            let known = if in_slot { SLOT_KEYS } else { TOP_KEYS };
            at(
                format!("{pointer}/{}", escape_pointer_segment(&key)),
                true,
                format!("unknown key {key:?}; {known}"),
            )
        }
        ValidationErrorKind::Required { property } => {
            let hint = if in_slot {
                "every slot has a \"type\" (string, number or path)"
            } else {
                "every descriptor has \"name\", \"description\" and \"command\""
            };
            at(pointer, false, format!("missing key {property}; {hint}"))
        }
        ValidationErrorKind::Type { .. } if pointer.is_empty() => at(
            pointer,
            false,
            format!(
                "a descriptor is a JSON object with \"name\", \"description\" and \"command\"; got {instance}"
            ),
        ),
        ValidationErrorKind::Type { kind } => {
            let kind = match kind {
                TypeKind::Single(kind) => kind.to_string(),
                TypeKind::Multiple(kinds) => kinds
                    .iter()
                    .map(|k| k.to_string())
                    .collect::<Vec<_>>()
                    .join(" or "),
            };
            at(
                pointer,
                false,
                format!("{last:?} must be of type {kind}; got {instance}"),
            )
        }
        ValidationErrorKind::Enum { .. } if last == "type" => at(
            pointer,
            false,
            format!("slot type {instance} is not one of \"string\", \"number\" or \"path\""),
        ),
        ValidationErrorKind::Pattern { .. } if pointer == "/name" => at(
            pointer,
            false,
            format!(
                "tool name {instance} is not valid; use 1 to 64 ASCII letters, digits, `_` or `-`"
            ),
        ),
        ValidationErrorKind::PropertyNames { error } => {
            let name = error.instance().as_str().unwrap_or_default().to_owned();
            at(
                format!("{pointer}/{}", escape_pointer_segment(&name)),
                true,
                format!(
                    "slot name {name:?} is not valid; use letters, digits and `_`, starting with a letter or `_` (at most 64)"
                ),
            )
        }
        ValidationErrorKind::Format { format } if format == "regex" => at(
            pointer,
            false,
            format!(
                "the pattern {instance} is not a valid ECMA-262 regular expression, which the model's schema needs; write it in the syntax common to Rust and ECMA-262 (no inline flags such as (?i))"
            ),
        ),
        ValidationErrorKind::MinLength { .. } => {
            at(pointer, false, format!("{last:?} is empty; fill it in"))
        }
        ValidationErrorKind::MinItems { .. } if last == "enum" => at(
            pointer,
            false,
            "the enum is empty; list at least one value or remove it".to_owned(),
        ),
        _ => at(pointer, false, lowercase_first(&error.to_string())),
    }
}

/// A JSON value as a short quotable text.
fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 60 {
        format!("{}...", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}

fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_lowercase().chain(chars).collect())
        .unwrap_or_default()
}
