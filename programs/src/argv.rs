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
    /// Options the program honours that the run point adds to the argv
    /// (`sed --sandbox`, with which GNU sed itself refuses its `w`, `r` and
    /// `e` commands; `git status --ignore-submodules=all`), unless the argv
    /// already has them, at [`hardening_at`](Self::hardening_at).
    pub hardening: Vec<String>,
    /// How many words of the argv (the program included) stay before the
    /// [`hardening`](Self::hardening) options: 1 puts them right after the
    /// program name; for git they follow the subcommand.
    pub hardening_at: usize,
}

/// Options added to every run of a program, after its name: each one makes
/// the program itself refuse what its table refuses, so a gap in the table
/// is not a gap in the run. `(first name of the program's table, options)`.
pub const HARDENING_ARGS: &[(&str, &[&str])] = &[("sed", &["--sandbox"])];

/// Options added to git right after these subcommands, `(subcommand,
/// options)`:
///
/// - `--ignore-submodules=all` after those that compare the work tree with
///   the index and would otherwise look into a submodule by running git
///   there, with the submodule's own configuration (its drivers and
///   filters, which jig never asked git about). The repository can turn
///   that looking back on for one submodule (`submodule.<name>.ignore` in
///   `.gitmodules` or `.git/config` wins over `diff.ignoreSubmodules`);
///   only the command-line option wins over both, so git never enters a
///   submodule.
/// - `--no-ext-diff` and `--no-textconv` after those that print patches
///   (`blame`: `--no-textconv`): the external diff commands a repository
///   names (`diff.external`, `diff.<driver>.command`) are emptied at run
///   time ([`git_config_overrides`](crate::git_config_overrides)) and its
///   text conversions set to `cat`; git failed on an empty diff command
///   ("external diff died"), and contained, where only git may be
///   started, on `cat` ("cannot exec 'cat'"). With the options git prints
///   its own diff of the stored content, and runs nothing either way.
pub const GIT_HARDENING_ARGS: &[(&str, &[&str])] = &[
    ("status", &["--ignore-submodules=all"]),
    (
        "diff",
        &["--ignore-submodules=all", "--no-ext-diff", "--no-textconv"],
    ),
    (
        "diff-files",
        &["--ignore-submodules=all", "--no-ext-diff", "--no-textconv"],
    ),
    (
        "diff-index",
        &["--ignore-submodules=all", "--no-ext-diff", "--no-textconv"],
    ),
    ("diff-tree", &["--no-ext-diff", "--no-textconv"]),
    ("log", &["--no-ext-diff", "--no-textconv"]),
    ("show", &["--no-ext-diff", "--no-textconv"]),
    ("whatchanged", &["--no-ext-diff", "--no-textconv"]),
    ("blame", &["--no-textconv"]),
];

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
    let mut hardening = Vec::new();
    let mut hardening_at = 1;
    let (known, judged) = match spec::lookup(name) {
        Lookup::Launcher => {
            return Err(Finding::Launcher {
                program: name.to_owned(),
            });
        }
        Lookup::Spec(found) => {
            let first = found.names().first().copied().unwrap_or_default();
            hardening.extend(
                HARDENING_ARGS
                    .iter()
                    .filter(|(program, _)| *program == first)
                    .flat_map(|(_, options)| options.iter())
                    .filter(|option| !args.iter().any(|a| a == *option))
                    .map(|option| (*option).to_owned()),
            );
            let judged = spec::judge(name, found, args)?;
            if first == "git"
                && let Some(at) = crate::tables::git_subcommand_at(args)
                && let Some((_, options)) = args
                    .get(at)
                    .and_then(|sub| GIT_HARDENING_ARGS.iter().find(|(name, _)| name == sub))
            {
                hardening.extend(options.iter().map(|option| (*option).to_owned()));
                hardening_at = at + 2;
            }
            (true, judged)
        }
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
        hardening,
        hardening_at,
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

/// Judges the fixed part of a command template when it is loaded (a
/// descriptor's 613): `argv` is the template with each slot-bearing token
/// filled by a probe value, and `fixed[i]` says whether `argv[i]` is the
/// template's own literal text. The program's table judges the whole argv;
/// a refusal counts only when it names a fixed token (an option such as
/// `sed -i` or `find -delete`, a fixed script such as `1w/tmp/x`) or the
/// program itself (a launcher). Refusals that name a probe are left to the
/// run, where the real values are judged. Pure: no file is read.
pub fn judge_fixed(argv: &[String], fixed: &[bool]) -> Result<(), Finding> {
    let Some((program, args)) = argv.split_first() else {
        return Ok(());
    };
    let name = program_name(program);
    let spec = match spec::lookup(name) {
        Lookup::Launcher => {
            return Err(Finding::Launcher {
                program: name.to_owned(),
            });
        }
        Lookup::Spec(spec) => spec,
        Lookup::Generic => return Ok(()),
    };
    let Err(finding) = spec::judge(name, spec, args) else {
        return Ok(());
    };
    let is_fixed = |word: &str, option: bool| {
        argv.iter().zip(fixed).skip(1).any(|(token, &fixed)| {
            fixed
                && (token == word
                    || (option && word.starts_with('-') && token.starts_with(word))
                    || (option && bundled(token, word)))
        })
    };
    let names_fixed = match &finding {
        Finding::Option { option, .. } => is_fixed(option, true),
        Finding::Operand { operand, .. } => !operand.is_empty() && is_fixed(operand, false),
        Finding::Launcher { .. } => true,
        _ => false,
    };
    if names_fixed { Err(finding) } else { Ok(()) }
}

/// Whether the bundle of short flags `token` (`-ni`) holds the short
/// option `option` (`-i`).
fn bundled(token: &str, option: &str) -> bool {
    let (Some(flags), Some(letter)) = (token.strip_prefix('-'), option.strip_prefix('-')) else {
        return false;
    };
    !flags.starts_with('-') && letter.chars().count() == 1 && flags.contains(letter)
}

/// Values a `text` slot accepts (a phrase: spaces allowed) that a program
/// reading a language in that position runs as a command: a sed script
/// that writes a file or runs a command.
pub const LANGUAGE_PROBES: &[&str] = &["1w /tmp/jig-probe", "1e id", "1r /etc/passwd"];

/// Whether the program's table refuses `argv` because of the word at
/// `index` (the slot's position filled with a probe): the position is read
/// as the program's own language. Pure.
pub fn refuses_word(argv: &[String], index: usize) -> bool {
    let (Some((program, args)), Some(word)) = (argv.split_first(), argv.get(index)) else {
        return false;
    };
    let name = program_name(program);
    let Lookup::Spec(spec) = spec::lookup(name) else {
        return false;
    };
    match spec::judge(name, spec, args) {
        Err(Finding::Operand { operand, .. }) => operand == *word,
        Err(Finding::Option { option, .. }) => word.starts_with(option.as_str()),
        _ => false,
    }
}
