//! The command line: global options and the subcommands.

use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgAction, Args, Parser, Subcommand};
use jig_kernel::Expect;

use crate::cmd;

/// The binary's name, in help and version text.
pub(crate) const BINARY_NAME: &str = "jig";

/// Run commands for language-model agents through command templates whose
/// only holes are typed slots: no shell, a locked workspace, a timeout that
/// ends the whole process tree, a bounded output.
#[derive(Debug, Parser)]
#[command(
    name = BINARY_NAME,
    version,
    max_term_width = 100,
    after_help = "\
Exit status: 0 when the command did its job (for `call`: the tool ran, whatever its own exit
code), 2 when a call was refused by any layer, 1 on a configuration or internal error;
`parse` and `agent` add their own (see their --help).

Configuration: --config FILE, or $XDG_CONFIG_HOME/jig/config.toml (~/.config/jig/config.toml),
never a file inside the workspace; `jig config` prints the effective configuration and where
each value comes from. The command line wins over the environment, which wins over the file.

Environment: JIG_TOOL_ALLOWLIST, JIG_TOOL_DENYLIST (comma-separated tool names; the runtime
policy, added to --allow and --deny) and JIG_ENABLED_TOOLS (the tools the model can see).
JIG_LOG sets the log filter (as RUST_LOG does); logs go to stderr only.

Example:
  jig --root examples/workspace --tools examples/tools call search_text '{\"pattern\":\"TODO\"}'"
)]
pub(crate) struct Cli {
    /// The workspace options given before the subcommand.
    #[command(flatten)]
    pub(crate) load: LoadArgs,
    /// The call options given before the subcommand.
    #[command(flatten)]
    pub(crate) run: RunArgs,
    /// What to do.
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The subcommands; each has its own module under `cmd/`. Each one's
/// options are defined only when the command line names it ([`Deferred`]).
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Print the visible tools and their argument schemas, as JSON
    Tools(Deferred<cmd::tools::ToolsArgs>),
    /// Call one tool and print the result as the model reads it
    Call(Deferred<cmd::call::CallArgs>),
    /// Check descriptor files (*.tool.json) like a compiler checks code
    Check(Deferred<cmd::check::CheckArgs>),
    /// Show what every visible tool can run and how much the model can vary
    Audit(Deferred<cmd::audit::AuditArgs>),
    /// Serve the tools to an MCP client over stdio
    Mcp(Deferred<cmd::mcp::McpArgs>),
    /// Print the effective configuration and where each value comes from
    Config(Deferred<cmd::config::ConfigArgs>),
    /// Repair the JSON in a model's text (stdin) and print it
    Repair(Deferred<cmd::repair::RepairArgs>),
    /// Print the tool call in a model's reply (stdin), normalized
    Parse(Deferred<cmd::parse::ParseArgs>),
    /// Run a model on a task (OpenAI-compatible endpoint); its calls go through the tools
    Agent(Deferred<cmd::agent::AgentArgs>),
}

impl Command {
    /// The workspace and call options the subcommand takes after its name,
    /// when it takes them.
    pub(crate) fn options(&self) -> Option<(&LoadArgs, Option<&RunArgs>)> {
        match self {
            Command::Tools(a) => Some((&a.load, Some(&a.run))),
            Command::Call(a) => Some((&a.load, Some(&a.run))),
            Command::Check(a) => Some((&a.load, None)),
            Command::Audit(a) => Some((&a.load, Some(&a.run))),
            Command::Mcp(a) => Some((&a.load, Some(&a.run))),
            Command::Config(a) => Some((&a.load, Some(&a.run))),
            Command::Parse(a) => Some((&a.load, Some(&a.run))),
            Command::Agent(a) => Some((&a.load, Some(&a.run))),
            Command::Repair(_) => None,
        }
    }

    /// The subcommand's name on the command line.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Command::Tools(_) => "tools",
            Command::Call(_) => "call",
            Command::Check(_) => "check",
            Command::Audit(_) => "audit",
            Command::Mcp(_) => "mcp",
            Command::Config(_) => "config",
            Command::Repair(_) => "repair",
            Command::Parse(_) => "parse",
            Command::Agent(_) => "agent",
        }
    }

    /// How many contained calls the subcommand expects to make, when it
    /// always builds a kernel (and so probes what the system offers for
    /// containment).
    pub(crate) fn expected_calls(&self) -> Option<Expect> {
        expected_calls(self.name())
    }
}

/// How many contained calls the subcommand `name` expects to make, when
/// it always builds a kernel: `None` for the others (and for no
/// subcommand).
fn expected_calls(name: &str) -> Option<Expect> {
    match name {
        "tools" | "audit" => Some(Expect::NoCall),
        "call" => Some(Expect::OneCall),
        "mcp" | "agent" => Some(Expect::Calls),
        _ => None,
    }
}

