//! The run point: the one adapter [`FullPreset::build`] wraps around every
//! tool, whatever its form or author, so that every invocation the
//! registry dispatches, dry-runs, classes or sends for approval is the one
//! vetted here.
//!
//! On the final argv of every form it checks, in order:
//!
//! 1. the preset's deny list on the program by the name it is invoked by,
//!    by its resolved target (a link named `pyrun` to `python3.11` is
//!    `python3.11`, of the `python3` family), by the `#!` interpreter of a
//!    script, by membership of `/etc/shells`, and launcher subcommands
//!    (`rustup run`, `npm exec`) and multi-call binaries;
//! 2. a program that resolves inside the workspace (which the model may be
//!    able to write) is refused unless the integrator called
//!    `dangerous_allow_workspace_programs`;
//! 3. the environment a tool asks for: only a few neutral keys, and git's
//!    hardening keys for git;
//! 4. the program's table on the final argv (for every form but the
//!    preset's own exec tool, which applied the same tables to its command),
//!    and git's hardening added to the environment for every form.
//!
//! [`FullPreset::build`]: crate::FullPreset::build

use jig_lineage::Layer;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use jig_lineage::{
    CheckContext, DenyList, ErrorCode, Invocation, Protected, Refusal, Tool, ToolAudit, ToolForm,
    program_name,
};
use serde_json::Value;

/// Environment keys any tool may set for its program.
const NEUTRAL_ENV: &[&str] = &[
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TZ",
    "COLUMNS",
    "LINES",
    "NO_COLOR",
    "TERM",
];

/// The locale keys of [`NEUTRAL_ENV`]: their values are limited to UTF-8,
/// `C` and `POSIX` locales, where an ASCII byte is always the character it
/// looks like (in a locale such as Shift JIS, a script delimiter byte can be
/// the second half of a character, and sed would read another script than
/// the table judged).
const LOCALE_ENV: &[&str] = &["LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES"];

fn utf8_or_c(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    let charset = lower.split('@').next().unwrap_or_default();
    matches!(charset, "" | "c" | "posix")
        || charset.ends_with(".utf-8")
        || charset.ends_with(".utf8")
}

/// What the run point enforces, shared by the adapters of one preset.
#[derive(Debug)]
pub(crate) struct Guard {
    /// The whole deny list: the exec form's.
    pub(crate) deny: DenyList,
    /// The deny list with the lifted entries removed: every other form's.
    pub(crate) tool_deny: DenyList,
    pub(crate) allow_workspace_programs: bool,
    pub(crate) protected: Protected,
    /// The protected paths besides git's and jig's own (the descriptor
    /// folder, the integrator's), for [`Guard::write_protected`].
    pub(crate) protected_extra: Vec<PathBuf>,
    /// The repository's hooks folders, asked of git by the first call
    /// that may write.
    pub(crate) hooks: Arc<crate::hooks::LazyHooks>,
    /// `protected` with the hooks folders, made for the first call that
    /// may write.
    pub(crate) write_protected: OnceLock<Protected>,
    /// Why git may not run, when the installed git is older than
    /// [`jig_programs::GIT_MIN_VERSION`]: asked of git once, the first time
    /// a call would run git (a preset without git calls never starts it).
    pub(crate) git_problem: OnceLock<Option<String>>,
    /// The kernel that asks git its version.
    pub(crate) kernel: jig_kernel::Kernel,
}

/// One tool behind the run point.
pub(crate) struct RunPoint {
    inner: Arc<dyn Tool>,
    guard: Arc<Guard>,
    /// The preset's own exec tool, which judged its command by the same
    /// program tables (an integrator's tool that says it is of the exec
    /// form is still judged here).
    judged_by_tables: bool,
}

impl RunPoint {
    pub(crate) fn wrap(inner: Arc<dyn Tool>, guard: Arc<Guard>, judged_by_tables: bool) -> Self {
        Self {
            inner,
            guard,
            judged_by_tables,
        }
    }
}

impl Tool for RunPoint {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn description(&self) -> &str {
        self.inner.description()
    }

    fn form(&self) -> ToolForm {
        self.inner.form()
    }

    fn input_schema(&self) -> &Value {
        self.inner.input_schema()
    }

    fn check(&self, arguments: &Value, context: &CheckContext<'_>) -> Result<Invocation, Refusal> {
        let invocation = self.inner.check(arguments, context)?;
        self.guard.vet(
            invocation,
            context,
            self.judged_by_tables,
            self.inner.form(),
        )
    }

    fn audit(&self) -> ToolAudit {
        self.inner.audit()
    }
}

fn refused(message: String) -> Refusal {
    Refusal::new(ErrorCode::RunRefused, Layer::RunProgram, message)
}

