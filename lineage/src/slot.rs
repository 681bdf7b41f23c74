//! Slot specifications: what a person declares about each hole in a
//! template.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The type of a slot's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum SlotType {
    /// Any text (within the character rules).
    String,
    /// A number; `"5000"` is accepted as 5000.
    Number,
    /// A path that must stay inside the workspace root.
    Path,
    /// A phrase, passed as one argument: spaces, quotes and shell
    /// punctuation are allowed (no shell ever reads it); control
    /// characters, line and paragraph separators, invisible and bidi
    /// characters and a leading `-` are still refused.
    Text,
}

impl SlotType {
    /// `string`, `number`, `path` or `text`.
    pub fn as_str(self) -> &'static str {
        match self {
            SlotType::String => "string",
            SlotType::Number => "number",
            SlotType::Path => "path",
            SlotType::Text => "text",
        }
    }
}

/// What a person declares about one slot. This is the `arguments` entry of
/// a descriptor file, field for field.
///
/// A slot is either `required` or has a `default`, never both and never
/// neither: a missing value would otherwise leave a hole in the command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct SlotSpec {
    /// The value's type.
    #[serde(rename = "type")]
    pub kind: SlotType,
    /// What the value means, for the model.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Whether the model must give a value.
    #[serde(default, skip_serializing_if = "is_false")]
    pub required: bool,
    /// The value used when the model gives none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// The only values allowed, when set.
    #[serde(rename = "enum", default, skip_serializing_if = "Option::is_none")]
    pub choices: Option<Vec<Value>>,
    /// A regular expression (the `regex` crate's syntax) that the whole
    /// value must match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// Whether values may begin with `-` (refused by default, so that no
    /// value can become an option).
    #[serde(default, skip_serializing_if = "is_false")]
    pub allow_leading_dash: bool,
}

fn is_false(value: &bool) -> bool {
    !*value
}

impl SlotSpec {
    /// A slot of `kind` described by `description`: not required, no
    /// default, no enum, no pattern, no leading dash.
    pub fn new(kind: SlotType, description: impl Into<String>) -> Self {
        Self {
            kind,
            description: description.into(),
            required: false,
            default: None,
            choices: None,
            pattern: None,
            allow_leading_dash: false,
        }
    }

    /// A `string` slot.
    pub fn string(description: impl Into<String>) -> Self {
        Self::new(SlotType::String, description)
    }

    /// A `number` slot.
    pub fn number(description: impl Into<String>) -> Self {
        Self::new(SlotType::Number, description)
    }

    /// A `path` slot.
    pub fn path(description: impl Into<String>) -> Self {
        Self::new(SlotType::Path, description)
    }

    /// This slot, required.
    pub fn required(mut self) -> Self {
        self.required = true;
        self
    }

    /// This slot with a default value.
    pub fn with_default(mut self, value: impl Into<Value>) -> Self {
        self.default = Some(value.into());
        self
    }

    /// This slot limited to `choices`.
    pub fn with_enum<I, V>(mut self, choices: I) -> Self
    where
        I: IntoIterator<Item = V>,
        V: Into<Value>,
    {
        self.choices = Some(choices.into_iter().map(Into::into).collect());
        self
    }

    /// This slot whose whole value must match `pattern`.
    pub fn with_pattern(mut self, pattern: impl Into<String>) -> Self {
        self.pattern = Some(pattern.into());
        self
    }

    /// This slot accepting values that begin with `-`: the model can then
    /// pass options to the program through it. Not allowed on `path` slots.
    pub fn dangerous_allow_leading_dash(mut self) -> Self {
        self.allow_leading_dash = true;
        self
    }
}