/// What [`Command::expected_calls`] will say once clap has parsed the
/// command line, guessed from the raw arguments before clap builds its
/// command tree (which takes about as long as the probe that the guess
/// starts): the first argument that names a subcommand is taken for it,
/// and `--dangerous-no-containment` anywhere means no containment. A wrong
/// guess only makes a probe of no use.
pub(crate) fn guess_expected_calls(
    args: impl Iterator<Item = std::ffi::OsString>,
) -> Option<Expect> {
    let mut expect = None;
    let mut named = false;
    // the word after an option that takes a value is that value, never
    // the subcommand (`--tools tools mcp`, `--root call mcp`)
    let mut value_next = false;
    for arg in args {
        if arg == "--dangerous-no-containment" {
            return None;
        }
        if std::mem::take(&mut value_next) {
            continue;
        }
        if !named && let Some(name) = arg.to_str() {
            if VALUE_OPTIONS.contains(&name) {
                value_next = true;
                continue;
            }
            let subcommands = [
                "tools", "call", "check", "audit", "mcp", "config", "repair", "parse", "agent",
            ];
            if subcommands.contains(&name) {
                named = true;
                expect = expected_calls(name);
            }
        }
    }
    expect
}

/// The options given before a subcommand that take a value as the next
/// word (`--root DIR`), for [`guess_expected_calls`] (a test checks the
/// list against clap's).
pub(crate) const VALUE_OPTIONS: [&str; 10] = [
    "--config",
    "--root",
    "--tools",
    "--exec-allow",
    "--dangerous-exec-untabled",
    "--dangerous-allow-program",
    "--timeout",
    "--max-output",
    "--allow",
    "--deny",
];

/// Options that say where the workspace and the tools are and what loads:
/// given before the subcommand (as the README writes them) or after it, for
/// the subcommands that use them. After the subcommand wins.
#[derive(Debug, Default, Clone, Args)]
#[command(next_help_heading = "Workspace options")]
pub(crate) struct LoadArgs {
    /// Configuration file (TOML) [default: $XDG_CONFIG_HOME/jig/config.toml when it exists]
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,

    /// Workspace root: every command runs in it and every path slot stays inside it [default: .]
    #[arg(long, value_name = "DIR")]
    pub(crate) root: Option<PathBuf>,

    /// Folder of descriptor tools (*.tool.json) [default: <root>/.jig/tools when it exists]
    #[arg(long, value_name = "DIR")]
    pub(crate) tools: Option<PathBuf>,

    /// Grant the free-text exec tool, with its default allow list of binaries
    #[arg(long)]
    pub(crate) exec: bool,

    /// Grant the exec tool with this allow list of binaries instead
    #[arg(long, value_name = "BIN,...", value_delimiter = ',', num_args = 1)]
    pub(crate) exec_allow: Option<Vec<String>>,

    /// Also grant the exec tool these programs, which have no option table: nothing judges their options (any could write, read outside the workspace or reach the network)
    #[arg(long, value_name = "BIN,...", value_delimiter = ',', num_args = 1)]
    pub(crate) dangerous_exec_untabled: Option<Vec<String>>,

    /// Lift these deny-list entries (and their versioned families) for command and descriptor tools, never for the exec tool; programs that run the workspace's own code (make, cargo, npm, pytest...) need --require-containment
    #[arg(long, value_name = "NAME,...", value_delimiter = ',', num_args = 1)]
    pub(crate) dangerous_allow_program: Option<Vec<String>>,

    /// Refuse to start unless every containment mechanism (Landlock, seccomp, user, PID and mount namespaces) is available
    #[arg(long, conflicts_with = "dangerous_no_containment")]
    pub(crate) require_containment: bool,

    /// Run commands without operating-system containment (no Landlock, seccomp or namespaces): only the argument checks bound them
    #[arg(long)]
    pub(crate) dangerous_no_containment: bool,

    /// Log to stderr (-v info, -vv debug, -vvv trace)
    #[arg(short, long, action = ArgAction::Count)]
    pub(crate) verbose: u8,
}

/// Options that bound and filter calls, for the subcommands that make them.
#[derive(Debug, Default, Clone, Args)]
#[command(next_help_heading = "Call options")]
pub(crate) struct RunArgs {
    /// Timeout of one call, in seconds; the whole process tree is ended [default: 30]
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    pub(crate) timeout: Option<Duration>,

    /// Output kept from one call, in bytes (head and tail); the rest is counted [default: 2048]
    #[arg(long, value_name = "BYTES")]
    pub(crate) max_output: Option<usize>,

    /// Only these tools may run (runtime policy; comma-separated)
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub(crate) allow: Vec<String>,