impl Guard {
    /// The invocation, vetted (and hardened), or the refusal.
    pub(crate) fn vet(
        &self,
        mut invocation: Invocation,
        context: &CheckContext<'_>,
        judged_by_tables: bool,
        form: ToolForm,
    ) -> Result<Invocation, Refusal> {
        let Some(program) = invocation.argv.first().cloned() else {
            return Err(refused("the command is empty".to_owned()));
        };
        // The exec form keeps the whole deny list; lifted entries are for
        // the tools an integrator wrote.
        let deny = if form == ToolForm::Exec {
            &self.deny
        } else {
            &self.tool_deny
        };
        self.vet_program(deny, &program, &invocation.argv, context)?;
        if program_name(&program) == "git"
            && let Some(problem) = self
                .git_problem
                .get_or_init(|| crate::hooks::git_version_problem(&self.kernel))
        {
            return Err(refused(format!("git cannot run safely here: {problem}")));
        }
        vet_env(&invocation)?;
        // The exec tool judged its command by these same tables; every
        // other form (and any integrator's tool) is judged here.
        // Fail closed: a refusal here refuses every form, the preset's own
        // exec tool included (it judged the same argv by the same tables).
        // A program the integrator lifted from the deny list for the tools
        // they wrote (`python3 scripts/check.py {path}`) runs as their
        // template says: its table guards the exec tool, which keeps it.
        let lifted = form != ToolForm::Exec && self.tool_deny.is_lifted(&program);
        if lifted {
            self.vet_paths(&invocation, &[], form)?;
            return Ok(invocation);
        }
        let verdict = jig_programs::judge_argv(&invocation.argv, context)?;
        self.vet_paths(&invocation, &verdict.paths, form)?;
        if !judged_by_tables {
            for (key, value) in verdict.env {
                invocation.env.retain(|(k, _)| *k != key);
                invocation.env.push((key, value));
            }
        }
        // Hardening options the program honours go right after its name
        // (after the subcommand for git); the model's words stay as
        // written, around them.
        if !verdict.hardening.is_empty() {
            let at = verdict.hardening_at.clamp(1, invocation.argv.len());
            let rest = invocation.argv.split_off(at);
            invocation.argv.extend(verdict.hardening);
            invocation.argv.extend(rest);
        }
        Ok(invocation)
    }

    /// Protected paths: never written by a call that may write, secrets
    /// never read (unless configured).
    fn vet_paths(
        &self,
        invocation: &Invocation,
        values: &[String],
        form: ToolForm,
    ) -> Result<(), Refusal> {
        let writes = !invocation.read_only;
        let protected = if writes {
            self.write_protected()
        } else {
            &self.protected
        };
        let resolved = invocation
            .paths
            .iter()
            .find_map(|path| protected.refusal_for(path, &path.display().to_string(), writes));
        let written = values
            .iter()
            .find_map(|value| protected.refusal(value, writes));
        match resolved.or(written) {
            None => Ok(()),
            Some(message) => {
                let code = if form == ToolForm::Exec {
                    ErrorCode::ExecRefused
                } else {
                    ErrorCode::SlotInvalid
                };
                Err(Refusal::new(code, Layer::RunPath, message))
            }
        }
    }

    /// The protected paths of a call that may write: `protected` with the
    /// repository's hooks folders, asked of git the first time.
    fn write_protected(&self) -> &Protected {
        self.write_protected.get_or_init(|| {
            // Unknown, the call is refused where it would run (the
            // registry): the run point checks what it knows.
            let hooks = self.hooks.get().unwrap_or_default();
            if hooks.is_empty() {
                return self.protected.clone();
            }
            let extra: Vec<PathBuf> = self.protected_extra.iter().chain(hooks).cloned().collect();
            Protected::new(self.kernel.root(), &extra)
                .with_secrets_readable(self.protected.secrets_readable())
        })
    }

