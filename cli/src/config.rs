//! The configuration file: TOML, given with `--config FILE` or found at
//! `$XDG_CONFIG_HOME/jig/config.toml` (`~/.config/jig/config.toml` when the
//! variable is unset), never inside the workspace.
//!
//! Every key is optional and unknown keys are errors (a misspelt key must
//! not silently leave a default in place). Relative paths in the file are
//! relative to the file's folder. How the file's values combine with the
//! environment and the command line is `crate::settings`' business.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::CliError;

/// The name of the file in the configuration folder.
const FILE_NAME: &str = "config.toml";

/// The whole file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FileConfig {
    /// The workspace root.
    pub(crate) root: Option<PathBuf>,
    /// The folder of descriptor tools.
    pub(crate) tools: Option<PathBuf>,
    /// `best-effort`, `required` or `dangerous-none`.
    pub(crate) containment: Option<ContainmentKey>,
    /// More paths no call that may write can name (relative to the root).
    pub(crate) protected_paths: Option<Vec<PathBuf>>,
    /// Per-tool output budgets, in bytes.
    pub(crate) budgets: Option<BTreeMap<String, usize>>,
    /// The kernel's limits of every call.
    pub(crate) limits: Option<LimitsSection>,
    /// The runtime policy.
    pub(crate) policy: Option<PolicySection>,
    /// The exec tool.
    pub(crate) exec: Option<ExecSection>,
    /// The MCP server's limits.
    pub(crate) mcp: Option<McpSection>,
    /// `jig call`'s limits.
    pub(crate) call: Option<CallSection>,
    /// Deny-list entries lifted for command and descriptor tools.
    pub(crate) dangerous_allow_program: Option<Vec<String>>,
}

/// `containment = "..."`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum ContainmentKey {
    /// Every mechanism the machine has (the default).
    BestEffort,
    /// Refuse to start unless every mechanism is available.
    Required,
    /// No operating-system containment at all.
    DangerousNone,
}

/// `[limits]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LimitsSection {
    /// Seconds.
    pub(crate) timeout: Option<f64>,
    /// Bytes kept from one call's output.
    pub(crate) max_output: Option<usize>,
    /// Bytes of output after which a program is ended as a flood.
    pub(crate) flood_limit: Option<u64>,
    /// Processes of a contained call at once.
    pub(crate) max_processes: Option<u64>,
    /// Bytes any file written by a contained call may reach.
    pub(crate) max_file_size: Option<u64>,
    /// Bytes of a contained call's temporary folder.
    pub(crate) max_tmp: Option<u64>,
    /// Bytes of address space per process of a contained call.
    pub(crate) max_memory: Option<u64>,
}

/// `[policy]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PolicySection {
    /// The tools the model can see.
    pub(crate) enabled: Option<Vec<String>>,
    /// Only these tools may run.
    pub(crate) allow: Option<Vec<String>>,
    /// These tools may never run.
    pub(crate) deny: Option<Vec<String>>,
}

/// `[exec]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExecSection {
    /// Grant the exec tool (with the default allow list unless `allow`).
    pub(crate) grant: Option<bool>,
    /// The exec tool's allow list (grants it).
    pub(crate) allow: Option<Vec<String>>,
    /// Programs without an option table, granted knowingly (grants them).
    pub(crate) dangerous_untabled: Option<Vec<String>>,
    /// Permission rules whose commands are refused (`"git push *"`).
    pub(crate) deny_rules: Option<Vec<String>>,
    /// Permission rules whose commands need a person's approval; `jig`
    /// has no one to ask, so they are refused too.
    pub(crate) ask_rules: Option<Vec<String>>,
    /// Permission rules with the commands they must and must not match
    /// (`[[exec.rules]]`), checked when jig starts.
    pub(crate) rules: Option<Vec<RuleEntry>>,
    /// The exec tool's output budget, in bytes.
    pub(crate) budget: Option<usize>,
}

