//! `jig tools`: the visible tools and their schemas, as JSON.

use std::process::ExitCode;

use clap::{Args, ValueEnum};
use jig_presets::SchemaFormat;

use crate::error::{CliError, EXIT_OK, exit};
use crate::settings::Settings;

/// Arguments of `jig tools`.
#[derive(Debug, Args)]
pub(crate) struct ToolsArgs {
    /// The shape of the list: what a model API or an MCP client expects
    #[arg(long, value_enum, default_value_t = Format::Openai)]
    format: Format,
    /// Workspace options (also accepted before the subcommand).
    #[command(flatten)]
    pub(crate) load: crate::args::LoadArgs,

    /// Call options (also accepted before the subcommand).
    #[command(flatten)]
    pub(crate) run: crate::args::RunArgs,
}

/// The shapes `jig tools` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// OpenAI function calling: {"type": "function", "function": {name, description, parameters}}
    Openai,
    /// Anthropic tools: {name, description, input_schema}
    Anthropic,
    /// MCP tools/list entries: {name, description, inputSchema}
    Mcp,
}

impl Format {
    fn schema_format(self) -> SchemaFormat {
        match self {
            Format::Openai => SchemaFormat::OpenAi,
            Format::Anthropic => SchemaFormat::Anthropic,
            Format::Mcp => SchemaFormat::Mcp,
        }
    }
}

/// Prints the visible tools' schemas.
pub(crate) fn run(settings: &Settings, args: &ToolsArgs) -> Result<ExitCode, CliError> {
    let built = crate::preset::build(settings)?;
    super::print_json(&built.registry.schemas(args.format.schema_format()))?;
    Ok(exit(EXIT_OK))
}
