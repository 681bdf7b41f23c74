//! The program tables applied to a whole argv: the exec tool's layer 4 and
//! the run point's check of every form's final argv share this.

use jig_lineage::{CheckContext, ErrorCode, Refusal, confine_path, program_name};

use crate::class::CommandClass;
use crate::finding::Finding;
use crate::gitenv::git_env;
use crate::spec::{self, Lookup};

/// What a program's table says of an argv it accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProgramVerdict {
    /// Whether a table knows the program (a program without one gets no
    /// verdict beyond its operands' confinement).
    pub known: bool,
    /// The command's class ([`CommandClass::Other`] without a table).
    pub class: CommandClass,
    /// Whether the table classes the command as read-only.
    pub read_only: bool,
    /// Variables the run needs (git's configuration neutralized, a table's
    /// own variables), in order.
    pub env: Vec<(String, String)>,
    /// The arguments (or parts of them) that name files, as written; for a
    /// program without a table, every operand and path-like option value.
    pub paths: Vec<String>,
}

/// How a program without a table is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Untabled {
    /// Every operand and path-like option value must stay inside the
    /// workspace (the exec tool, where the model wrote every word).
    Confine,
    /// Its operands are only reported, for the protected-path check (the
    /// run point on a template an integrator wrote, whose path slots the
    /// lineage already confined).
    Report,
}

/// Judges `argv` (program first, as it will run) by its program's table:
/// options, script languages (sed scripts, find expressions, git
/// revisions) and the files they name, confined to the workspace of
/// `context`; a launcher is refused. Git gets its neutralizing environment.
pub fn judge_command(
    argv: &[String],
    context: &CheckContext<'_>,
    untabled: Untabled,
) -> Result<ProgramVerdict, Finding> {
    let Some((program, args)) = argv.split_first() else {
        return Err(Finding::operand("", "", "the command is empty"));
    };
    let name = program_name(program);
    let (known, judged) = match spec::lookup(name) {
        Lookup::Launcher => {
            return Err(Finding::Launcher {
                program: name.to_owned(),
            });
        }
        Lookup::Spec(found) => (true, spec::judge(name, found, args)?),
        Lookup::Generic => match (spec::judge_generic(name, args), untabled) {
            (Ok(judged), _) => (false, judged),
            (Err(finding), Untabled::Confine) => return Err(finding),
            (Err(_), Untabled::Report) => (false, spec::Judged::new(CommandClass::Other)),
        },
    };
    if known || untabled == Untabled::Confine {
        for value in &judged.paths {
            confine_path(context.root, value).map_err(|source| Finding::Path {
                program: name.to_owned(),
                source,
            })?;
        }
    }
    let mut env = Vec::new();
    if let Some(dirs) = &judged.git_dirs {
        env.extend(git_env(context.root, dirs)?);
    }
    env.extend(judged.env.iter().cloned());
    Ok(ProgramVerdict {
        known,
        class: judged.class,
        read_only: judged.class.is_read_only(),
        env,
        paths: judged.paths,
    })
}

/// [`judge_command`] for the run point: a program without a table only has
/// its operands reported, and a refusal is 622 (`run_refused`) at the
/// `run.*` layer ([`Layer::at_run_point`](jig_lineage::Layer::at_run_point)).
pub fn judge_argv(argv: &[String], context: &CheckContext<'_>) -> Result<ProgramVerdict, Refusal> {
    judge_command(argv, context, Untabled::Report).map_err(|finding| {
        let mut refusal = finding.into_refusal(ErrorCode::RunRefused);
        refusal.layer = refusal.layer.at_run_point();
        refusal
    })
}
