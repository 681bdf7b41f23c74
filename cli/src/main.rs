//! `jig`: the command line and MCP server of the jig tool lineage.
//!
//! The binary is a front end to a [`jig_presets::Registry`]: it adds no
//! validation of its own. Every call it makes, from the command line or from
//! an MCP client, goes through the registry's policy chain, the tool's slot
//! validation and the kernel, exactly as it would in an integrator's program.
//!
//! # Subcommands
//!
//! | command | module | what it does |
//! |---|---|---|
//! | `jig tools` | `cmd::tools` | the visible tools and their schemas, as JSON |
//! | `jig call` | `cmd::call` | one call, printed as the model reads it (or `--json`) |
//! | `jig check` | `cmd::check` | descriptor files checked like a compiler checks code |
//! | `jig audit` | `cmd::audit` | the security reviewer's view of every visible tool |
//! | `jig mcp` | `cmd::mcp` | the tools served over MCP on stdio |
//! | `jig config` | `cmd::config` | the effective configuration and where each value comes from |
//! | `jig repair` | `cmd::repair` | the JSON in a model's text, repaired |
//! | `jig parse` | `cmd::parse` | the tool call in a model's reply, normalized |
//! | `jig agent` | `cmd::agent` | the tool-call loop against a model endpoint |
//!
//! Each subcommand lives in its own module with its own `clap` arguments and a
//! `run` function; adding one is a new module and one line in [`Command`].
//! The workspace options (`--root`, `--tools`...) are accepted before the
//! subcommand, as the README writes them, and after it only by the
//! subcommands that use them, so each subcommand's help lists only what it
//! uses. They combine with the environment and the configuration file
//! (`config`) into one [`settings::Settings`].
//!
//! # Exit status
//!
//! 0 when the command did its job (for `jig call`: the tool ran, whatever
//! the command's own exit code), 2 when a call was refused by any layer, 1 on
//! a configuration or internal error (and, for `jig check`, when a file is
//! bad). `jig parse` exits 3 when the text holds no call; `jig agent` exits
//! 4 when the run stopped before the model finished.
//!
//! # Streams
//!
//! Results go to stdout; logs (`-v`) and warnings go to stderr only, so the
//! stdout of `jig mcp` is the JSON-RPC channel and nothing else.
#![forbid(unsafe_code)]
// The binary's job is to print: results on stdout, warnings and logs on stderr.
#![allow(clippy::print_stdout, clippy::print_stderr)]
// Doc comments of the argument structs are clap's help text, written for a
// terminal (`<root>` is a placeholder there, not an HTML tag).
#![allow(rustdoc::invalid_html_tags)]

mod args;
mod cmd;
mod config;
mod error;
mod logging;
mod preset;
mod settings;
mod signals;

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

use crate::args::{Cli, Command};
use crate::error::CliError;

fn main() -> ExitCode {
    // `jig --version` alone is answered before clap builds the whole command
    // tree, with clap's own words: a harness may ask it once per call.
    if let Some(text) = version_only(std::env::args_os().skip(1)) {
        println!("{text}");
        return ExitCode::SUCCESS;
    }
    // The probe starts before clap parses the command line, from a guess
    // (`run` starts it, knowing, when the guess found nothing).
    if let Some(expect) = args::guess_expected_calls(std::env::args_os().skip(1)) {
        jig_kernel::probe_ahead(jig_kernel::DEFAULT_TMPDIR, expect);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return usage_error(&error),
    };
    let result = run(&cli);
    // Queued log lines get a short bound to reach stderr, never more: a
    // client that does not read stderr must not hold up the exit.
    logging::flush(std::time::Duration::from_millis(200));
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("jig: error: {error}");
            CliError::EXIT_CODE
        }
    }
}

/// Resolves the configuration (only for the subcommands that use it) and
/// runs the subcommand.
fn run(cli: &Cli) -> Result<ExitCode, CliError> {
    let Some((load, run)) = cli.command.options() else {
        // `jig repair` reads text and prints JSON: no logs, no configuration.
        return match &cli.command {
            Command::Repair(args) => cmd::repair::run(args),
            _ => Err(CliError::Internal(
                "a subcommand without workspace options".to_owned(),
            )),
        };
    };
    let load = cli.load.merged(load);
    let run = run.map_or_else(|| cli.run.clone(), |after| cli.run.merged(after));
    if let Some(expect) = cli.command.expected_calls()
        && !load.dangerous_no_containment
    {
        // What the system offers is probed on another thread while the
        // configuration and the tools load (a configuration file that
        // turns containment off only makes it wasted); nothing happens
        // when `main` started it already.
        jig_kernel::probe_ahead(jig_kernel::DEFAULT_TMPDIR, expect);
    }
    logging::init(load.verbose);
    let file = config::load(load.config.as_deref())?;
    let settings = settings::Settings::resolve(&load, &run, file, |key| std::env::var(key).ok())?;
    match &cli.command {
        Command::Tools(args) => cmd::tools::run(&settings, args),
        Command::Call(args) => cmd::call::run(&settings, args),
        Command::Check(args) => cmd::check::run(&settings, args),
        Command::Audit(args) => cmd::audit::run(&settings, args),
        Command::Mcp(args) => cmd::mcp::run(&settings, args),
        Command::Config(args) => cmd::config::run(&settings, args),
        Command::Parse(args) => cmd::parse::run(&settings, args),
        Command::Agent(args) => cmd::agent::run(&settings, args),
        Command::Repair(args) => cmd::repair::run(args),
    }
}

