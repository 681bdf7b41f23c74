//! Layer 4's shape: one [`Spec`] per program (options, operands, extra
//! rules, examples), and the judging of an argv against it.
//!
//! Judging is pure (no I/O): it answers which arguments name files (confined
//! later, against the workspace), the command's class, and the environment
//! the run needs. The tables themselves live in [`crate::tables`].

use crate::class::CommandClass;
use crate::finding::Finding;
use crate::options::{Item, Role, Stop, Table, Unknown, Walk, walk};
use crate::tables;

/// What a program's operands (non-option arguments) are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operands {
    /// Every operand names a file. With none, the program reads standard
    /// input when `stdin` is set (refused: stdin is always empty here).
    Files {
        /// Whether the program reads stdin when given no file.
        stdin: bool,
    },
    /// Operands are not files (`echo`, `which`).
    Words,
    /// No operand is allowed; the text says why.
    Forbidden(&'static str),
    /// The spec's judge decides.
    Custom,
}

/// Extra judging beyond the table.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Judge {
    /// The table and the operand rule say everything.
    Standard,
    /// After the standard judging, more rules on the walk.
    Then(fn(&Ctx<'_>, &Walk, &mut Judged) -> Result<(), Finding>),
    /// The whole argv is judged by the function (find, git, tar...).
    Custom(fn(&Ctx<'_>, &[String]) -> Result<Judged, Finding>),
}

/// Everything jig knows about one program: its names, class, option
/// table, operand rule, extra rules, environment and examples. Opaque: use
/// [`judge`] and [`lookup`].
#[derive(Debug)]
pub struct Spec {
    /// Names it is run by (`grep`, `egrep`); a trailing version
    /// (`python3.11`, `gcc-12`) also matches.
    pub(crate) names: &'static [&'static str],
    /// Its class when the command is accepted.
    pub class: CommandClass,
    /// Its options.
    pub(crate) table: Table,
    /// Its operands.
    pub(crate) operands: Operands,
    /// Extra rules.
    pub(crate) judge: Judge,
    /// Variables every run of it gets (neutralizing configuration files).
    pub(crate) env: &'static [(&'static str, &'static str)],
    /// Commands the table must accept (checked by a test).
    pub(crate) allows: &'static [&'static str],
    /// Commands the table must refuse (checked by a test).
    pub(crate) refuses: &'static [&'static str],
}

impl Spec {
    /// The names the table covers (`grep`, `egrep`...), the first one
    /// naming the table in [`table_examples`](crate::table_examples).
    pub fn names(&self) -> &'static [&'static str] {
        self.names
    }

    /// The long options (`--lines`) the table accepts, as spelled in it, in
    /// table order: what a test compares with the program's own `--help`,
    /// so that a table never accepts an option the program does not have.
    pub fn accepted_long_options(&self) -> Vec<&'static str> {
        self.table
            .options
            .iter()
            .filter(|opt| !matches!(opt.role, Role::Refuse(_)))
            .flat_map(|opt| opt.spellings.split(' '))
            .filter(|spelling| spelling.starts_with("--"))
            .collect()
    }

    /// The short options (`-n`) the table accepts, as spelled in it, in
    /// table order: what a test compares with the program's own `--help`.
    pub fn accepted_short_options(&self) -> Vec<&'static str> {
        self.table
            .options
            .iter()
            .filter(|opt| !matches!(opt.role, Role::Refuse(_)))
            .flat_map(|opt| opt.spellings.split(' '))
            .filter(|spelling| {
                let mut chars = spelling.chars();
                chars.next() == Some('-')
                    && chars.next().is_some_and(|c| c != '-')
                    && chars.next().is_none()
            })
            .collect()
    }

    /// Whether the table refuses the options it does not list (fails
    /// closed) rather than taking them as flags.
    pub fn fails_closed(&self) -> bool {
        matches!(self.table.unknown, Unknown::Refuse(_))
    }
}

/// The program being judged and its spec.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ctx<'a> {
    /// The program as written (a bare name).
    pub(crate) program: &'a str,
    /// Its spec.
    pub(crate) spec: &'static Spec,
}

/// What judging found: the files to confine, the class, the environment.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Judged {
    /// The class of the accepted command.
    pub class: CommandClass,
    /// Arguments (or parts of them) that name files.
    pub paths: Vec<String>,
    /// Variables for the run.
    pub env: Vec<(String, String)>,
    /// For git: the `-C` folders, in order (the repository is looked up
    /// from there to neutralize its configuration).
    pub git_dirs: Option<Vec<String>>,
}

impl Judged {
    /// Nothing found yet.
    pub(crate) fn new(class: CommandClass) -> Self {
        Self {
            class,
            paths: Vec::new(),
            env: Vec::new(),
            git_dirs: None,
        }
    }

    /// Notes that `value` names a file read or written by `program`.
    pub(crate) fn path(&mut self, program: &str, value: &str) -> Result<(), Finding> {
        if value == "-" {
            return Err(Finding::Stdin {
                program: program.to_owned(),
            });
        }
        self.paths.push(value.to_owned());
        Ok(())
    }

