//! `jig audit`: the security reviewer's view of the whole lineage: for every
//! visible tool, its form, the binaries it can run, its fixed skeleton, its
//! slots and how much the model can vary.

use std::process::ExitCode;

use clap::{Args, ValueEnum};
use jig_lineage::{Tool, ToolAudit};
use serde_json::{Value, json};

use crate::error::{CliError, EXIT_OK, exit};
use crate::settings::Settings;

/// Arguments of `jig audit`.
#[derive(Debug, Args)]
pub(crate) struct AuditArgs {
    /// Text for a person, or JSON for a program
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Workspace options (also accepted before the subcommand).
    #[command(flatten)]
    pub(crate) load: crate::args::LoadArgs,

    /// Call options (also accepted before the subcommand).
    #[command(flatten)]
    pub(crate) run: crate::args::RunArgs,
}

/// How `jig audit` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// One block per tool
    Text,
    /// One JSON object
    Json,
}

/// Prints the audit of every visible tool.
pub(crate) fn run(settings: &Settings, args: &AuditArgs) -> Result<ExitCode, CliError> {
    let built = crate::preset::build(settings)?;
    let lifted = if built.lifted_programs.is_empty() {
        "none".to_owned()
    } else {
        format!(
            "{} (for command and descriptor tools; never the exec tool)",
            built.lifted_programs.join(", ")
        )
    };
    let registry = &built.registry;
    let tools: Vec<(&dyn Tool, ToolAudit)> = registry.tools().map(|t| (t, t.audit())).collect();
    let root = registry.kernel().root().display().to_string();
    let kernel = registry.kernel();
    let confinement = kernel.confinement();
    let containment = confinement.to_string();
    // Unknown when git could not list the repository's hooks folders and
    // submodules: the kernel's own are listed, and why writes are refused.
    let (protected, unknown) = match registry.protected_paths() {
        Ok(paths) => (paths, None),
        Err(why) => (kernel.read_only_paths().to_vec(), Some(why)),
    };
    let protected: Vec<String> = protected.iter().map(|p| p.display().to_string()).collect();
    let unknown_text = unknown.as_ref().map_or(String::new(), |why| {
        format!(
            "; the repository's hooks folders and submodules are unknown ({why}): every call \
             that may write is refused"
        )
    });
    let enforced = if confinement.protected_paths {
        "refused to every path argument of a call that may write, and read-only in every call \
         (mount namespace)"
    } else {
        "refused to every path argument of a call that may write (no mount namespace: a \
         program's own writes are not stopped there)"
    };
    let secrets = match (kernel.masks_files(), confinement.protected_paths) {
        (false, _) => "readable (dangerous_allow_secret_reads)",
        (true, true) => {
            "refused to every path argument, hidden behind /dev/null in the root and the \
             folders right below it"
        }
        (true, false) => {
            "refused to every path argument; a recursive search can still read them (no mount \
             namespace)"
        }
    };
    let git_env: Vec<String> = jig_programs::GIT_ENV
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let git_config: Vec<String> = jig_programs::GIT_CONFIG
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    match args.format {
        Format::Json => {
            let mut value = to_json(&root, &tools);
            value["run_point"] = json!({
                "checks": RUN_POINT_CHECKS,
                "hardening": {
                    "git": {
                        "env": git_env,
                        "config": git_config,
                        "per_repository": GIT_PER_REPOSITORY,
                    },
                },
            });
            value["containment"] = Value::String(containment);
            value["protected_paths"] = serde_json::json!(protected);
            if let Some(why) = &unknown {
                value["protected_paths_unknown"] = Value::String(why.clone());
            }
            value["lifted_deny_entries"] = serde_json::json!(built.lifted_programs);
            value["protected_enforcement"] = Value::String(enforced.to_owned());
            value["secret_files"] = Value::String(secrets.to_owned());
            super::print_json(&value)?
        }
        Format::Text => super::print_text(&format!(
            "containment: {containment}\nprotected paths: {}{unknown_text} ({enforced})\nsecret files (.env, .netrc, private keys...): {secrets}\nlifted deny-list entries: {lifted}\nrun point (every form's final argv): {}\nhardening added to every git run (environment only; the argv stays as written): {}; configuration {}; {GIT_PER_REPOSITORY}\n{}",
            protected.join(", "),
            RUN_POINT_CHECKS.join("; "),
            git_env.join(" "),
            git_config.join(" "),
            to_text(&root, &tools)
        ))?,
    }
    Ok(exit(EXIT_OK))
}

/// What the run point checks on every form's final argv, in order.
const RUN_POINT_CHECKS: &[&str] = &[
    "deny list by name, resolved target, versioned family, #! interpreter, /etc/shells, launcher subcommand, multi-call binary",
    "programs inside the workspace refused",
    "environment keys a tool may set: neutral ones and git's hardening only",
    "the program's table (jig-programs) on the final argv",
    "protected paths never written, secret files never read",
];

/// The part of git's hardening that depends on the repository.
const GIT_PER_REPOSITORY: &str = "per run: GIT_CEILING_DIRECTORIES above the workspace, \
     core.worktree pinned, and every key that names a program (drivers, filters, textconv, \
     external diff, pagers, credential helpers...) that git itself reports for the repository, \
     asked right before the run and overridden with a neutral value";

fn to_json(root: &str, tools: &[(&dyn Tool, ToolAudit)]) -> Value {
    json!({
        "root": root,
        "tools": tools.iter().map(|(tool, audit)| json!({
            "name": tool.name(),
            "form": audit.form.as_str(),
            "binaries": audit.binaries,
            "skeleton": audit.skeleton,
            "slots": audit.slots,
            "variability": audit.variability,
            "writes": audit.writes.as_str(),
        })).collect::<Vec<_>>(),
    })
}

fn to_text(root: &str, tools: &[(&dyn Tool, ToolAudit)]) -> String {
    let count = |form: &str| {
        tools
            .iter()
            .filter(|(_, a)| a.form.as_str() == form)
            .count()
    };
    let mut text = format!(
        "{} visible tools ({} command, {} descriptor, {} exec); every command runs in {root}\n",
        tools.len(),
        count("command"),
        count("descriptor"),
        count("exec"),
    );
    for (tool, audit) in tools {
        text.push('\n');
        text.push_str(&format!("{} ({} form)\n", tool.name(), audit.form.as_str()));
        text.push_str(&format!("  binaries:    {}\n", audit.binaries.join(", ")));
        text.push_str(&format!("  skeleton:    {}\n", audit.skeleton));
        if audit.slots.is_empty() {
            text.push_str("  slots:       none\n");
        }
        for (i, slot) in audit.slots.iter().enumerate() {
            let label = if i == 0 { "slots:" } else { "" };
            text.push_str(&format!("  {label:<12} {slot}\n"));
        }
        text.push_str(&format!("  variability: {}\n", audit.variability));
        text.push_str(&format!("  writes:      {}\n", audit.writes.describe()));
    }
    text
}