/// One `[[exec.rules]]` entry, as Codex's execpolicy writes a rule
/// (`prefix_rule(pattern, decision, match, not_match)`): the examples are
/// checked when jig starts, so the file documents and tests itself.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RuleEntry {
    /// The rule (`"git push *"`).
    pub(crate) pattern: String,
    /// What a matching command gets.
    pub(crate) decision: RuleDecision,
    /// Commands the rule must match.
    #[serde(default, rename = "match")]
    pub(crate) matches: Vec<String>,
    /// Commands the rule must not match.
    #[serde(default)]
    pub(crate) not_match: Vec<String>,
}

/// `decision = "..."` of a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum RuleDecision {
    /// Refused.
    Deny,
    /// Needs a person's approval (refused by `jig`, which has no one to
    /// ask).
    Ask,
}

/// `[mcp]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct McpSection {
    /// Calls that run at once.
    pub(crate) max_in_flight: Option<usize>,
    /// Calls that wait for a slot.
    pub(crate) max_queued: Option<usize>,
    /// The longest request line, in bytes.
    pub(crate) max_line_bytes: Option<usize>,
    /// The request text held at once, in bytes.
    pub(crate) max_pending_bytes: Option<usize>,
    /// Milliseconds calls get after the client closed stdin.
    pub(crate) eof_grace_ms: Option<u64>,
}

/// `[call]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CallSection {
    /// The most bytes of arguments `jig call NAME -` reads from stdin.
    pub(crate) max_stdin_bytes: Option<u64>,
}

/// A file that was read: where it is and what it says.
#[derive(Debug)]
pub(crate) struct Loaded {
    /// The file, as found or given.
    pub(crate) path: PathBuf,
    /// The file with symbolic links resolved.
    pub(crate) canonical: PathBuf,
    /// Its keys.
    pub(crate) config: FileConfig,
}

impl Loaded {
    /// `path` made absolute against the file's folder.
    pub(crate) fn resolve(&self, path: &Path) -> PathBuf {
        match self.canonical.parent() {
            Some(folder) if path.is_relative() => folder.join(path),
            _ => path.to_path_buf(),
        }
    }
}

/// The default file, `$XDG_CONFIG_HOME/jig/config.toml` or
/// `$HOME/.config/jig/config.toml`, from `var` (the environment).
pub(crate) fn default_path(var: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    // The XDG specification ignores a relative value.
    let base = var("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .or_else(|| {
            var("HOME")
                .filter(|home| !home.is_empty())
                .map(|home| Path::new(&home).join(".config"))
        })?;
    Some(base.join("jig").join(FILE_NAME))
}

/// Reads the file given with `--config` (which must exist) or, without it,
/// the default file when there is one.
pub(crate) fn load(given: Option<&Path>) -> Result<Option<Loaded>, CliError> {
    let path = match given {
        Some(path) => path.to_path_buf(),
        None => match default_path(|key| std::env::var(key).ok()) {
            Some(path) if path.is_file() => path,
            _ => return Ok(None),
        },
    };
    let read_error = |source| CliError::Read {
        what: format!("the configuration file {}", path.display()),
        source,
    };
    let canonical = std::fs::canonicalize(&path).map_err(read_error)?;
    let text = std::fs::read_to_string(&canonical).map_err(read_error)?;
    let config = parse(&text, &path)?;
    Ok(Some(Loaded {
        path,
        canonical,
        config,
    }))
}

/// Parses the text of the file named `path` (in messages).
pub(crate) fn parse(text: &str, path: &Path) -> Result<FileConfig, CliError> {
    toml::from_str(text).map_err(|error| CliError::Config {
        path: path.to_path_buf(),
        message: error.to_string().trim_end().to_owned(),
    })
}

