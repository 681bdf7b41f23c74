//! Reading an argv the way GNU `getopt_long` does, against a table of the
//! options one program knows.
//!
//! The walker handles the ways options hide: bundled short flags (`-rnf
//! file`), attached values (`-ffile`, `--file=x`), unambiguous abbreviations
//! of long options (`--to-comm`), options after operands (GNU permutes), and
//! `--`. Where it cannot be sure it errs toward checking more: an unknown
//! option is taken to have no value (so the next word is judged as an
//! operand), and any abbreviation that could stand for a refused option is
//! refused.

use crate::finding::Finding;

/// How many values an option takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arity {
    /// None.
    Flag,
    /// One, attached (`-n5`, `--lines=5`) or in the next word (`-n 5`).
    Value,
    /// One, only when attached (`-i.bak`, `--color=never`).
    Optional,
}

/// What an option's presence or value means for the checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// Nothing to check.
    Plain,
    /// The value names a file: it is confined to the workspace.
    Path,
    /// The value names files separated by this character (`file -m
    /// a.mgc:b.mgc`): each is confined to the workspace.
    PathList(char),
    /// The option is refused; the text says why and what to do instead.
    Refuse(&'static str),
}

/// One option of a program's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Opt {
    /// Space-separated spellings, the first one canonical: `"-f --file"`.
    pub(crate) spellings: &'static str,
    /// How many values it takes.
    pub(crate) arity: Arity,
    /// What it means for the checks.
    pub(crate) role: Role,
}

impl Opt {
    /// The canonical spelling.
    pub(crate) fn name(&self) -> &'static str {
        self.spellings.split(' ').next().unwrap_or(self.spellings)
    }

    fn spelled(&self) -> impl Iterator<Item = &'static str> {
        self.spellings.split(' ')
    }
}

/// An option without value.
pub(crate) const fn flag(spellings: &'static str) -> Opt {
    Opt {
        spellings,
        arity: Arity::Flag,
        role: Role::Plain,
    }
}

/// An option with a value that is not a file.
pub(crate) const fn value(spellings: &'static str) -> Opt {
    Opt {
        spellings,
        arity: Arity::Value,
        role: Role::Plain,
    }
}

/// An option with an optional attached value that is not a file.
pub(crate) const fn optional(spellings: &'static str) -> Opt {
    Opt {
        spellings,
        arity: Arity::Optional,
        role: Role::Plain,
    }
}

/// An option whose value names a file.
pub(crate) const fn path(spellings: &'static str) -> Opt {
    Opt {
        spellings,
        arity: Arity::Value,
        role: Role::Path,
    }
}

/// An option whose value names files separated by `separator`, each read
/// as a file by the program.
pub(crate) const fn path_list(spellings: &'static str, separator: char) -> Opt {
    Opt {
        spellings,
        arity: Arity::Value,
        role: Role::PathList(separator),
    }
}

/// A refused option; `why` completes "the option `-x` ...".
pub(crate) const fn refuse(spellings: &'static str, why: &'static str) -> Opt {
    Opt {
        spellings,
        arity: Arity::Flag,
        role: Role::Refuse(why),
    }
}

/// What to do with options the table does not list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unknown {
    /// Take them as flags without value; a value attached to them that
    /// looks like a path is still confined.
    Flag,
    /// Refuse them; the text completes "the option `-x` ...".
    Refuse(&'static str),
}

/// Where the walk stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// At the end (GNU style: options may follow operands).
    End,
    /// At the first operand (git's global options before the subcommand).
    FirstOperand,
}

/// One element of a walked argv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Item {
    /// An option from the table.
    Known {
        /// The table entry.
        opt: Opt,
        /// As written (`--to-comm`, `-f`).
        written: String,
        /// Its value, if it has one.
        value: Option<String>,
    },
    /// An option the table does not list (only with [`Unknown::Flag`]).
    Unknown {
        /// As written.
        written: String,
        /// Text attached to it that might be a value (`--x=v`, the rest of
        /// a short bundle after the unknown letter).
        attached: Option<String>,
    },
    /// A non-option argument.
    Operand(String),
}

