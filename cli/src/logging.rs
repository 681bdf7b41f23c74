//! Logs: to stderr only, never to stdout (the MCP channel).

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

/// The variable that overrides the log filter (`JIG_LOG=debug`).
const LOG_VAR: &str = "JIG_LOG";

/// Sends logs to stderr: warnings by default, more with each `-v`, or the
/// filter in `JIG_LOG`.
pub(crate) fn init(verbose: u8) {
    let level = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_env(LOG_VAR).unwrap_or_else(|_| EnvFilter::new(level));
    // A second initialization (impossible in the binary) would only be
    // refused; logging is never worth failing the command for.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        // Colors only for a person at a terminal, not for a client's log file.
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .try_init();
}
