//! One module per subcommand: its `clap` arguments and its `run` function.

pub(crate) mod agent;
pub(crate) mod audit;
pub(crate) mod call;
pub(crate) mod check;
pub(crate) mod config;
pub(crate) mod mcp;
pub(crate) mod parse;
pub(crate) mod repair;
pub(crate) mod tools;

use std::io::Write;

use crate::error::CliError;

/// Prints `value` as pretty JSON on stdout, with a final newline.
pub(crate) fn print_json(value: &serde_json::Value) -> Result<(), CliError> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|error| CliError::Internal(format!("cannot serialize the result: {error}")))?;
    print_text(&text)
}

/// Prints `text` on stdout, with a final newline when it has none.
pub(crate) fn print_text(text: &str) -> Result<(), CliError> {
    let mut stdout = std::io::stdout().lock();
    let newline = if text.ends_with('\n') { "" } else { "\n" };
    write!(stdout, "{text}{newline}")
        .and_then(|()| stdout.flush())
        .map_err(|error| CliError::Internal(format!("cannot write the result: {error}")))
}