/// The walk of one argv (without the program).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Walk {
    /// The options and operands, in order.
    pub(crate) items: Vec<Item>,
    /// Index (in the walked args) of the first word not walked
    /// ([`Stop::FirstOperand`]); the length of the args otherwise.
    pub(crate) rest: usize,
}

impl Walk {
    /// Whether an option with this canonical name is present.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.known(name).next().is_some()
    }

    /// The values of the options with this canonical name.
    pub(crate) fn known<'a>(&'a self, name: &'a str) -> impl Iterator<Item = Option<&'a str>> {
        self.items.iter().filter_map(move |item| match item {
            Item::Known { opt, value, .. } if opt.name() == name => Some(value.as_deref()),
            _ => None,
        })
    }

    /// The operands, in order.
    pub(crate) fn operands(&self) -> impl Iterator<Item = &str> {
        self.items.iter().filter_map(|item| match item {
            Item::Operand(text) => Some(text.as_str()),
            _ => None,
        })
    }
}

/// A program's option table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Table {
    /// The options.
    pub(crate) options: &'static [Opt],
    /// What to do with the others.
    pub(crate) unknown: Unknown,
}

impl Table {
    fn short(&self, c: char) -> Option<Opt> {
        self.options.iter().copied().find(|opt| {
            opt.spelled().any(|s| {
                let mut chars = s.chars();
                chars.next() == Some('-') && chars.next() == Some(c) && chars.next().is_none()
            })
        })
    }

    fn long_exact(&self, name: &str) -> Option<Opt> {
        self.options
            .iter()
            .copied()
            .find(|opt| opt.spelled().any(|s| s.strip_prefix("--") == Some(name)))
    }

