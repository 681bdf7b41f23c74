//! From the global options to a built registry.

use jig_policy::PolicyConfig;
use jig_presets::{Built, FullPreset};

use crate::args::GlobalArgs;
use crate::error::CliError;

/// Whether the runtime policy of the command line and the environment
/// applies to the build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Policy {
    /// `--allow`, `--deny` and the `JIG_*` variables apply.
    Apply,
    /// No policy: every tool is visible and allowed (`jig check` looks at
    /// files, not at what may run now).
    Ignore,
}

/// The policy from the environment (`JIG_ENABLED_TOOLS`,
/// `JIG_TOOL_ALLOWLIST`, `JIG_TOOL_DENYLIST`) and the command line.
pub(crate) fn policy(global: &GlobalArgs) -> PolicyConfig {
    PolicyConfig::new()
        .from_vars(|key| std::env::var(key).ok())
        .with_allow(global.allow.iter().cloned())
        .with_deny(global.deny.iter().cloned())
}

/// The preset the global options describe.
pub(crate) fn preset(global: &GlobalArgs, policy: Policy) -> Result<FullPreset, CliError> {
    let mut preset = FullPreset::new(&global.root);
    if let Some(timeout) = global.timeout {
        preset = preset.with_timeout(timeout);
    }
    if let Some(bytes) = global.max_output {
        preset = preset.with_max_output(bytes);
    }
    if global.dangerous_no_containment {
        preset = preset.dangerous_no_containment();
    } else if global.require_containment {
        preset = preset.with_containment(jig_kernel::Containment::required());
    }
    if let Some(dir) = &global.tools {
        preset = preset.with_descriptor_dir(dir);
    }
    if policy == Policy::Apply {
        preset = preset.with_policy(self::policy(global));
    }
    preset = crate::preset::exec::grant(preset, global)?;
    Ok(preset)
}

/// Builds the registry the global options describe. Descriptor files that
/// were skipped are reported on stderr (they are not fatal: the other tools
/// load), with a pointer to `jig check`.
pub(crate) fn build(global: &GlobalArgs) -> Result<Built, CliError> {
    let built = preset(global, Policy::Apply)?.build()?;
    warn_skipped(&built);
    Ok(built)
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

/// Granting the exec tool from `--exec` and `--exec-allow`.
mod exec {
    use jig_exec_tool::AllowList;
    use jig_presets::FullPreset;

    use crate::args::GlobalArgs;
    use crate::error::CliError;

    /// The exec tool's allow list the options ask for, if any.
    pub(super) fn allow_list(global: &GlobalArgs) -> Result<Option<AllowList>, CliError> {
        match (&global.exec_allow, global.exec) {
            (Some(names), _) => AllowList::new(names.iter().map(|n| n.trim()))
                .map(Some)
                .map_err(|error| CliError::Usage(format!("--exec-allow: {error}"))),
            (None, true) => Ok(Some(AllowList::default_read_only())),
            (None, false) => Ok(None),
        }
    }

    /// The preset with the exec tool granted when the options ask for it
    /// (it shares the preset's deny list, as every form does).
    pub(super) fn grant(preset: FullPreset, global: &GlobalArgs) -> Result<FullPreset, CliError> {
        Ok(match allow_list(global)? {
            Some(allow) => preset.with_exec_allow(allow),
            None => preset,
        })
    }
}
