//! What the loop dispatches through: the visible tools and one way to call
//! them. The loop never reaches a tool directly.

use jig_lineage::ToolResult;
use serde_json::Value;

/// The tools a model may call and the one way to call them.
///
/// `jig_presets::Registry` implements it, so every call the loop makes goes
/// through the registry's policy chain, the tool's own validation and the
/// kernel. An integrator may wrap a registry (to log, to count, to ask a
/// person) by implementing this trait around it.
pub trait Dispatcher: Send + Sync {
    /// The visible tools: name, description, JSON Schema of the arguments.
    fn tools(&self) -> Vec<ToolInfo>;

    /// Dispatches one call through every layer. It never panics: a call
    /// that cannot run is a [`ToolResult::Refused`] whose text tells the
    /// model what to do instead.
    fn dispatch(&self, name: &str, arguments: &Value) -> ToolResult;
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

    /// The tool in the shape of the chat completions `tools` field:
    /// `{"type": "function", "function": {name, description, parameters}}`,
    /// without the `$schema` keyword, which some endpoints refuse.
    pub fn to_openai(&self) -> Value {
        let mut parameters = self.input_schema.clone();
        if let Value::Object(map) = &mut parameters {
            map.remove("$schema");
        }
        serde_json::json!({
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": parameters,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::ToolInfo;

    #[test]
    fn openai_shape_drops_the_meta_schema() {
        let tool = ToolInfo::new(
            "ls",
            "List a folder",
            json!({"$schema": "x", "type": "object", "properties": {}}),
        );
        assert_eq!(
            tool.to_openai(),
            json!({"type": "function", "function": {
                "name": "ls",
                "description": "List a folder",
                "parameters": {"type": "object", "properties": {}}
            }})
        );
    }
}
