//! `jig config`: the effective configuration, written as a configuration
//! file would say it, with where each value comes from.

use std::fmt::Display;
use std::process::ExitCode;

use clap::Args;
use serde_json::json;

use crate::cmd::mcp::McpOptions;
use crate::error::{CliError, EXIT_OK, exit};
use crate::settings::{Containment, ExecGrant, Settings, Source, Sourced};

/// Arguments of `jig config`.
#[derive(Debug, Args)]
#[command(after_help = "\
Prints the configuration every other command would use, as TOML that a configuration file could
hold, each value followed by where it comes from: the command line, the environment, the file
or the default. The command line wins over the environment, which wins over the file; the
policy lists add up (a tool denied anywhere is denied).

The file is --config FILE, or $XDG_CONFIG_HOME/jig/config.toml (~/.config/jig/config.toml when
XDG_CONFIG_HOME is unset) when it exists; a file inside the workspace is refused, and unknown
keys are errors.")]
pub(crate) struct ConfigArgs {
    /// Workspace options (also accepted before the subcommand).
    #[command(flatten)]
    pub(crate) load: crate::args::LoadArgs,

    /// Call options (also accepted before the subcommand).
    #[command(flatten)]
    pub(crate) run: crate::args::RunArgs,
}

/// Prints the effective configuration.
pub(crate) fn run(settings: &Settings, _args: &ConfigArgs) -> Result<ExitCode, CliError> {
    super::print_text(&render(settings))?;
    Ok(exit(EXIT_OK))
}

/// The configuration as commented TOML.
pub(crate) fn render(s: &Settings) -> String {
    let mut out = Lines::default();
    out.comment("The effective configuration of jig; after each value, where it comes from.");
    match &s.file {
        Some(path) => out.comment(&format!("configuration file: {}", path.display())),
        None => out.comment("configuration file: none"),
    }
    out.blank();
    out.value("root", string(s.root.value.display()), &s.root.source);
    match &s.tools.value {
        Some(dir) => out.value("tools", string(dir.display()), &s.tools.source),
        None => out.unset("tools", "<root>/.jig/tools when it exists", &s.tools.source),
    }
    let containment = match s.containment.value {
        Containment::BestEffort => "best-effort",
        Containment::Required => "required",
        Containment::DangerousNone => "dangerous-none",
    };
    out.value("containment", string(containment), &s.containment.source);
    out.list(
        "protected_paths",
        s.protected_paths
            .value
            .iter()
            .map(|p| p.display().to_string()),
        &s.protected_paths.source,
    );
    out.list(
        "dangerous_allow_program",
        s.lifted.value.iter().cloned(),
        &s.lifted.source,
    );
    out.value(
        "budgets",
        inline_table(s.budgets.value.iter()),
        &s.budgets.source,
    );
    // dangerous_allow_program (issue 15 item 1): its line goes here.

    out.section("limits");
    out.value(
        "timeout",
        s.timeout.value.as_secs_f64().to_string(),
        &s.timeout.source,
    );
    out.sourced("max_output", &s.max_output);
    out.optional("flood_limit", &s.flood_limit, "none");
    out.sourced("max_processes", &s.max_processes);
    out.sourced("max_file_size", &s.max_file_size);
    out.sourced("max_tmp", &s.max_tmp);
    out.optional("max_memory", &s.max_memory, "no bound");

    out.section("policy");
    match &s.enabled.value {
        Some(names) => out.list("enabled", names.iter().cloned(), &s.enabled.source),
        None => out.unset("enabled", "every tool", &s.enabled.source),
    }
    out.list("allow", s.allow.value.iter().cloned(), &s.allow.source);
    out.list("deny", s.deny.value.iter().cloned(), &s.deny.source);

    out.section("exec");
    let granted = s.exec.value != ExecGrant::Off;
    out.value("grant", granted.to_string(), &s.exec.source);
    match &s.exec.value {
        ExecGrant::List(names) => out.list("allow", names.iter().cloned(), &s.exec.source),
        ExecGrant::DefaultList => out.list(
            "allow",
            jig_exec_tool::DEFAULT_READ_ONLY
                .iter()
                .map(|n| (*n).to_owned()),
            &Source::Default,
        ),
        ExecGrant::Off => {}
    }
    out.list(
        "dangerous_untabled",
        s.exec_untabled.value.iter().cloned(),
        &s.exec_untabled.source,
    );
    out.list(
        "deny_rules",
        s.exec_deny_rules.value.iter().cloned(),
        &s.exec_deny_rules.source,
    );
    out.list(
        "ask_rules",
        s.exec_ask_rules.value.iter().cloned(),
        &s.exec_ask_rules.source,
    );
    out.list(
        "rules",
        s.exec_rules.value.iter().map(|rule| {
            let decision = match rule.decision {
                crate::config::RuleDecision::Deny => "deny",
                crate::config::RuleDecision::Ask => "ask",
            };
            format!(
                "{decision} {:?} ({} match, {} not_match examples)",
                rule.pattern,
                rule.matches.len(),
                rule.not_match.len()
            )
        }),
        &s.exec_rules.source,
    );
    out.optional("budget", &s.exec_budget, "the max_output of [limits]");

    out.section("mcp");
    let defaults = McpOptions::for_this_machine();
    let mcp = &s.mcp;
    let in_flight = mcp.max_in_flight.value.unwrap_or(defaults.max_in_flight);
    out.value(
        "max_in_flight",
        in_flight.to_string(),
        &mcp.max_in_flight.source,
    );
    out.value(
        "max_queued",
        mcp.max_queued.value.unwrap_or(4 * in_flight).to_string(),
        &mcp.max_queued.source,
    );
    out.value(
        "max_line_bytes",
        mcp.max_line_bytes
            .value
            .unwrap_or(defaults.max_line_bytes)
            .to_string(),
        &mcp.max_line_bytes.source,
    );
    out.value(
        "max_pending_bytes",
        mcp.max_pending_bytes
            .value
            .unwrap_or(defaults.max_pending_bytes)
            .to_string(),
        &mcp.max_pending_bytes.source,
    );
    out.value(
        "eof_grace_ms",
        mcp.eof_grace_ms
            .value
            .unwrap_or(McpOptions::DEFAULT_EOF_GRACE_MS)
            .to_string(),
        &mcp.eof_grace_ms.source,
    );
    out.comment("the default max_in_flight is 32 per CPU, from 32 to 256");
    out.comment("the options of `jig mcp` (--max-in-flight...) win over [mcp]");

    out.section("call");
    out.value(
        "max_stdin_bytes",
        s.call_max_stdin_bytes
            .value
            .unwrap_or(super::call::DEFAULT_MAX_STDIN_BYTES)
            .to_string(),
        &s.call_max_stdin_bytes.source,
    );
    out.comment("`jig call --max-stdin-bytes` wins over [call]");
    out.text
}