/// Refuses a file that lies inside the workspace: whoever can write there
/// (the model) could otherwise configure the very bounds it runs under.
pub(crate) fn refuse_inside(loaded: &Loaded, root: &Path) -> Result<(), CliError> {
    // A root that does not exist is the kernel's error to report.
    let Ok(root) = std::fs::canonicalize(root) else {
        return Ok(());
    };
    // Where the file is (a link in the workspace could be pointed
    // elsewhere by the model) and where it leads.
    let linked = match (loaded.path.parent(), loaded.path.file_name()) {
        (Some(folder), Some(name)) => {
            let folder = if folder.as_os_str().is_empty() {
                Path::new(".")
            } else {
                folder
            };
            std::fs::canonicalize(folder).ok().map(|f| f.join(name))
        }
        _ => None,
    };
    let inside = std::iter::once(&loaded.canonical)
        .chain(linked.as_ref())
        .find(|path| path.starts_with(&root));
    if let Some(inside) = inside {
        return Err(CliError::Config {
            path: loaded.path.clone(),
            message: format!(
                "the file is inside the workspace {} (as {}), where the model could change it; \
                 keep the configuration outside the workspace, for example in \
                 ~/.config/jig/config.toml",
                root.display(),
                inside.display()
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_file_follows_xdg_then_home() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |key: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        assert_eq!(
            default_path(env(&[("XDG_CONFIG_HOME", "/x"), ("HOME", "/h")])),
            Some(PathBuf::from("/x/jig/config.toml"))
        );
        assert_eq!(
            default_path(env(&[("XDG_CONFIG_HOME", "rel"), ("HOME", "/h")])),
            Some(PathBuf::from("/h/.config/jig/config.toml"))
        );
        assert_eq!(default_path(env(&[])), None);
    }

    #[test]
    fn unknown_keys_are_errors_naming_the_key_and_the_file() {
        for text in ["rooot = \".\"", "[limits]\ntimeout_s = 3", "[mcp]\nmax = 1"] {
            let error = parse(text, Path::new("/etc/x.toml"))
                .unwrap_err()
                .to_string();
            assert!(error.contains("/etc/x.toml"), "{error}");
            assert!(error.contains("unknown field"), "{error}");
        }
    }

    #[test]
    fn the_readme_example_parses() {
        let readme = include_str!("../../README.md");
        let start = readme.find("```toml\n").unwrap() + "```toml\n".len();
        let end = start + readme[start..].find("```").unwrap();
        let config = parse(&readme[start..end], Path::new("README.md")).unwrap();
        assert_eq!(config.containment, Some(ContainmentKey::Required));
        let exec = config.exec.unwrap();
        assert!(exec.ask_rules.is_some());
        let rules = exec.rules.unwrap();
        assert_eq!(rules[0].pattern, "git push *");
        assert_eq!(rules[0].decision, RuleDecision::Deny);
        assert_eq!(rules[0].matches.len(), 2);
        // The README's rule keeps its own examples.
        let rule = jig_exec_tool::PermissionRule::deny(&rules[0].pattern).unwrap();
        let matches: Vec<&str> = rules[0].matches.iter().map(String::as_str).collect();
        let not_match: Vec<&str> = rules[0].not_match.iter().map(String::as_str).collect();
        assert!(rule.with_examples(&matches, &not_match).is_ok());
        assert!(config.mcp.unwrap().max_in_flight.is_some());
    }

    #[test]
    fn every_key_parses() {
        let text = r#"
root = "ws"
tools = "/t"
containment = "required"
protected_paths = ["build"]
budgets = { grep = 100 }
[limits]
timeout = 2.5
max_output = 10
flood_limit = 1
max_processes = 2
max_file_size = 3
max_tmp = 4
max_memory = 5
[policy]
enabled = ["grep"]
allow = ["grep"]
deny = ["find"]
[exec]
grant = true
allow = ["ls"]
deny_rules = ["ls -R *"]
ask_rules = []
budget = 7
[mcp]
max_in_flight = 1
max_queued = 2
max_line_bytes = 3
max_pending_bytes = 4
eof_grace_ms = 5
"#;
        let config = parse(text, Path::new("c.toml")).unwrap();
        assert_eq!(config.containment, Some(ContainmentKey::Required));
        assert_eq!(config.limits.unwrap().timeout, Some(2.5));
        assert_eq!(config.mcp.unwrap().eof_grace_ms, Some(5));
    }
}
