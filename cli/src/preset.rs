//! From the effective configuration to a built registry.

use jig_exec_tool::{AllowList, ExecTool, PermissionRule, RuleEffect};
use jig_policy::PolicyConfig;
use jig_presets::{Built, FullPreset};

use crate::config::{RuleDecision, RuleEntry};
use crate::error::CliError;
use crate::settings::{Containment, ExecGrant, Settings};

/// Whether the runtime policy of the configuration applies to the build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Policy {
    /// `--allow`, `--deny`, the `JIG_*` variables and `[policy]` apply.
    Apply,
    /// No policy: every tool is visible and allowed (`jig check` looks at
    /// files, not at what may run now).
    Ignore,
}

/// The runtime policy of the configuration.
pub(crate) fn policy(settings: &Settings) -> PolicyConfig {
    let mut policy = PolicyConfig::new()
        .with_allow(settings.allow.value.iter().cloned())
        .with_deny(settings.deny.value.iter().cloned());
    if let Some(enabled) = &settings.enabled.value {
        policy = policy.with_enabled(enabled.iter().cloned());
    }
    policy
}

/// The preset the configuration describes.
pub(crate) fn preset(settings: &Settings, policy: Policy) -> Result<FullPreset, CliError> {
    let mut preset = FullPreset::new(&settings.root.value).with_limits(settings.limits());
    preset = match settings.containment.value {
        Containment::BestEffort => preset,
        Containment::Required => preset.with_containment(jig_kernel::Containment::required()),
        Containment::DangerousNone => preset.dangerous_no_containment(),
    };
    if let Some(dir) = &settings.tools.value {
        preset = preset.with_descriptor_dir(dir);
    }
    if !settings.protected_paths.value.is_empty() {
        preset = preset.with_protected_paths(settings.protected_paths.value.iter().cloned());
    }
    for (tool, bytes) in &settings.budgets.value {
        preset = preset.with_output_budget(tool, *bytes);
    }
    if policy == Policy::Apply {
        preset = preset.with_policy(self::policy(settings));
    }
    if !settings.lifted.value.is_empty() {
        preset = preset.dangerous_allow_programs(settings.lifted.value.iter().cloned());
    }
    preset = grant_exec(preset, settings)?;
    Ok(preset)
}

/// Builds the registry the configuration describes. Descriptor files that
/// were skipped are reported on stderr (they are not fatal: the other tools
/// load), with a pointer to `jig check`.
pub(crate) fn build(settings: &Settings) -> Result<Built, CliError> {
    let built = preset(settings, Policy::Apply)?.build()?;
    warn_skipped(&built);
    warn_recovered(&built);
    Ok(built)
}

/// One line per protected path set aside for a call cut short when its
/// `jig` was killed (see `jig_kernel::Kernel::recovered`).
fn warn_recovered(built: &Built) {
    for done in built.registry.kernel().recovered() {
        eprintln!("jig: a command of a jig killed before the command's end: {done}");
    }
}

/// One warning line per skipped descriptor file.
fn warn_skipped(built: &Built) {
    for error in &built.descriptor_errors {
        eprintln!("jig: warning: skipped a descriptor file: {error}");
    }
    if !built.descriptor_errors.is_empty() {
        eprintln!("jig: warning: run `jig check` to see each problem in place");
    }
}

/// The exec tool's allow list the configuration asks for, if any.
pub(crate) fn exec_allow_list(settings: &Settings) -> Result<Option<AllowList>, CliError> {
    let untabled = &settings.exec_untabled.value;
    let tabled = match &settings.exec.value {
        ExecGrant::Off if untabled.is_empty() => return Ok(None),
        ExecGrant::Off => AllowList::new(Vec::<String>::new()),
        ExecGrant::DefaultList => Ok(AllowList::default_read_only()),
        ExecGrant::List(names) => AllowList::new(
            names
                .iter()
                .filter(|name| !untabled.contains(name))
                .map(String::as_str),
        ),
    }
    .map_err(|error| {
        CliError::Usage(format!(
            "the exec allow list ({}): {error}",
            settings.exec.source
        ))
    })?;
    tabled
        .dangerous_allow_untabled(untabled.iter().map(String::as_str))
        .map(Some)
        .map_err(|error| {
            CliError::Usage(format!(
                "the untabled programs ({}): {error}",
                settings.exec_untabled.source
            ))
        })
}

/// One `[[exec.rules]]` entry as a rule, checked against its own
/// examples: a rule that disagrees with one stops jig at start, naming the
/// rule, the example and the file.
fn rule_with_examples(entry: &RuleEntry, settings: &Settings) -> Result<PermissionRule, CliError> {
    let effect = match entry.decision {
        RuleDecision::Deny => RuleEffect::Deny,
        RuleDecision::Ask => RuleEffect::Ask,
    };
    let matches: Vec<&str> = entry.matches.iter().map(String::as_str).collect();
    let not_matches: Vec<&str> = entry.not_match.iter().map(String::as_str).collect();
    PermissionRule::new(&entry.pattern, effect)
        .and_then(|rule| rule.with_examples(&matches, &not_matches))
        .map_err(|error| {
            let message = format!("[[exec.rules]] pattern {:?}: {error}", entry.pattern);
            match &settings.file {
                Some(path) => CliError::Config {
                    path: path.clone(),
                    message,
                },
                None => CliError::Usage(message),
            }
        })
}

/// The preset with the exec tool granted when the configuration asks for it
/// (it shares the preset's deny list, as every form does), with its
/// permission rules and budget.
fn grant_exec(preset: FullPreset, settings: &Settings) -> Result<FullPreset, CliError> {
    let Some(allow) = exec_allow_list(settings)? else {
        return Ok(preset);
    };
    let mut config = ExecTool::builder().allow(allow);
    let rules = settings
        .exec_deny_rules
        .value
        .iter()
        .map(|text| (text, PermissionRule::deny(text)))
        .chain(
            settings
                .exec_ask_rules
                .value
                .iter()
                .map(|text| (text, PermissionRule::ask(text))),
        );
    for (text, rule) in rules {
        let rule = rule.map_err(|error| {
            CliError::Usage(format!("the exec permission rule {text:?}: {error}"))
        })?;
        config = config.rule(rule);
    }
    for entry in &settings.exec_rules.value {
        config = config.rule(rule_with_examples(entry, settings)?);
    }
    let mut preset = preset.with_exec(config);
    if let Some(bytes) = settings.exec_budget.value {
        preset = preset.with_exec_budget(bytes);
    }
    Ok(preset)
}
