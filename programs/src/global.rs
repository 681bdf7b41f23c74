//! Programs' global options: the options that come before a subcommand
//! (`git -C sub --no-pager log`, `cargo +nightly --locked build`). Rules
//! that name a subcommand match the argv with these walked past, so `git -C
//! . log --all` is the `git log --all` a rule names.

/// One global option: its spellings and whether it takes a value (in the
/// next word, or attached with `=`; short ones also glued, `-Cdir`).
struct Global {
    spellings: &'static [&'static str],
    value: bool,
}

const fn flag(spellings: &'static [&'static str]) -> Global {
    Global {
        spellings,
        value: false,
    }
}

const fn value(spellings: &'static [&'static str]) -> Global {
    Global {
        spellings,
        value: true,
    }
}

/// git's options before the subcommand (git(1), "OPTIONS").
const GIT: &[Global] = &[
    value(&["-C"]),
    value(&["-c"]),
    value(&["--config-env"]),
    value(&["--git-dir"]),
    value(&["--work-tree"]),
    value(&["--namespace"]),
    value(&["--super-prefix"]),
    value(&["--attr-source"]),
    value(&["--list-cmds"]),
    flag(&["--exec-path"]),
    flag(&["--html-path", "--man-path", "--info-path"]),
    flag(&["-p", "--paginate", "-P", "--no-pager"]),
    flag(&["--bare", "--no-replace-objects", "--no-lazy-fetch"]),
    flag(&["--no-optional-locks", "--no-advice"]),
    flag(&[
        "--literal-pathspecs",
        "--glob-pathspecs",
        "--noglob-pathspecs",
        "--icase-pathspecs",
    ]),
];

/// cargo's options before the subcommand (`cargo --help`).
const CARGO: &[Global] = &[
    value(&["-C"]),
    value(&["-Z"]),
    value(&["--config"]),
    value(&["--color"]),
    flag(&["-v", "-vv", "--verbose", "-q", "--quiet"]),
    flag(&["--locked", "--offline", "--frozen"]),
];

fn globals(program: &str) -> Option<&'static [Global]> {
    match program {
        "git" => Some(GIT),
        "cargo" => Some(CARGO),
        _ => None,
    }
}

/// `argv` with the program's global options removed (the program stays
/// first): `git -C sub --no-pager log --all` → `git log --all`, `cargo
/// +nightly --locked build` → `cargo build`. An argv of a program without
/// global options comes back as it is. Pure.
pub fn without_global_options(argv: &[String]) -> Vec<String> {
    let Some((program, args)) = argv.split_first() else {
        return Vec::new();
    };
    let name = jig_lineage::program_name(program);
    let Some(globals) = globals(name) else {
        return argv.to_vec();
    };
    let mut out = vec![program.clone()];
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if name == "cargo" && arg.starts_with('+') && i == 0 {
            i += 1;
            continue;
        }
        let Some(skip) = global_width(globals, arg) else {
            break;
        };
        i += skip;
    }
    out.extend(args.iter().skip(i).cloned());
    out
}

/// How many words the global option `arg` takes (1, or 2 with a separate
/// value), or `None` when `arg` is not one.
fn global_width(globals: &[Global], arg: &str) -> Option<usize> {
    for global in globals {
        for spelling in global.spellings {
            if arg == *spelling {
                return Some(if global.value { 2 } else { 1 });
            }
            if global.value {
                let attached = arg
                    .strip_prefix(spelling)
                    .is_some_and(|rest| rest.starts_with('=') || !spelling.starts_with("--"));
                if attached {
                    return Some(1);
                }
            } else if *spelling == "--exec-path" && arg.starts_with("--exec-path=") {
                return Some(1);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::without_global_options;

    fn strip(words: &str) -> String {
        let argv: Vec<String> = words.split(' ').map(str::to_owned).collect();
        without_global_options(&argv).join(" ")
    }

    #[test]
    fn global_options_are_walked_past() {
        assert_eq!(strip("git -C . log --all"), "git log --all");
        assert_eq!(strip("git --no-pager -C sub -c a=b log -p"), "git log -p");
        assert_eq!(strip("git -Csub --git-dir=x log"), "git log");
        assert_eq!(strip("git --work-tree x --bare status"), "git status");
        assert_eq!(strip("cargo +nightly --locked -Z x build"), "cargo build");
        assert_eq!(strip("git log -C x"), "git log -C x");
        assert_eq!(strip("grep -C 3 x f"), "grep -C 3 x f");
        assert_eq!(strip("git -C"), "git");
    }
}
