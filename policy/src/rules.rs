//! Allow and deny lists by tool name, and their configuration.

use std::collections::BTreeSet;

/// Which list refused a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum PolicyList {
    /// The deny list named the tool.
    Denylist,
    /// The allow list is not empty and does not name the tool.
    Allowlist,
}

impl PolicyList {
    /// `denylist` or `allowlist`.
    pub fn as_str(self) -> &'static str {
        match self {
            PolicyList::Denylist => "denylist",
            PolicyList::Allowlist => "allowlist",
        }
    }

    /// The layer a refusal by this list reports.
    pub fn layer(self) -> jig_lineage::Layer {
        match self {
            PolicyList::Denylist => jig_lineage::Layer::PolicyDenyList,
            PolicyList::Allowlist => jig_lineage::Layer::PolicyAllowList,
        }
    }
}

/// The runtime verdict on a tool name; ordered so that combining two
/// verdicts is a `min` (the stricter wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Verdict {
    /// Refused, by the given list.
    Deny(PolicyList),
    /// Allowed to run.
    Allow,
}

/// The policy settings as plain values: which tools are visible, which may
/// run. Empty lists change nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PolicyConfig {
    /// Tools whose schemas the model sees (`None`: every registered tool).
    pub enabled: Option<Vec<String>>,
    /// When not empty, only these tools may run.
    pub allow: Vec<String>,
    /// These tools may never run; the deny list is checked first.
    pub deny: Vec<String>,
}

/// The environment variables [`PolicyConfig::from_vars`] reads.
pub const ENV_ENABLED: &str = "JIG_ENABLED_TOOLS";
/// See [`ENV_ENABLED`].
pub const ENV_ALLOWLIST: &str = "JIG_TOOL_ALLOWLIST";
/// See [`ENV_ENABLED`].
pub const ENV_DENYLIST: &str = "JIG_TOOL_DENYLIST";

impl PolicyConfig {
    /// A configuration that shows and allows every tool.
    pub fn new() -> Self {
        Self::default()
    }

    /// This configuration with only these tools visible.
    pub fn with_enabled<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.enabled = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// This configuration with these names added to the allow list.
    pub fn with_allow<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allow.extend(names.into_iter().map(Into::into));
        self
    }

    /// This configuration with these names added to the deny list.
    pub fn with_deny<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.deny.extend(names.into_iter().map(Into::into));
        self
    }

    /// Reads `JIG_ENABLED_TOOLS`, `JIG_TOOL_ALLOWLIST` and
    /// `JIG_TOOL_DENYLIST` (comma-separated) through `lookup`, on top of this
    /// configuration. The library never reads the environment by itself: a
    /// binary passes `|k| std::env::var(k).ok()`.
    pub fn from_vars(mut self, lookup: impl Fn(&str) -> Option<String>) -> Self {
        if let Some(value) = lookup(ENV_ENABLED) {
            self.enabled = Some(split_names(&value));
        }
        if let Some(value) = lookup(ENV_ALLOWLIST) {
            self.allow.extend(split_names(&value));
        }
        if let Some(value) = lookup(ENV_DENYLIST) {
            self.deny.extend(split_names(&value));
        }
        self
    }
}

/// Splits a comma-separated list of names, dropping blanks.
pub fn split_names(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// A configuration that names tools that do not exist.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// A list names a tool that is not registered.
    #[error("the {list} names unknown tool `{name}`; known tools: {}", known.join(", "))]
    UnknownTool {
        /// Which setting: `allow list`, `deny list` or `enabled list`.
        list: &'static str,
        /// The unknown name.
        name: String,
        /// The registered names.
        known: Vec<String>,
    },
}

/// The runtime policy: allow and deny lists checked against registered
/// names when built.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolPolicy {
    allow: BTreeSet<String>,
    deny: BTreeSet<String>,
}