    /// Notes the values of path options and the path-like text attached to
    /// unknown options.
    pub(crate) fn options(&mut self, program: &str, walk: &Walk) -> Result<(), Finding> {
        for item in &walk.items {
            match item {
                Item::Known {
                    opt,
                    value: Some(value),
                    ..
                } => match opt.role {
                    Role::Path => self.path(program, value)?,
                    // an empty part names no file (the program skips it)
                    Role::PathList(separator) => {
                        for part in value.split(separator).filter(|part| !part.is_empty()) {
                            self.path(program, part)?;
                        }
                    }
                    Role::Plain | Role::Refuse(_) => {}
                },
                Item::Unknown {
                    attached: Some(attached),
                    ..
                } => {
                    self.paths.extend(guess_paths(attached).map(str::to_owned));
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// The parts of an unknown option's attached text that may name a file:
/// the whole text when it holds a `/` or is `..`, and what follows a `:`
/// (`host:/etc/x`) when that holds a `/`.
pub(crate) fn guess_paths(text: &str) -> impl Iterator<Item = &str> {
    let whole = (text.contains('/') || text == "..").then_some(text);
    let after_colon = text
        .split_once(':')
        .map(|(_, after)| after)
        .filter(|after| after.contains('/'));
    whole.into_iter().chain(after_colon)
}

/// How a program name is treated.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Lookup {
    /// A program with a table.
    Spec(&'static Spec),
    /// A program that runs another program: always refused.
    Launcher,
    /// A program without a table: options taken as flags, every operand and
    /// every path-like option value confined.
    Generic,
}

/// Finds how `program` (a bare name) is treated.
pub fn lookup(program: &str) -> Lookup {
    let find = |name: &str| {
        if jig_lineage::LAUNCHERS.contains(&name) {
            return Some(Lookup::Launcher);
        }
        tables::SPECS
            .iter()
            .find(|spec| spec.names.contains(&name))
            .map(|spec| Lookup::Spec(spec))
    };
    // The most specific name of the versioned family that has a table
    // (`python3.11`, then `python3`, then `python`): the deny list's own
    // notion of a family.
    jig_lineage::family(program)
        .find_map(find)
        .unwrap_or(Lookup::Generic)
}

/// Judges `args` of `program` against its spec.
pub fn judge(program: &str, spec: &'static Spec, args: &[String]) -> Result<Judged, Finding> {
    let ctx = Ctx { program, spec };
    let mut judged = match spec.judge {
        Judge::Custom(custom) => custom(&ctx, args)?,
        Judge::Standard => standard(&ctx, args)?.1,
        Judge::Then(then) => {
            let (walk, mut judged) = standard(&ctx, args)?;
            then(&ctx, &walk, &mut judged)?;
            judged
        }
    };
    judged.env.extend(
        spec.env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
    );
    Ok(judged)
}

/// Judges a program without a table.
pub fn judge_generic(program: &str, args: &[String]) -> Result<Judged, Finding> {
    const GENERIC: Table = Table {
        options: &[],
        unknown: Unknown::Flag,
    };
    let walked = walk(program, &GENERIC, args, Stop::End)?;
    let mut judged = Judged::new(CommandClass::Other);
    judged.options(program, &walked)?;
    for operand in walked.operands() {
        judged.path(program, operand)?;
        // `@FILE` is a response file for many programs (binutils, gcc,
        // javac...): its arguments are read from FILE, which is confined too.
        if let Some(file) = operand.strip_prefix('@').filter(|f| !f.is_empty()) {
            judged.path(program, file)?;
        }
    }
    Ok(judged)
}

/// The table walk plus the operand rule.
pub(crate) fn standard(ctx: &Ctx<'_>, args: &[String]) -> Result<(Walk, Judged), Finding> {
    let walked = walk(ctx.program, &ctx.spec.table, args, Stop::End)?;
    let mut judged = Judged::new(ctx.spec.class);
    judged.options(ctx.program, &walked)?;
    operands(ctx, &walked, ctx.spec.operands, &mut judged)?;
    Ok((walked, judged))
}

/// Applies an operand rule to a walk.
pub(crate) fn operands(
    ctx: &Ctx<'_>,
    walked: &Walk,
    rule: Operands,
    judged: &mut Judged,
) -> Result<(), Finding> {
    match rule {
        Operands::Files { stdin } => {
            let mut any = false;
            for operand in walked.operands() {
                judged.path(ctx.program, operand)?;
                any = true;
            }
            let info = walked.has("--help") || walked.has("--version");
            if stdin && !any && !info {
                return Err(Finding::Stdin {
                    program: ctx.program.to_owned(),
                });
            }
        }
        Operands::Forbidden(why) => {
            if let Some(operand) = walked.operands().next() {
                return Err(Finding::operand(ctx.program, operand, why));
            }
        }
        Operands::Words | Operands::Custom => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versioned_names_find_their_familys_table() {
        let same = |a: Lookup, b: Lookup| match (a, b) {
            (Lookup::Spec(x), Lookup::Spec(y)) => std::ptr::eq(x, y),
            (Lookup::Launcher, Lookup::Launcher) | (Lookup::Generic, Lookup::Generic) => true,
            _ => false,
        };
        for (name, bare) in [
            ("python3.11", "python"),
            ("python3", "python"),
            ("pip3", "pip"),
            ("ls", "ls"),
            ("7z", "7z"),
        ] {
            assert!(same(lookup(name), lookup(bare)), "{name}");
        }
    }

    #[test]
    fn path_guesses() {
        let cases: &[(&str, &[&str])] = &[
            ("/etc/passwd", &["/etc/passwd"]),
            ("x:/etc", &["x:/etc", "/etc"]),
            ("../x", &["../x"]),
            ("a/b", &["a/b"]),
            ("..", &[".."]),
            ("plain", &[]),
            ("a:b", &[]),
        ];
        for (text, guesses) in cases {
            assert_eq!(guess_paths(text).collect::<Vec<_>>(), *guesses, "{text}");
        }
    }
}