/// `jig VERSION` when the only argument asks for the version.
fn version_only(mut args: impl Iterator<Item = std::ffi::OsString>) -> Option<String> {
    let first = args.next()?;
    let asks = first == "--version" || first == "-V";
    (asks && args.next().is_none())
        .then(|| format!("{} {}", args::BINARY_NAME, env!("CARGO_PKG_VERSION")))
}

/// Prints clap's message. Help and version exit 0; a bad command line is a
/// configuration error and exits 1, not clap's 2, which `jig call` keeps for
/// refusals.
fn usage_error(error: &clap::Error) -> ExitCode {
    // Printing can only fail when the streams are closed: nothing to tell.
    let _ = error.print();
    match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => ExitCode::SUCCESS,
        _ => CliError::EXIT_CODE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_version_shortcut_says_what_clap_says() {
        let clap = Cli::command().render_version();
        for flag in ["--version", "-V"] {
            let fast = version_only([flag.into()].into_iter()).unwrap();
            assert_eq!(format!("{fast}\n"), clap);
        }
        assert_eq!(
            version_only(["--version".into(), "x".into()].into_iter()),
            None
        );
        assert_eq!(version_only(["tools".into()].into_iter()), None);
    }

    /// The early guess names what clap parses: each subcommand's name is
    /// clap's, and a command line of each guesses what the parsed command
    /// expects.
    #[test]
    fn the_early_probe_guesses_what_the_parsed_command_expects() {
        let clap_names: Vec<String> = Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_owned())
            .collect();
        let lines: [&[&str]; 9] = [
            &["--root", "w", "tools"],
            &["call", "search_text", "{}"],
            &["check"],
            &["--tools", "t", "audit"],
            &["mcp"],
            &["config"],
            &["repair"],
            &["parse"],
            &[
                "agent",
                "--endpoint",
                "http://127.0.0.1:1/v1",
                "--model",
                "m",
                "task",
            ],
        ];
        let mut seen = Vec::new();
        for line in lines {
            let argv = std::iter::once("jig").chain(line.iter().copied());
            let cli = Cli::try_parse_from(argv).unwrap();
            seen.push(cli.command.name().to_owned());
            let raw = line.iter().map(std::ffi::OsString::from);
            assert_eq!(
                args::guess_expected_calls(raw),
                cli.command.expected_calls(),
                "{line:?}"
            );
        }
        seen.sort();
        let mut clap_names = clap_names;
        clap_names.sort();
        assert_eq!(seen, clap_names);
        let off = ["--dangerous-no-containment", "call", "t", "{}"].map(std::ffi::OsString::from);
        assert_eq!(args::guess_expected_calls(off.into_iter()), None);
        let value_first = ["call", "mcp"].map(std::ffi::OsString::from);
        assert_eq!(
            args::guess_expected_calls(value_first.into_iter()),
            Some(jig_kernel::Expect::OneCall)
        );
        // an option's value that is a subcommand's name is still a value
        for line in [
            &["--tools", "tools", "mcp"][..],
            &["--root", "call", "-v", "mcp"],
            &[
                "--config",
                "audit",
                "--exec-allow",
                "call",
                "agent",
                "--endpoint",
                "e",
                "--model",
                "m",
                "t",
            ],
            &["--root=call", "mcp"],
        ] {
            let argv = std::iter::once("jig").chain(line.iter().copied());
            let cli = Cli::try_parse_from(argv).unwrap();
            let raw = line.iter().map(std::ffi::OsString::from);
            assert_eq!(
                args::guess_expected_calls(raw),
                cli.command.expected_calls(),
                "{line:?}"
            );
        }
        // the options that take a value, as clap has them
        let mut takes_value: Vec<String> = Cli::command()
            .get_arguments()
            .filter(|arg| arg.get_action().takes_values())
            .filter_map(|arg| arg.get_long().map(|long| format!("--{long}")))
            .collect();
        takes_value.sort();
        let mut listed = args::VALUE_OPTIONS.map(str::to_owned).to_vec();
        listed.sort();
        assert_eq!(listed, takes_value);
    }
}