    /// These tools may never run (runtime policy, checked first; comma-separated)
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub(crate) deny: Vec<String>,
}

impl LoadArgs {
    /// These options with `after` (given after the subcommand) on top.
    pub(crate) fn merged(&self, after: &LoadArgs) -> LoadArgs {
        LoadArgs {
            config: after.config.clone().or_else(|| self.config.clone()),
            root: after.root.clone().or_else(|| self.root.clone()),
            tools: after.tools.clone().or_else(|| self.tools.clone()),
            exec: after.exec || self.exec,
            exec_allow: after.exec_allow.clone().or_else(|| self.exec_allow.clone()),
            dangerous_allow_program: after
                .dangerous_allow_program
                .clone()
                .or_else(|| self.dangerous_allow_program.clone()),
            dangerous_exec_untabled: after
                .dangerous_exec_untabled
                .clone()
                .or_else(|| self.dangerous_exec_untabled.clone()),
            require_containment: after.require_containment || self.require_containment,
            dangerous_no_containment: after.dangerous_no_containment
                || self.dangerous_no_containment,
            verbose: self.verbose.saturating_add(after.verbose),
        }
    }
}

impl RunArgs {
    /// These options with `after` (given after the subcommand) on top; the
    /// policy lists of both apply.
    pub(crate) fn merged(&self, after: &RunArgs) -> RunArgs {
        RunArgs {
            timeout: after.timeout.or(self.timeout),
            max_output: after.max_output.or(self.max_output),
            allow: self.allow.iter().chain(&after.allow).cloned().collect(),
            deny: self.deny.iter().chain(&after.deny).cloned().collect(),
        }
    }
}

/// Parses a positive, finite number of seconds (`30`, `0.5`).
pub(crate) fn parse_seconds(text: &str) -> Result<Duration, String> {
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

/// Defines `command`'s options with `augment`, keeping the description
/// the subcommand was given (its variant's), which the options' own
/// (their struct's) would otherwise replace, coming later.
fn keep_about(
    command: clap::Command,
    augment: fn(clap::Command) -> clap::Command,
) -> clap::Command {
    let about = command.get_about().cloned();
    let long_about = command.get_long_about().cloned();
    let command = match about {
        Some(about) => augment(command).about(about),
        None => augment(command).about(None::<&str>),
    };
    match long_about {
        Some(long_about) => command.long_about(long_about),
        None => command.long_about(None::<&str>),
    }
}

/// A subcommand's options, defined only when the command line names that
/// subcommand (clap's `Command::defer`): a process runs one subcommand, and
/// defining every other one's options (each repeats the workspace and call
/// options) cost more than the parse itself. Help, errors and suggestions
/// are unchanged: clap defines a subcommand's options before it parses or
/// describes them.
#[derive(Debug)]
pub(crate) struct Deferred<A>(pub(crate) A);

impl<A> std::ops::Deref for Deferred<A> {
    type Target = A;

    fn deref(&self) -> &A {
        &self.0
    }
}

impl<A: clap::FromArgMatches> clap::FromArgMatches for Deferred<A> {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        A::from_arg_matches(matches).map(Deferred)
    }

    fn from_arg_matches_mut(matches: &mut clap::ArgMatches) -> Result<Self, clap::Error> {
        A::from_arg_matches_mut(matches).map(Deferred)
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(matches)
    }

    fn update_from_arg_matches_mut(
        &mut self,
        matches: &mut clap::ArgMatches,
    ) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches_mut(matches)
    }
}

impl<A: Args> Args for Deferred<A> {
    fn group_id() -> Option<clap::Id> {
        A::group_id()
    }

    fn augment_args(command: clap::Command) -> clap::Command {
        command.defer(|command| keep_about(command, A::augment_args))
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        command.defer(|command| keep_about(command, A::augment_args_for_update))
    }
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
    fn options_after_the_subcommand_win_and_lists_add_up() {
        let cli = Cli::try_parse_from([
            "jig", "--root", "a", "--deny", "x", "-v", "call", "--root", "b", "--deny", "y", "-v",
            "grep",
        ])
        .unwrap();
        let (load, run) = cli.command.options().unwrap();
        let load = cli.load.merged(load);
        let run = cli.run.merged(run.unwrap());
        assert_eq!(load.root, Some(PathBuf::from("b")));
        assert_eq!(load.verbose, 2);
        assert_eq!(run.deny, ["x", "y"]);
    }

    #[test]
    fn repair_takes_no_workspace_options_after_its_name() {
        assert!(Cli::try_parse_from(["jig", "repair", "--root", "a"]).is_err());
        assert!(Cli::try_parse_from(["jig", "--root", "a", "repair"]).is_ok());
        assert!(Cli::try_parse_from(["jig", "check", "--timeout", "3"]).is_err());
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
