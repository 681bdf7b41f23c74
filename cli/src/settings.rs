//! The effective configuration: the command line, then the environment,
//! then the configuration file, then the defaults; each value remembers
//! where it came from, for `jig config`.
//!
//! Policy lists add up instead: a tool denied anywhere is denied, and the
//! allow lists of the file, `JIG_TOOL_ALLOWLIST` and `--allow` are one list
//! (as `--allow` and the variable always were).

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use jig_kernel::Limits;

use crate::args::{LoadArgs, RunArgs};
use crate::config::{ContainmentKey, FileConfig, Loaded};
use crate::error::CliError;

/// The variable of the visible tools.
const ENV_ENABLED: &str = "JIG_ENABLED_TOOLS";
/// The variable of the runtime allow list.
const ENV_ALLOW: &str = "JIG_TOOL_ALLOWLIST";
/// The variable of the runtime deny list.
const ENV_DENY: &str = "JIG_TOOL_DENYLIST";

/// Where a value comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    /// Built in.
    Default,
    /// The configuration file.
    File,
    /// An environment variable.
    Env(&'static str),
    /// A command-line option.
    Flag(&'static str),
    /// Several (lists that add up), in precedence order, lowest first.
    Several(Vec<Source>),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Default => f.write_str("default"),
            Source::File => f.write_str("file"),
            Source::Env(var) => write!(f, "environment ({var})"),
            Source::Flag(flag) => write!(f, "command line ({flag})"),
            Source::Several(sources) => {
                let names: Vec<String> = sources.iter().map(ToString::to_string).collect();
                f.write_str(&names.join(" + "))
            }
        }
    }
}

/// A value and where it comes from.
#[derive(Debug, Clone)]
pub(crate) struct Sourced<T> {
    /// The value.
    pub(crate) value: T,
    /// Where it comes from.
    pub(crate) source: Source,
}

impl<T> Sourced<T> {
    fn default(value: T) -> Self {
        Self {
            value,
            source: Source::Default,
        }
    }

    /// The first of `candidates` that is set, or `default`.
    fn first(default: T, candidates: impl IntoIterator<Item = (Option<T>, Source)>) -> Self {
        candidates
            .into_iter()
            .find_map(|(value, source)| value.map(|value| Self { value, source }))
            .unwrap_or_else(|| Self::default(default))
    }
}

/// How calls are contained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Containment {
    /// Every mechanism the machine has.
    BestEffort,
    /// Every mechanism, or no start.
    Required,
    /// None (`--dangerous-no-containment`).
    DangerousNone,
}

/// Whether the exec tool is granted, and with which allow list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ExecGrant {
    /// Not granted.
    Off,
    /// Granted with its default allow list.
    DefaultList,
    /// Granted with this allow list.
    List(Vec<String>),
}

/// The MCP server's limits; `None` is "sized to this machine".
#[derive(Debug, Clone)]
pub(crate) struct McpSettings {
    pub(crate) max_in_flight: Sourced<Option<usize>>,
    pub(crate) max_queued: Sourced<Option<usize>>,
    pub(crate) max_line_bytes: Sourced<Option<usize>>,
    pub(crate) max_pending_bytes: Sourced<Option<usize>>,
    pub(crate) eof_grace_ms: Sourced<Option<u64>>,
}

/// Everything the commands that build a registry are configured with.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    /// The configuration file read, if any.
    pub(crate) file: Option<PathBuf>,
    pub(crate) root: Sourced<PathBuf>,
    /// `None`: `<root>/.jig/tools` when it exists.
    pub(crate) tools: Sourced<Option<PathBuf>>,
    pub(crate) containment: Sourced<Containment>,
    pub(crate) timeout: Sourced<Duration>,
    pub(crate) max_output: Sourced<usize>,
    pub(crate) flood_limit: Sourced<Option<u64>>,
    pub(crate) max_processes: Sourced<u64>,
    pub(crate) max_file_size: Sourced<u64>,
    pub(crate) max_tmp: Sourced<u64>,
    pub(crate) max_memory: Sourced<Option<u64>>,
    pub(crate) protected_paths: Sourced<Vec<PathBuf>>,
    pub(crate) budgets: Sourced<BTreeMap<String, usize>>,
    /// `None`: every tool is visible.
    pub(crate) enabled: Sourced<Option<Vec<String>>>,
    pub(crate) allow: Sourced<Vec<String>>,
    pub(crate) deny: Sourced<Vec<String>>,
    pub(crate) exec: Sourced<ExecGrant>,
    /// Deny-list entries lifted for command and descriptor tools.
    pub(crate) lifted: Sourced<Vec<String>>,
    /// Programs without an option table granted to the exec tool.
    pub(crate) exec_untabled: Sourced<Vec<String>>,
    pub(crate) exec_deny_rules: Sourced<Vec<String>>,
    pub(crate) exec_ask_rules: Sourced<Vec<String>>,
    /// `[[exec.rules]]`: rules with their examples.
    pub(crate) exec_rules: Sourced<Vec<crate::config::RuleEntry>>,
    pub(crate) exec_budget: Sourced<Option<usize>>,
    pub(crate) mcp: McpSettings,
    /// `jig call`'s stdin limit; `None` is the default.
    pub(crate) call_max_stdin_bytes: Sourced<Option<u64>>,
}