    /// The long spellings that `name` abbreviates, with their options.
    fn long_prefixed<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Iterator<Item = (&'static str, Opt)> + 'a {
        self.options.iter().flat_map(move |opt| {
            opt.spelled()
                .filter_map(|s| s.strip_prefix("--"))
                .filter(move |long| long.starts_with(name))
                .map(move |long| (long, *opt))
        })
    }
}

/// Walks `args` (the argv without the program) against `table`.
///
/// An explicitly refused option ends the walk with its refusal; an unknown
/// option under [`Unknown::Refuse`] is refused only if no explicitly refused
/// option follows (that refusal says more).
pub(crate) fn walk(
    program: &str,
    table: &Table,
    args: &[String],
    stop: Stop,
) -> Result<Walk, Finding> {
    let mut items = Vec::new();
    let mut unknown: Option<Finding> = None;
    let mut note_unknown =
        |written: &str, items: &mut Vec<Item>, attached: Option<String>| match table.unknown {
            Unknown::Flag => items.push(Item::Unknown {
                written: written.to_owned(),
                attached,
            }),
            Unknown::Refuse(why) => {
                unknown.get_or_insert_with(|| Finding::option(program, written, why));
            }
        };
    let mut i = 0;
    let mut options_end = false;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if options_end || arg == "-" || !arg.starts_with('-') {
            if stop == Stop::FirstOperand {
                i -= 1;
                break;
            }
            items.push(Item::Operand(arg.clone()));
            continue;
        }
        if arg == "--" {
            options_end = true;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value.to_owned())),
                None => (long, None),
            };
            let opt = match table.long_exact(name) {
                Some(opt) => Some(opt),
                None => {
                    let candidates: Vec<_> = table.long_prefixed(name).collect();
                    let refused = candidates.iter().find_map(|(full, opt)| match opt.role {
                        Role::Refuse(why) => Some((full, why)),
                        _ => None,
                    });
                    if let Some((full, why)) = refused {
                        return Err(Finding::option(
                            program,
                            arg,
                            format!("(which can stand for --{full}) {why}"),
                        ));
                    }
                    match candidates.as_slice() {
                        [(_, opt)] => Some(*opt),
                        [(_, first), rest @ ..] if rest.iter().all(|(_, o)| o == first) => {
                            Some(*first)
                        }
                        _ => None,
                    }
                }
            };
            let Some(opt) = opt else {
                note_unknown(arg, &mut items, inline);
                continue;
            };
            if let Role::Refuse(why) = opt.role {
                return Err(Finding::option(program, arg, why));
            }
            let value = match (opt.arity, inline) {
                (Arity::Value, None) => {
                    i += 1;
                    args.get(i - 1).cloned()
                }
                (Arity::Flag, Some(inline)) => {
                    // `--flag=x`: the program will complain; still judge x.
                    items.push(Item::Unknown {
                        written: arg.clone(),
                        attached: Some(inline),
                    });
                    continue;
                }
                (_, inline) => inline,
            };
            items.push(Item::Known {
                opt,
                written: arg.clone(),
                value,
            });
            continue;
        }
        // A bundle of short options.
        let bundle = &arg[1..];
        for (at, c) in bundle.char_indices() {
            let rest = &bundle[at + c.len_utf8()..];
            let written = format!("-{c}");
            let Some(opt) = table.short(c) else {
                let attached = (!rest.is_empty()).then(|| rest.to_owned());
                // Refused unknown: name the whole word (`-wrapper` is one
                // option to its program, not `-w`).
                let shown = if matches!(table.unknown, Unknown::Refuse(_)) {
                    arg
                } else {
                    &written
                };
                note_unknown(shown, &mut items, attached);
                continue;
            };
            if let Role::Refuse(why) = opt.role {
                return Err(Finding::option(program, &written, why));
            }
            match opt.arity {
                Arity::Flag => items.push(Item::Known {
                    opt,
                    written,
                    value: None,
                }),
                Arity::Value | Arity::Optional => {
                    let value = if !rest.is_empty() {
                        Some(rest.to_owned())
                    } else if opt.arity == Arity::Value {
                        i += 1;
                        args.get(i - 1).cloned()
                    } else {
                        None
                    };
                    items.push(Item::Known {
                        opt,
                        written,
                        value,
                    });
                    break;
                }
            }
        }
    }
    if let Some(finding) = unknown {
        return Err(finding);
    }
    Ok(Walk {
        items,
        rest: i.min(args.len()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: Table = Table {
        options: &[
            flag("-r --recursive"),
            flag("-n --line-number"),
            value("-e --regexp"),
            path("-f --file"),
            optional("-i --in-place"),
            refuse("-x --to-command", "runs a command"),
            flag("--to-stdout"),
        ],
        unknown: Unknown::Flag,
    };

    fn run(args: &[&str]) -> Result<Walk, Finding> {
        let args: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
        walk("p", &TABLE, &args, Stop::End)
    }

    fn opts(walk: &Walk) -> Vec<(String, Option<String>)> {
        walk.items
            .iter()
            .filter_map(|item| match item {
                Item::Known { opt, value, .. } => Some((opt.name().to_owned(), value.clone())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn bundles_values_and_abbreviations() {
        let walked = run(&["-rnfpat", "a", "--reg=x", "--file", "f", "-i.bak", "b"]).unwrap();
        assert_eq!(
            opts(&walked),
            [
                ("-r".into(), None),
                ("-n".into(), None),
                ("-f".into(), Some("pat".into())),
                ("-e".into(), Some("x".into())),
                ("-f".into(), Some("f".into())),
                ("-i".into(), Some(".bak".into())),
            ]
        );
        assert_eq!(walked.operands().collect::<Vec<_>>(), ["a", "b"]);
    }

    #[test]
    fn double_dash_and_dash() {
        let walked = run(&["-r", "--", "-x", "-"]).unwrap();
        assert_eq!(walked.operands().collect::<Vec<_>>(), ["-x", "-"]);
    }

    #[test]
    fn refused_however_spelled() {
        for args in [
            &["-x"][..],
            &["-rx"],
            &["a", "--to-command=id"],
            &["--to-c=id"],
            &["--to=id"],
            &["--t"],
        ] {
            assert!(matches!(run(args), Err(Finding::Option { .. })), "{args:?}");
        }
        // Exact long names win over abbreviation.
        assert!(run(&["--to-stdout"]).is_ok());
    }

    #[test]
    fn unknown_options_take_no_value() {
        let walked = run(&["--weird", "/etc/passwd", "-Z/abs"]).unwrap();
        assert_eq!(walked.operands().collect::<Vec<_>>(), ["/etc/passwd"]);
        assert!(walked.items.contains(&Item::Unknown {
            written: "-Z".into(),
            attached: Some("/abs".into()),
        }));
    }
}
