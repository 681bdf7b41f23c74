//! `jig parse`: the tool call in a model's reply, normalized.

use std::process::ExitCode;

use clap::Args;
use jig_lineage::Dispatcher;
use jig_toolcall::{Reading, ToolSpec};
use serde_json::Value;

use crate::error::{CliError, EXIT_ERROR, EXIT_OK, exit};
use crate::settings::Settings;

/// Exit status when the text holds no tool call.
const EXIT_NO_CALL: u8 = 3;

/// Arguments of `jig parse`.
#[derive(Debug, Args)]
#[command(after_help = "\
Reads a model's reply on stdin, finds its tool calls and prints the first normalized as
{\"name\": ..., \"arguments\": {...}} (stderr says when there are more), or with --all a JSON
array of every call, in order.
Five shapes are read, recognised from the text: JSON in markers or chatter ({name, arguments},
{tool, args}, {function: {...}}...), the name outside JSON arguments (DeepSeek, Kimi K2,
Mistral, gpt-oss), XML parameters (Qwen3-Coder, GLM, MiniMax...), pythonic calls
([get_weather(city=\"SF\")]) and Gemma's call:name{...}. Reasoning blocks are skipped.

With --registry the calls are read against the tools the workspace options describe (--root,
--tools, --exec...): text values of XML and pythonic calls are typed by the tool's schema
(\"42\" becomes 42 for a number), and a call to a tool that is not there is an error that lists
the tools.

Exit status: 0 with the call printed, 3 when the text holds no call (the model is talking or
done), 1 when it holds a call that cannot be read (the message on stderr says why;
a loop would ask the model again).

Example:
  echo \"I'll look. {'tool': 'grep', 'args': {'pattern': 'TODO'}}\" | jig parse")]
pub(crate) struct ParseArgs {
    /// Print the call indented instead of on one line
    #[arg(long)]
    pretty: bool,
    /// Print every call of the reply, in order, as a JSON array
    #[arg(long)]
    all: bool,
    /// Read against the registry the workspace options describe: values typed by each tool's
    /// schema, a call to a tool that is not there reported with the list of tools
    #[arg(long)]
    registry: bool,
    /// Workspace options (also accepted before the subcommand).
    #[command(flatten)]
    pub(crate) load: crate::args::LoadArgs,

    /// Call options (also accepted before the subcommand).
    #[command(flatten)]
    pub(crate) run: crate::args::RunArgs,
}

/// Parses stdin and prints the call.
pub(crate) fn run(settings: &Settings, args: &ParseArgs) -> Result<ExitCode, CliError> {
    let text = super::repair::read_stdin()?;
    let tools = if args.registry {
        let built = crate::preset::build(settings)?;
        Dispatcher::tools(&built.registry)
            .into_iter()
            .map(|tool| ToolSpec::new(tool.name, tool.input_schema))
            .collect()
    } else {
        Vec::new()
    };
    let calls = match jig_toolcall::read_calls_with(&text, &tools) {
        Reading::Calls(calls) => calls,
        Reading::Unreadable { reason } => {
            eprintln!("jig: the input holds no usable tool call: {reason}");
            return Ok(exit(EXIT_ERROR));
        }
        _ => {
            eprintln!("jig: no tool call in the input");
            return Ok(exit(EXIT_NO_CALL));
        }
    };
    let shown = if args.all {
        Value::Array(calls.iter().map(|call| call.to_json()).collect())
    } else {
        if calls.len() > 1 {
            // The rest are not dropped unsaid.
            eprintln!(
                "jig: the reply holds {} calls; this is the first (--all prints every one)",
                calls.len()
            );
        }
        match calls.first() {
            Some(call) => call.to_json(),
            None => return Ok(exit(EXIT_NO_CALL)),
        }
    };
    if args.pretty {
        super::print_json(&shown)?;
    } else {
        super::print_text(&shown.to_string())?;
    }
    Ok(exit(EXIT_OK))
}
