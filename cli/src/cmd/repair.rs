//! `jig repair`: the JSON in a text (a model's reply), repaired.

use std::io::Read;
use std::process::ExitCode;

use clap::Args;
use jig_toolcall::RepairError;

use crate::error::{CliError, EXIT_ERROR, EXIT_OK, exit};

/// Arguments of `jig repair`.
#[derive(Debug, Args)]
#[command(after_help = "\
Reads text on stdin (a model's reply: chatter, code fences, single quotes, comments, trailing
commas, Python literals, a cut-off object...) and prints the first JSON value in it, repaired,
on stdout. Exit status: 0 with the JSON printed, 1 when the text holds no JSON (with a message
on stderr).

Example:
  echo \"Sure: {'path': 'src', // the folder\" | jig repair")]
pub(crate) struct RepairArgs {
    /// Print the JSON indented instead of on one line
    #[arg(long)]
    pretty: bool,
}

/// Repairs stdin and prints the JSON.
pub(crate) fn run(args: &RepairArgs) -> Result<ExitCode, CliError> {
    let text = read_stdin()?;
    match jig_toolcall::repair_value(&text) {
        Ok(value) if args.pretty => super::print_json(&value)?,
        Ok(value) => super::print_text(&value.to_string())?,
        Err(RepairError::NoJson) => {
            eprintln!("jig: no JSON in the input");
            return Ok(exit(EXIT_ERROR));
        }
        Err(error) => {
            eprintln!("jig: cannot repair the JSON in the input: {error}");
            return Ok(exit(EXIT_ERROR));
        }
    }
    Ok(exit(EXIT_OK))
}

/// All of stdin, as text (invalid UTF-8 replaced).
pub(crate) fn read_stdin() -> Result<String, CliError> {
    let mut bytes = Vec::new();
    super::Patient(std::io::stdin().lock())
        .read_to_end(&mut bytes)
        .map_err(|source| CliError::Read {
            what: "stdin".to_owned(),
            source,
        })?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
