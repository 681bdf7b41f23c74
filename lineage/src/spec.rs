//! The command specification: the one value from which every command tool
//! is built, whether written in Rust or loaded from a descriptor file.

use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::{SlotSpec, TemplateError, escape_pointer_segment};

/// A command tool as a person declares it: name, description, template and
/// slots. Its JSON form is the descriptor format (`command` holds the
/// template, `arguments` the slots, in order).
///
/// This is unchecked input: [`CommandTool::build`](crate::CommandTool::build)
/// parses and checks it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct CommandSpec {
    /// The name the model calls the tool by.
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// The template, such as `grep -rn {pattern} {path}`.
    #[serde(rename = "command")]
    pub template: String,
    /// The slots, in the order the schema lists them.
    #[serde(
        rename = "arguments",
        default,
        serialize_with = "serialize_slots",
        deserialize_with = "deserialize_slots"
    )]
    pub slots: Vec<(String, SlotSpec)>,
    /// Whether the command only reads (so a harness may run it concurrently
    /// with other read-only calls).
    #[serde(default, skip_serializing_if = "is_false")]
    pub read_only: bool,
}

fn is_false(value: &bool) -> bool {
    !*value
}

impl CommandSpec {
    /// A specification with no slots, not read-only.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        template: impl Into<String>,
    ) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            template: template.into(),
            slots: Vec::new(),
            read_only: false,
        }
    }

    /// This specification with one more slot.
    pub fn slot(mut self, name: impl Into<String>, slot: SlotSpec) -> Self {
        self.slots.push((name.into(), slot));
        self
    }

    /// This specification marked read-only (or not).
    pub fn with_read_only(mut self, read_only: bool) -> Self {
        self.read_only = read_only;
        self
    }

    /// The declared slot called `name`.
    pub fn slot_spec(&self, name: &str) -> Option<&SlotSpec> {
        self.slots
            .iter()
            .find_map(|(n, slot)| (n == name).then_some(slot))
    }
}

fn serialize_slots<S: Serializer>(
    slots: &[(String, SlotSpec)],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(slots.len()))?;
    for (name, slot) in slots {
        map.serialize_entry(name, slot)?;
    }
    map.end()
}

fn deserialize_slots<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<(String, SlotSpec)>, D::Error> {
    struct Slots;
    impl<'de> Visitor<'de> for Slots {
        type Value = Vec<(String, SlotSpec)>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object mapping slot names to slot declarations")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut slots: Vec<(String, SlotSpec)> = Vec::new();
            while let Some((name, slot)) = map.next_entry::<String, SlotSpec>()? {
                if slots.iter().any(|(n, _)| *n == name) {
                    return Err(serde::de::Error::custom(format!(
                        "argument {name:?} is declared twice"
                    )));
                }
                slots.push((name, slot));
            }
            Ok(slots)
        }
    }
    deserializer.deserialize_map(Slots)
}

