//! What a tool-call loop or a server dispatches through: the visible tools
//! and one way to call them. Neither ever reaches a tool directly.

use serde_json::Value;

use crate::export::render;
use crate::{SchemaFormat, Tool, ToolResult};

/// The tools a model may call and the one way to call them.
///
/// `jig_presets::Registry` implements it, so every call made through it
/// goes through the registry's policy chain, the tool's own validation and
/// the kernel. An integrator may wrap a registry (to log, to count, to ask
/// a person) by implementing this trait around it.
pub trait Dispatcher: Send + Sync {
    /// The visible tools: name, description, JSON Schema of the arguments.
    fn tools(&self) -> Vec<ToolInfo>;

    /// Dispatches one call through every layer. It never panics: a call
    /// that cannot run is a [`ToolResult::Refused`] whose text tells the
    /// model what to do instead.
    fn dispatch(&self, name: &str, arguments: &Value) -> ToolResult;

    /// Whether this call only reads, so that it may run at the same time as
    /// other read-only calls of the same reply. The default answers `false`
    /// for every call: a dispatcher that cannot tell runs calls one at a
    /// time. An answer of `true` must never be given to a call that may
    /// write.
    fn is_concurrency_safe(&self, name: &str, arguments: &Value) -> bool {
        let _ = (name, arguments);
        false
    }
}

/// What the model is told about one tool.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolInfo {
    /// The name the model calls it by.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// The JSON Schema of its arguments (an object schema).
    pub input_schema: Value,
}

impl ToolInfo {
    /// A tool's name, description and argument schema.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
    ) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            input_schema,
        }
    }

    /// What the model is told about `tool`.
    pub fn from_tool(tool: &dyn Tool) -> Self {
        Self::new(tool.name(), tool.description(), tool.input_schema().clone())
    }

    /// The tool as an entry in `format` (the same entry
    /// [`export`](crate::export) gives for the tool itself).
    pub fn export(&self, format: SchemaFormat) -> Value {
        render(&self.name, &self.description, &self.input_schema, format)
    }
}
