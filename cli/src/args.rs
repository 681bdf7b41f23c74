//! The command line: global options and the subcommands.

use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgAction, Args, Parser, Subcommand};

use crate::cmd;

/// Run commands for language-model agents through command templates whose
/// only holes are typed slots: no shell, a locked workspace, a timeout that
/// ends the whole process tree, a bounded output.
#[derive(Debug, Parser)]
#[command(
    name = "jig",
    version,
    max_term_width = 100,
    after_help = "\
Exit status: 0 when the command did its job (for `call`: the tool ran, whatever its own exit
code), 2 when a call was refused by any layer, 1 on a configuration or internal error;
`parse` and `agent` add their own (see their --help).

Environment: JIG_TOOL_ALLOWLIST, JIG_TOOL_DENYLIST (comma-separated tool names; the runtime
policy, added to --allow and --deny) and JIG_ENABLED_TOOLS (the tools the model can see).
JIG_LOG sets the log filter (as RUST_LOG does); logs go to stderr only.

Example:
  jig --root examples/workspace --tools examples/tools call search_text '{\"pattern\":\"TODO\"}'"
)]
pub(crate) struct Cli {
    /// Options shared by every subcommand.
    #[command(flatten)]
    pub(crate) global: GlobalArgs,
    /// What to do.
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The subcommands; each has its own module under `cmd/`.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Print the visible tools and their argument schemas, as JSON
    Tools(cmd::tools::ToolsArgs),
    /// Call one tool and print the result as the model reads it
    Call(cmd::call::CallArgs),
    /// Check descriptor files (*.tool.json) like a compiler checks code
    Check(cmd::check::CheckArgs),
    /// Show what every visible tool can run and how much the model can vary
    Audit(cmd::audit::AuditArgs),
    /// Serve the tools to an MCP client over stdio
    Mcp(cmd::mcp::McpArgs),
    /// Repair the JSON in a model's text (stdin) and print it
    Repair(cmd::repair::RepairArgs),
    /// Print the tool call in a model's reply (stdin), normalized
    Parse(cmd::parse::ParseArgs),
    /// Run a model on a task (OpenAI-compatible endpoint); its calls go through the tools
    Agent(cmd::agent::AgentArgs),
}

/// Options that configure the workspace, the tools and the policy; they may
/// be given before or after the subcommand.
#[derive(Debug, Args)]
#[command(next_help_heading = "Global options")]
pub(crate) struct GlobalArgs {
    /// Workspace root: every command runs in it and every path slot stays inside it
    #[arg(long, value_name = "DIR", default_value = ".", global = true)]
    pub(crate) root: PathBuf,

    /// Folder of descriptor tools (*.tool.json) [default: <root>/.jig/tools when it exists]
    #[arg(long, value_name = "DIR", global = true)]
    pub(crate) tools: Option<PathBuf>,

    /// Timeout of one call, in seconds; the whole process tree is ended [default: 30]
    #[arg(long, value_name = "SECS", value_parser = parse_seconds, global = true)]
    pub(crate) timeout: Option<Duration>,

    /// Output kept from one call, in bytes (head and tail); the rest is counted [default: 2048]
    #[arg(long, value_name = "BYTES", global = true)]
    pub(crate) max_output: Option<usize>,

    /// Grant the free-text exec tool, with its default allow list of binaries
    #[arg(long, global = true)]
    pub(crate) exec: bool,

    /// Grant the exec tool with this allow list of binaries instead
    #[arg(
        long,
        value_name = "BIN,...",
        value_delimiter = ',',
        num_args = 1,
        global = true
    )]
    pub(crate) exec_allow: Option<Vec<String>>,

    /// Only these tools may run (runtime policy; comma-separated)
    #[arg(long, value_name = "NAMES", value_delimiter = ',', global = true)]
    pub(crate) allow: Vec<String>,

    /// These tools may never run (runtime policy, checked first; comma-separated)
    #[arg(long, value_name = "NAMES", value_delimiter = ',', global = true)]
    pub(crate) deny: Vec<String>,

    /// Refuse to start unless every containment mechanism (Landlock, seccomp, user, PID and mount namespaces) is available
    #[arg(long, global = true, conflicts_with = "dangerous_no_containment")]
    pub(crate) require_containment: bool,

    /// Run commands without operating-system containment (no Landlock, seccomp or namespaces): only the argument checks bound them
    #[arg(long, global = true)]
    pub(crate) dangerous_no_containment: bool,

    /// Log to stderr (-v info, -vv debug, -vvv trace)
    #[arg(short, long, action = ArgAction::Count, global = true)]
    pub(crate) verbose: u8,
}

/// Parses a positive, finite number of seconds (`30`, `0.5`).
fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !seconds.is_finite() || seconds <= 0.0 || seconds > 86_400.0 {
        return Err(format!(
            "the timeout must be more than 0 and at most 86400 seconds, not {text}"
        ));
    }
    Ok(Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn seconds_parse_and_bad_ones_are_refused() {
        assert_eq!(parse_seconds("30"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_seconds("0.5"), Ok(Duration::from_millis(500)));
        for bad in ["0", "-1", "nan", "inf", "ten", "100000"] {
            assert!(parse_seconds(bad).is_err(), "{bad} was accepted");
        }
    }
}