impl Settings {
    /// Resolves the options, the environment (`var`) and the file.
    pub(crate) fn resolve(
        load: &LoadArgs,
        run: &RunArgs,
        file: Option<Loaded>,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, CliError> {
        let empty = FileConfig::default();
        let config = file.as_ref().map_or(&empty, |f| &f.config);
        let in_file = |path: &PathBuf| file.as_ref().map_or(path.clone(), |f| f.resolve(path));
        let limits = config.limits.as_ref();
        let policy = config.policy.as_ref();
        let exec = config.exec.as_ref();
        let mcp = config.mcp.as_ref();
        let defaults = Limits::default();

        let root = Sourced::first(
            PathBuf::from("."),
            [
                (load.root.clone(), Source::Flag("--root")),
                (config.root.as_ref().map(in_file), Source::File),
            ],
        );
        if let Some(loaded) = &file {
            crate::config::refuse_inside(loaded, &root.value)?;
        }
        let tools = Sourced::first(
            None,
            [
                (load.tools.clone().map(Some), Source::Flag("--tools")),
                (
                    config.tools.as_ref().map(|t| Some(in_file(t))),
                    Source::File,
                ),
            ],
        );
        let flag_containment = if load.dangerous_no_containment {
            Some(Containment::DangerousNone)
        } else if load.require_containment {
            Some(Containment::Required)
        } else {
            None
        };
        let containment = Sourced::first(
            Containment::BestEffort,
            [
                (
                    flag_containment,
                    Source::Flag(if load.dangerous_no_containment {
                        "--dangerous-no-containment"
                    } else {
                        "--require-containment"
                    }),
                ),
                (config.containment.map(Containment::from), Source::File),
            ],
        );
        let file_timeout = match limits.and_then(|l| l.timeout) {
            Some(seconds) => Some(file_seconds(seconds, file.as_ref())?),
            None => None,
        };
        let timeout = Sourced::first(
            defaults.timeout,
            [
                (run.timeout, Source::Flag("--timeout")),
                (file_timeout, Source::File),
            ],
        );
        let max_output = Sourced::first(
            defaults.max_output,
            [
                (run.max_output, Source::Flag("--max-output")),
                (limits.and_then(|l| l.max_output), Source::File),
            ],
        );
        let from_file =
            |value: Option<u64>, default: u64| Sourced::first(default, [(value, Source::File)]);
        let enabled = Sourced::first(
            None,
            [
                (
                    var(ENV_ENABLED).map(|v| Some(split(&v))),
                    Source::Env(ENV_ENABLED),
                ),
                (
                    policy.and_then(|p| p.enabled.clone()).map(Some),
                    Source::File,
                ),
            ],
        );
        let allow = added(
            policy.and_then(|p| p.allow.clone()),
            var(ENV_ALLOW).map(|v| split(&v)),
            ENV_ALLOW,
            &run.allow,
            "--allow",
        );
        let deny = added(
            policy.and_then(|p| p.deny.clone()),
            var(ENV_DENY).map(|v| split(&v)),
            ENV_DENY,
            &run.deny,
            "--deny",
        );
        let flag_exec = match (&load.exec_allow, load.exec) {
            (Some(list), _) => Some((ExecGrant::List(trimmed(list)), "--exec-allow")),
            (None, true) => Some((ExecGrant::DefaultList, "--exec")),
            (None, false) => None,
        };
        let file_exec = exec.and_then(|e| match (&e.allow, e.grant) {
            (_, Some(false)) => Some(ExecGrant::Off),
            (Some(list), _) => Some(ExecGrant::List(trimmed(list))),
            (None, Some(true)) => Some(ExecGrant::DefaultList),
            (None, None) => None,
        });
        let exec_grant = match flag_exec {
            Some((grant, flag)) => Sourced {
                value: grant,
                source: Source::Flag(flag),
            },
            None => Sourced::first(ExecGrant::Off, [(file_exec, Source::File)]),
        };
        let list_from_file =
            |list: Option<Vec<String>>| Sourced::first(Vec::new(), [(list, Source::File)]);
        let mcp = McpSettings {
            max_in_flight: Sourced::first(
                None,
                [(mcp.and_then(|m| m.max_in_flight).map(Some), Source::File)],
            ),
            max_queued: Sourced::first(
                None,
                [(mcp.and_then(|m| m.max_queued).map(Some), Source::File)],
            ),
            max_line_bytes: Sourced::first(
                None,
                [(mcp.and_then(|m| m.max_line_bytes).map(Some), Source::File)],
            ),
            max_pending_bytes: Sourced::first(
                None,
                [(
                    mcp.and_then(|m| m.max_pending_bytes).map(Some),
                    Source::File,
                )],
            ),
            eof_grace_ms: Sourced::first(
                None,
                [(mcp.and_then(|m| m.eof_grace_ms).map(Some), Source::File)],
            ),
        };
        Ok(Self {
            file: file.as_ref().map(|f| f.path.clone()),
            root,
            tools,
            containment,
            timeout,
            max_output,
            flood_limit: Sourced::first(
                defaults.flood_limit,
                [(limits.and_then(|l| l.flood_limit).map(Some), Source::File)],
            ),
            max_processes: from_file(limits.and_then(|l| l.max_processes), defaults.max_processes),
            max_file_size: from_file(limits.and_then(|l| l.max_file_size), defaults.max_file_size),
            max_tmp: from_file(limits.and_then(|l| l.max_tmp), defaults.max_tmp),
            max_memory: Sourced::first(
                defaults.max_memory,
                [(limits.and_then(|l| l.max_memory).map(Some), Source::File)],
            ),
            protected_paths: Sourced::first(
                Vec::new(),
                [(config.protected_paths.clone(), Source::File)],
            ),
            budgets: Sourced::first(BTreeMap::new(), [(config.budgets.clone(), Source::File)]),
            enabled,
            allow,
            deny,
            exec: exec_grant,
            lifted: Sourced::first(
                Vec::new(),
                [
                    (
                        load.dangerous_allow_program.as_ref().map(|l| trimmed(l)),
                        Source::Flag("--dangerous-allow-program"),
                    ),
                    (
                        config.dangerous_allow_program.as_ref().map(|l| trimmed(l)),
                        Source::File,
                    ),
                ],
            ),
            exec_untabled: Sourced::first(
                Vec::new(),
                [
                    (
                        load.dangerous_exec_untabled.as_ref().map(|l| trimmed(l)),
                        Source::Flag("--dangerous-exec-untabled"),
                    ),
                    (
                        exec.and_then(|e| e.dangerous_untabled.as_ref())
                            .map(|l| trimmed(l)),
                        Source::File,
                    ),
                ],
            ),
            exec_deny_rules: list_from_file(exec.and_then(|e| e.deny_rules.clone())),
            exec_ask_rules: list_from_file(exec.and_then(|e| e.ask_rules.clone())),
            exec_rules: Sourced::first(
                Vec::new(),
                [(exec.and_then(|e| e.rules.clone()), Source::File)],
            ),
            exec_budget: Sourced::first(
                None,
                [(exec.and_then(|e| e.budget).map(Some), Source::File)],
            ),
            mcp,
            call_max_stdin_bytes: Sourced::first(
                None,
                [(
                    config
                        .call
                        .as_ref()
                        .and_then(|c| c.max_stdin_bytes)
                        .map(Some),
                    Source::File,
                )],
            ),
        })
    }

    /// The kernel limits of every call.
    pub(crate) fn limits(&self) -> Limits {
        let mut limits = Limits::default()
            .with_timeout(self.timeout.value)
            .with_max_output(self.max_output.value)
            .with_max_processes(self.max_processes.value)
            .with_max_file_size(self.max_file_size.value)
            .with_max_tmp(self.max_tmp.value);
        if let Some(bytes) = self.flood_limit.value {
            limits = limits.with_flood_limit(bytes);
        }
        if let Some(bytes) = self.max_memory.value {
            limits = limits.with_max_memory(bytes);
        }
        limits
    }
}

impl From<ContainmentKey> for Containment {
    fn from(key: ContainmentKey) -> Self {
        match key {
            ContainmentKey::BestEffort => Containment::BestEffort,
            ContainmentKey::Required => Containment::Required,
            ContainmentKey::DangerousNone => Containment::DangerousNone,
        }
    }
}

/// The file's `timeout`, checked as `--timeout` is.
fn file_seconds(seconds: f64, file: Option<&Loaded>) -> Result<Duration, CliError> {
    crate::args::parse_seconds(&seconds.to_string()).map_err(|message| CliError::Config {
        path: file.map_or_else(PathBuf::new, |f| f.path.clone()),
        message: format!("limits.timeout: {message}"),
    })
}

/// A list that adds up over the file, a variable and an option.
fn added(
    file: Option<Vec<String>>,
    env: Option<Vec<String>>,
    var: &'static str,
    flag: &[String],
    name: &'static str,
) -> Sourced<Vec<String>> {
    let mut value = Vec::new();
    let mut sources = Vec::new();
    if let Some(list) = file {
        value.extend(list);
        sources.push(Source::File);
    }
    if let Some(list) = env {
        value.extend(list);
        sources.push(Source::Env(var));
    }
    if !flag.is_empty() {
        value.extend(trimmed(flag));
        sources.push(Source::Flag(name));
    }
    let source = match sources.len() {
        0 => Source::Default,
        1 => sources.remove(0),
        _ => Source::Several(sources),
    };
    Sourced { value, source }
}

fn split(value: &str) -> Vec<String> {
    jig_policy::split_names(value)
}

fn trimmed(list: &[String]) -> Vec<String> {
    list.iter().map(|name| name.trim().to_owned()).collect()
}
