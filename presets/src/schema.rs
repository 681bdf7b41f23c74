//! Tool schemas in the shapes model APIs and MCP expect.

use jig_lineage::Tool;
use serde_json::{Value, json};

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
    let schema = tool.input_schema();
    match format {
        SchemaFormat::OpenAi => json!({
            "type": "function",
            "function": {
                "name": tool.name(),
                "description": tool.description(),
                "parameters": without_meta(schema),
            }
        }),
        SchemaFormat::Anthropic => json!({
            "name": tool.name(),
            "description": tool.description(),
            "input_schema": without_meta(schema),
        }),
        SchemaFormat::Mcp => json!({
            "name": tool.name(),
            "description": tool.description(),
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