    fn vet_program(
        &self,
        deny: &DenyList,
        program: &str,
        argv: &[String],
        context: &CheckContext<'_>,
    ) -> Result<(), Refusal> {
        let denied = |what: &str, name: &str| {
            refused(format!(
                "`{program}` is not allowed: {what} `{name}` is on the deny list; use a tool \
                 that runs an allowed program"
            ))
        };
        if deny.is_denied(program) {
            return Err(denied("the program", program_name(program)));
        }
        if deny.is_denied_launch(argv) {
            return Err(refused(format!(
                "`{}` launches another program; use a tool that runs an allowed program directly",
                argv.iter().take(2).cloned().collect::<Vec<_>>().join(" ")
            )));
        }
        let Some(target) = resolve(program, context) else {
            // Not found: the kernel reports it (621).
            return Ok(());
        };
        let target_name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let invoked = program_name(program);
        let multi_call = jig_lineage::MULTI_CALL.contains(&target_name.as_str());
        if !multi_call && deny.is_denied(&target_name) {
            return Err(denied(
                &format!("it resolves to {} and", target.display()),
                &target_name,
            ));
        }
        if let Some(shell) = shell_entries(&target)
            .into_iter()
            .find(|name| deny.is_denied(name))
        {
            return Err(denied("it is the shell", &shell));
        }
        if let Some(interpreter) = interpreter(&target) {
            let name = program_name(&interpreter).to_owned();
            let resolved = std::fs::canonicalize(&interpreter).ok();
            let resolved_name = resolved
                .as_ref()
                .and_then(|p| p.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if deny.is_denied(&name) || deny.is_denied(&resolved_name) {
                return Err(denied("its `#!` interpreter", &name));
            }
        }
        if target.starts_with(context.root) && !self.allow_workspace_programs {
            return Err(refused(format!(
                "`{invoked}` is a program inside the workspace, which the model may be able to \
                 change; only installed programs run"
            )));
        }
        Ok(())
    }
}

/// Refuses environment keys a tool may not set: anything but a few neutral
/// ones, and git's hardening keys for git.
fn vet_env(invocation: &Invocation) -> Result<(), Refusal> {
    let git = invocation
        .argv
        .first()
        .is_some_and(|p| program_name(p) == "git");
    for (key, value) in &invocation.env {
        if LOCALE_ENV.contains(&key.as_str()) && !utf8_or_c(value) {
            return Err(Refusal::new(
                ErrorCode::RunRefused,
                Layer::RunEnv,
                format!(
                    "the tool asks to set `{key}={value}`; only a UTF-8, C or POSIX locale may be \
                     set (the program tables read scripts as those locales do)"
                ),
            ));
        }
        // A table may pin `HOME` to the kernel's folder that does not exist
        // (jq, so that no `~/.jq` loads whatever home the integrator set):
        // it can only make a program read less.
        let no_home = key == "HOME" && value == jig_kernel::DEFAULT_HOME;
        if NEUTRAL_ENV.contains(&key.as_str()) || (git && git_key(key)) || no_home {
            continue;
        }
        return Err(Refusal::new(
            ErrorCode::RunRefused,
            Layer::RunEnv,
            format!(
                "the tool asks to set `{key}` for its program, which no tool may set (it can \
                 change what the program loads or runs)"
            ),
        ));
    }
    Ok(())
}

fn git_key(key: &str) -> bool {
    let indexed = |prefix: &str| {
        key.strip_prefix(prefix)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    jig_programs::GIT_ENV.iter().any(|(k, _)| *k == key)
        || key == "GIT_CEILING_DIRECTORIES"
        || key == "GIT_CONFIG_COUNT"
        || indexed("GIT_CONFIG_KEY_")
        || indexed("GIT_CONFIG_VALUE_")
}

/// The canonical file `program` runs, found exactly as the kernel finds it.
fn resolve(program: &str, context: &CheckContext<'_>) -> Option<PathBuf> {
    let found = jig_kernel::resolve_program(
        std::ffi::OsStr::new(program),
        context.root,
        context.search_path,
    )
    .ok()?;
    std::fs::canonicalize(found).ok()
}

/// The interpreter a `#!` script names.
fn interpreter(target: &Path) -> Option<String> {
    jig_kernel::script_interpreter(target).map(|p| p.to_string_lossy().into_owned())
}

/// The names of the shells of `/etc/shells` that are `target` (`sh` for
/// `/usr/bin/dash` where `/bin/sh` links to it): the same file, by device
/// and inode, whatever the links (or hard links) between the names. One
/// `stat` per entry, once per process.
fn shell_entries(target: &Path) -> Vec<String> {
    use std::os::unix::fs::MetadataExt;
    static SHELLS: OnceLock<Vec<((u64, u64), String)>> = OnceLock::new();
    let identity = |path: &Path| {
        std::fs::metadata(path)
            .ok()
            .map(|meta| (meta.dev(), meta.ino()))
    };
    let shells = SHELLS.get_or_init(|| {
        let text = std::fs::read_to_string("/etc/shells").unwrap_or_default();
        let mut seen = BTreeSet::new();
        text.lines()
            .map(str::trim)
            .filter(|l| l.starts_with('/'))
            .filter_map(|l| {
                let file = identity(Path::new(l))?;
                let name = program_name(l).to_owned();
                seen.insert((file, name.clone())).then_some((file, name))
            })
            .collect()
    });
    let Some(file) = identity(target) else {
        return Vec::new();
    };
    shells
        .iter()
        .filter(|(shell, _)| *shell == file)
        .map(|(_, name)| name.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    /// Every shell `/etc/shells` lists, reached through its canonical path
    /// (where links lead), is found under the name it is listed with; a
    /// program that is no shell is found under none.
    #[test]
    fn a_shell_is_found_under_its_listed_names_whatever_the_links() {
        let text = std::fs::read_to_string("/etc/shells").expect("this system lists its shells");
        let mut checked = 0;
        for line in text.lines().map(str::trim).filter(|l| l.starts_with('/')) {
            let Ok(canonical) = std::fs::canonicalize(line) else {
                continue;
            };
            let names = shell_entries(&canonical);
            assert!(
                names.iter().any(|n| n == program_name(line)),
                "{line} ({}) is listed but found as {names:?}",
                canonical.display()
            );
            checked += 1;
        }
        assert!(checked > 0, "no listed shell exists here: {text}");
        let not_a_shell = std::fs::canonicalize("/usr/bin/env").unwrap();
        assert_eq!(shell_entries(&not_a_shell), Vec::<String>::new());
    }
}
