//! Tool schemas in the shapes model APIs and MCP expect: one renderer per
//! format, shared by every crate that lists tools.

use serde_json::{Value, json};

use crate::Tool;

/// The shape of an exported tool list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SchemaFormat {
    /// OpenAI function calling: `{"type": "function", "function": {name,
    /// description, parameters}}`.
    OpenAi,
    /// Anthropic tools: `{name, description, input_schema}`.
    Anthropic,
    /// MCP `tools/list` entries: `{name, description, inputSchema}`.
    Mcp,
}

impl SchemaFormat {
    /// Parses `openai`, `anthropic` or `mcp`.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "openai" => Some(SchemaFormat::OpenAi),
            "anthropic" => Some(SchemaFormat::Anthropic),
            "mcp" => Some(SchemaFormat::Mcp),
            _ => None,
        }
    }
}

/// One tool's entry in `format`.
pub fn export(tool: &dyn Tool, format: SchemaFormat) -> Value {
    render(tool.name(), tool.description(), tool.input_schema(), format)
}

/// The one renderer: a tool's name, description and argument schema as an
/// entry in `format`.
pub(crate) fn render(name: &str, description: &str, schema: &Value, format: SchemaFormat) -> Value {
    match format {
        SchemaFormat::OpenAi => json!({
            "type": "function",
            "function": {
                "name": name,
                "description": description,
                "parameters": without_meta(schema),
            }
        }),
        SchemaFormat::Anthropic => json!({
            "name": name,
            "description": description,
            "input_schema": without_meta(schema),
        }),
        SchemaFormat::Mcp => json!({
            "name": name,
            "description": description,
            "inputSchema": schema,
        }),
    }
}

/// The schema without the `$schema` keyword, which some model APIs refuse.
fn without_meta(schema: &Value) -> Value {
    let mut schema = schema.clone();
    if let Value::Object(map) = &mut schema {
        map.remove("$schema");
    }
    schema
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{SchemaFormat, render};

    #[test]
    fn openai_shape_drops_the_meta_schema() {
        let schema = json!({"$schema": "x", "type": "object", "properties": {}});
        assert_eq!(
            render("ls", "List a folder", &schema, SchemaFormat::OpenAi),
            json!({"type": "function", "function": {
                "name": "ls",
                "description": "List a folder",
                "parameters": {"type": "object", "properties": {}}
            }})
        );
    }
}