/// Why a specification cannot become a tool (error 613 when it comes from a
/// descriptor file). [`pointer`](Self::pointer) says where, as a JSON
/// pointer into the descriptor form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SpecError {
    /// The tool's name is not 1 to 64 letters, digits, `_` or `-`.
    #[error("tool name {name:?} is not valid; use 1 to 64 ASCII letters, digits, `_` or `-`")]
    Name {
        /// The name.
        name: String,
    },
    /// The tool has no description.
    #[error("the tool has no description; say what it does, for the model")]
    Description,
    /// The template is not valid.
    #[error(transparent)]
    Template(#[from] TemplateError),
    /// The template's program is on the deny list.
    #[error(
        "the program {program:?} is on the deny list (destructive, privileged, a shell, or a launcher of other commands); no tool may run it"
    )]
    DeniedProgram {
        /// The program as written.
        program: String,
    },
    /// A slot is used in the template and not declared.
    #[error(
        "slot {slot:?} is used in the command but not declared; declare it under \"arguments\""
    )]
    Undeclared {
        /// The slot.
        slot: String,
    },
    /// A slot is declared and not used in the template.
    #[error(
        "slot {slot:?} is declared but not used in the command; write {{{slot}}} in the command or remove the declaration"
    )]
    Unused {
        /// The slot.
        slot: String,
    },
    /// A declared slot's name is not valid.
    #[error(
        "slot name {slot:?} is not valid; use letters, digits and `_`, starting with a letter or `_` (at most 64)"
    )]
    SlotName {
        /// The name.
        slot: String,
    },
    /// A slot is declared twice.
    #[error("slot {slot:?} is declared twice")]
    Duplicate {
        /// The slot.
        slot: String,
    },
    /// A slot is neither required nor has a default.
    #[error(
        "slot {slot:?} is neither required nor has a default, so a call could leave a hole in the command; add \"required\": true or a \"default\""
    )]
    NoDefault {
        /// The slot.
        slot: String,
    },
    /// A slot is both required and has a default.
    #[error(
        "slot {slot:?} is required and also has a default; a required slot never uses it: remove one"
    )]
    RequiredWithDefault {
        /// The slot.
        slot: String,
    },
    /// A slot's pattern is not a valid regular expression.
    #[error("slot {slot:?}: the pattern {pattern:?} is not a valid regular expression: {reason}")]
    Pattern {
        /// The slot.
        slot: String,
        /// The pattern.
        pattern: String,
        /// The regular expression engine's complaint, on one line.
        reason: String,
    },
    /// A slot's default breaks the slot's own rules.
    #[error("slot {slot:?}: the default is not a valid value: {reason}")]
    Default {
        /// The slot.
        slot: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A slot's enum is empty.
    #[error("slot {slot:?}: the enum is empty; list at least one value or remove it")]
    EmptyEnum {
        /// The slot.
        slot: String,
    },
    /// An entry of a slot's enum breaks the slot's own rules.
    #[error("slot {slot:?}: enum entry {index} is not a valid value: {reason}")]
    Enum {
        /// The slot.
        slot: String,
        /// The entry's index.
        index: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A `path` slot allows a leading dash.
    #[error(
        "slot {slot:?}: a path slot cannot allow a leading dash (a path such as \"-rf\" would be an option); the model can write \"./-name\" for such a file"
    )]
    DashOnPath {
        /// The slot.
        slot: String,
    },
    /// The tool was built for a form that is not a command tool.
    #[error("a command specification builds command or descriptor tools, not {form} tools")]
    Form {
        /// The form asked for.
        form: &'static str,
    },
}

impl SpecError {
    /// Where the problem is, as a JSON pointer into the descriptor form
    /// (`/command`, `/arguments/path/default`...).
    pub fn pointer(&self) -> String {
        let at =
            |name: &str, rest: &str| format!("/arguments/{}{rest}", escape_pointer_segment(name));
        match self {
            SpecError::Name { .. } => "/name".to_owned(),
            SpecError::Description => "/description".to_owned(),
            SpecError::Template(_)
            | SpecError::DeniedProgram { .. }
            | SpecError::Undeclared { .. } => "/command".to_owned(),
            SpecError::Unused { slot }
            | SpecError::SlotName { slot }
            | SpecError::Duplicate { slot }
            | SpecError::NoDefault { slot } => at(slot, ""),
            SpecError::RequiredWithDefault { slot } | SpecError::Default { slot, .. } => {
                at(slot, "/default")
            }
            SpecError::Pattern { slot, .. } => at(slot, "/pattern"),
            SpecError::EmptyEnum { slot } => at(slot, "/enum"),
            SpecError::Enum { slot, index, .. } => at(slot, &format!("/enum/{index}")),
            SpecError::DashOnPath { slot } => at(slot, "/allow_leading_dash"),
            SpecError::Form { .. } => String::new(),
        }
    }

    /// For errors about the template, the text inside the `command` string
    /// that is at fault (the token, or the slot as written) and its byte
    /// offset in the template, when known.
    pub fn template_span(&self, template: &str) -> Option<(usize, usize)> {
        match self {
            SpecError::Template(error) => match error {
                TemplateError::Empty { .. } => None,
                _ => Some((error.offset(), error.token().len())),
            },
            SpecError::DeniedProgram { program } => template
                .find(program.as_str())
                .map(|at| (at, program.len())),
            SpecError::Undeclared { slot } => {
                let written = format!("{{{slot}}}");
                template.find(&written).map(|at| (at, written.len()))
            }
            _ => None,
        }
    }
}