/// A TOML basic string (JSON's escapes are TOML's).
fn string(value: impl Display) -> String {
    json!(value.to_string()).to_string()
}

fn inline_table<'a>(entries: impl Iterator<Item = (&'a String, &'a usize)>) -> String {
    let entries: Vec<String> = entries
        .map(|(key, value)| format!("{} = {value}", string(key)))
        .collect();
    if entries.is_empty() {
        "{}".to_owned()
    } else {
        format!("{{ {} }}", entries.join(", "))
    }
}

/// The text being written.
#[derive(Default)]
struct Lines {
    text: String,
}

impl Lines {
    /// `key = value` with its source after it, aligned.
    fn value(&mut self, key: &str, value: String, source: &Source) {
        let line = format!("{key} = {value}");
        self.text.push_str(&format!("{line:<40} # {source}\n"));
    }

    fn sourced<T: Display>(&mut self, key: &str, value: &Sourced<T>) {
        self.value(key, value.value.to_string(), &value.source);
    }

    fn optional<T: Display>(&mut self, key: &str, value: &Sourced<Option<T>>, none: &str) {
        match &value.value {
            Some(v) => self.value(key, v.to_string(), &value.source),
            None => self.unset(key, none, &value.source),
        }
    }

    fn list(&mut self, key: &str, values: impl Iterator<Item = String>, source: &Source) {
        let values: Vec<String> = values.map(string).collect();
        self.value(key, format!("[{}]", values.join(", ")), source);
    }

    /// A key that is not set, as a comment saying what applies.
    fn unset(&mut self, key: &str, meaning: &str, source: &Source) {
        let line = format!("# {key}: {meaning}");
        self.text.push_str(&format!("{line:<40} # {source}\n"));
    }

    fn comment(&mut self, text: &str) {
        self.text.push_str(&format!("# {text}\n"));
    }

    fn section(&mut self, name: &str) {
        self.text.push_str(&format!("\n[{name}]\n"));
    }

    fn blank(&mut self) {
        self.text.push('\n');
    }
}