impl ToolPolicy {
    /// Builds the policy of `config`; every name in its lists (the enabled
    /// list too) must be one of `known`.
    pub fn new(config: &PolicyConfig, known: &[&str]) -> Result<Self, PolicyError> {
        let check = |list: &'static str, names: &[String]| {
            for name in names {
                if !known.contains(&name.as_str()) {
                    let mut known: Vec<String> = known.iter().map(|s| (*s).to_owned()).collect();
                    known.sort();
                    return Err(PolicyError::UnknownTool {
                        list,
                        name: name.clone(),
                        known,
                    });
                }
            }
            Ok(())
        };
        check("deny list", &config.deny)?;
        check("allow list", &config.allow)?;
        if let Some(enabled) = &config.enabled {
            check("enabled list", enabled)?;
        }
        Ok(Self {
            allow: config.allow.iter().cloned().collect(),
            deny: config.deny.iter().cloned().collect(),
        })
    }

    /// The verdict on `name`: the deny list first, then a non-empty allow
    /// list.
    pub fn verdict(&self, name: &str) -> Verdict {
        if self.deny.contains(name) {
            Verdict::Deny(PolicyList::Denylist)
        } else if !self.allow.is_empty() && !self.allow.contains(name) {
            Verdict::Deny(PolicyList::Allowlist)
        } else {
            Verdict::Allow
        }
    }

    /// The names a call may run under this policy, out of `names`.
    pub fn allowed<'a>(&self, names: &[&'a str]) -> Vec<&'a str> {
        names
            .iter()
            .copied()
            .filter(|n| self.verdict(n) == Verdict::Allow)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KNOWN: &[&str] = &["grep", "find", "sed_print", "exec"];

    #[test]
    fn verdicts() {
        let cases: &[(&[&str], &[&str], &str, Verdict)] = &[
            (&[], &[], "exec", Verdict::Allow),
            (&[], &["exec"], "exec", Verdict::Deny(PolicyList::Denylist)),
            (&[], &["exec"], "grep", Verdict::Allow),
            (&["grep"], &[], "find", Verdict::Deny(PolicyList::Allowlist)),
            (&["grep"], &[], "grep", Verdict::Allow),
            (
                &["grep"],
                &["grep"],
                "grep",
                Verdict::Deny(PolicyList::Denylist),
            ),
        ];
        for (allow, deny, name, expected) in cases {
            let config = PolicyConfig::new()
                .with_allow(allow.iter().copied())
                .with_deny(deny.iter().copied());
            let policy = ToolPolicy::new(&config, KNOWN).unwrap();
            assert_eq!(policy.verdict(name), *expected, "{allow:?} {deny:?} {name}");
        }
    }

    #[test]
    fn the_stricter_verdict_is_the_min() {
        let deny = Verdict::Deny(PolicyList::Denylist);
        assert_eq!(deny.min(Verdict::Allow), deny);
    }

    #[test]
    fn adding_a_deny_rule_never_allows_more() {
        let names = ["grep", "find", "sed_print", "exec"];
        for allow in [vec![], vec!["grep", "exec"]] {
            let base = PolicyConfig::new().with_allow(allow.clone());
            let before = ToolPolicy::new(&base, KNOWN).unwrap().allowed(&names);
            for extra in names {
                let stricter = base.clone().with_deny([extra]);
                let after = ToolPolicy::new(&stricter, KNOWN).unwrap().allowed(&names);
                assert!(after.iter().all(|n| before.contains(n)));
                assert!(!after.contains(&extra));
            }
        }
    }

    #[test]
    fn unknown_names_are_a_configuration_error() {
        let config = PolicyConfig::new().with_deny(["exce"]);
        let error = ToolPolicy::new(&config, KNOWN).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the deny list names unknown tool `exce`; known tools: exec, find, grep, sed_print"
        );
        let config = PolicyConfig::new().with_enabled(["nope"]);
        assert!(ToolPolicy::new(&config, KNOWN).is_err());
    }

    #[test]
    fn variables_are_read_only_through_the_given_lookup() {
        let vars = |key: &str| match key {
            ENV_ALLOWLIST => Some("grep, find,,".to_owned()),
            ENV_DENYLIST => Some("exec".to_owned()),
            _ => None,
        };
        let config = PolicyConfig::new().from_vars(vars);
        assert_eq!(config.allow, ["grep", "find"]);
        assert_eq!(config.deny, ["exec"]);
        assert_eq!(config.enabled, None);
    }
}
