//! The exec tool's program tables applied to the final argv of any form,
//! for the run point (until the tables move to their own crate).

use jig_lineage::{CheckContext, ErrorCode, Refusal, confine_path, program_name};

use crate::finding::Finding;
use crate::gitenv::git_env;
use crate::spec::{self, Lookup};

/// What a program's table says of an argv it accepts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProgramVerdict {
    /// Whether a table knows the program (a program without one gets no
    /// verdict beyond the deny list here).
    pub known: bool,
    /// Whether the table classes the command as read-only.
    pub read_only: bool,
    /// Variables the run needs (git's configuration neutralized).
    pub env: Vec<(String, String)>,
    /// The arguments (or parts of them) that name files, as written; for a
    /// program without a table, every operand and path-like option value.
    pub paths: Vec<String>,
}

/// Judges `argv` (program first, as it will run) by its program's table:
/// options, script languages (sed scripts, find expressions, git
/// revisions) and the files they name, confined to the workspace; a
/// launcher is refused. Refusals are 622 (`run_refused`), layer `run.*`.
pub fn judge_argv(argv: &[String], context: &CheckContext<'_>) -> Result<ProgramVerdict, Refusal> {
    judge(argv, context).map_err(|finding| {
        let mut refusal = finding.into_refusal();
        refusal.code = ErrorCode::RunRefused;
        refusal.layer = refusal.layer.at_run_point();
        refusal.slot = None;
        refusal
    })
}

fn judge(argv: &[String], context: &CheckContext<'_>) -> Result<ProgramVerdict, Finding> {
    let Some((program, args)) = argv.split_first() else {
        return Err(Finding::Arguments {
            problem: "the command is empty".to_owned(),
        });
    };
    let name = program_name(program);
    let judged = match spec::lookup(name) {
        Lookup::Launcher => {
            return Err(Finding::Launcher {
                program: name.to_owned(),
            });
        }
        Lookup::Spec(found) => spec::judge(name, found, args)?,
        Lookup::Generic => {
            // No table: no verdict, but the operands are still reported so
            // that protected paths can be checked.
            let paths = spec::judge_generic(name, args)
                .map(|judged| judged.paths)
                .unwrap_or_default();
            return Ok(ProgramVerdict {
                known: false,
                read_only: false,
                env: Vec::new(),
                paths,
            });
        }
    };
    for value in &judged.paths {
        confine_path(context.root, value).map_err(|source| Finding::Path {
            program: name.to_owned(),
            source,
        })?;
    }
    let mut env = Vec::new();
    if let Some(dirs) = &judged.git_dirs {
        env.extend(git_env(context.root, dirs)?);
    }
    env.extend(judged.env.iter().cloned());
    Ok(ProgramVerdict {
        known: true,
        read_only: judged.class.is_read_only(),
        env,
        paths: judged.paths,
    })
}
