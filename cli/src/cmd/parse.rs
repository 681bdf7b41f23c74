//! `jig parse`: the tool call in a model's reply, normalized.

use std::process::ExitCode;

use clap::Args;
use jig_toolcall::CallOutcome;

use crate::error::{CliError, EXIT_ERROR, EXIT_OK, exit};

/// Exit status when the text holds no tool call.
const EXIT_NO_CALL: u8 = 3;

/// Arguments of `jig parse`.
#[derive(Debug, Args)]
#[command(after_help = "\
Reads a model's reply on stdin, finds the tool call in it (repairing the JSON) and prints it
normalized as {\"name\": ..., \"arguments\": {...}}. Accepted shapes include {name, arguments},
{tool, args}, {tool_name, parameters} and {function: {name, arguments}} with arguments as an
object or a JSON string.

Exit status: 0 with the call printed, 3 when the text holds no call (the model is talking or
done), 1 when it holds JSON that cannot be made into a call (the message on stderr says why;
a loop would ask the model again).

Example:
  echo \"I'll look. {'tool': 'grep', 'args': {'pattern': 'TODO'}}\" | jig parse")]
pub(crate) struct ParseArgs {
    /// Print the call indented instead of on one line
    #[arg(long)]
    pretty: bool,
}

/// Parses stdin and prints the call.
pub(crate) fn run(args: &ParseArgs) -> Result<ExitCode, CliError> {
    let text = super::repair::read_stdin()?;
    match jig_toolcall::extract_call(&text) {
        CallOutcome::Call(call) if args.pretty => super::print_json(&call.to_json())?,
        CallOutcome::Call(call) => super::print_text(&call.to_json().to_string())?,
        CallOutcome::NoCall => {
            eprintln!("jig: no tool call in the input (it holds no JSON object)");
            return Ok(exit(EXIT_NO_CALL));
        }
        CallOutcome::Unrepairable { reason } => {
            eprintln!("jig: the input holds no usable tool call: {reason}");
            return Ok(exit(EXIT_ERROR));
        }
    }
    Ok(exit(EXIT_OK))
}
