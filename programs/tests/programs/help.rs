//! The oracle for the fail-closed tables is the real program: every long
//! and every short option a converted table accepts appears in the
//! program's own `--help` on this machine (GNU coreutils, GNU grep, GNU
//! findutils, file, ripgrep, tree, GNU tar, GNU patch, jq, Info-ZIP zip),
//! so a table never accepts an option the program does not have. A program
//! that is not installed fails the test loudly (CI installs ripgrep and
//! tree in `.ci/run`).

use jig_programs::{Lookup, lookup};

/// The converted tables: `(program, how its help is asked for)`.
const PROGRAMS: &[(&str, &[&str])] = &[
    ("ls", &["--help"]),
    ("cat", &["--help"]),
    ("head", &["--help"]),
    ("tail", &["--help"]),
    ("wc", &["--help"]),
    ("sort", &["--help"]),
    ("uniq", &["--help"]),
    ("cut", &["--help"]),
    ("nl", &["--help"]),
    ("stat", &["--help"]),
    ("file", &["--help"]),
    ("diff", &["--help"]),
    ("du", &["--help"]),
    ("tree", &["--help"]),
    ("grep", &["--help"]),
    ("rg", &["--help"]),
    ("find", &["--help"]),
    ("echo", &["--help"]),
    ("tar", &["--help"]),
    ("pwd", &["--help"]),
    ("cp", &["--help"]),
    ("mv", &["--help"]),
    ("mkdir", &["--help"]),
    ("touch", &["--help"]),
    ("tee", &["--help"]),
    // The encoders share one table; basenc's help lists every encoding.
    ("basenc", &["--help"]),
    ("jq", &["--help"]),
    ("patch", &["--help"]),
    // Info-ZIP zip lists every option, short and long, with `-so`.
    ("zip", &["-so"]),
];

/// The program's help text (standard output and error together: some
/// programs print it on error). `/bin/echo` and `/usr/bin/pwd`, not the
/// shell's builtins, are what the exec tool runs.
fn help(program: &str, args: &[&str]) -> String {
    #[expect(
        clippy::disallowed_methods,
        reason = "the oracle is the real program's own --help"
    )]
    let output = std::process::Command::new(program)
        .args(args)
        .env("LC_ALL", "C")
        .output()
        .unwrap_or_else(|e| {
            panic!("{program} is not installed here ({e}): the oracle needs the real program")
        });
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    if program == "zip" {
        return zip_options(&text);
    }
    expand_diff_templates(&text)
}

/// Info-ZIP's `zip -so` prints one option a line as `SHORT LONG ...`,
/// without dashes (a line without a short name starts with blanks): spell
/// them as `-S --LONG`.
fn zip_options(text: &str) -> String {
    let mut spelled = String::from("--help\n");
    for line in text.lines().skip(3) {
        let short = line.get(1..4).unwrap_or_default().trim();
        let long = line.get(5..24).unwrap_or_default().trim();
        if !short.is_empty() {
            spelled.push_str(&format!("-{short}\n"));
        }
        if !long.is_empty() {
            spelled.push_str(&format!("--{long}\n"));
        }
    }
    spelled
}

/// GNU diff names its format options by template (`--LTYPE-line-format`,
/// `--GTYPE-group-format`) and then lists the types: spell them out.
fn expand_diff_templates(text: &str) -> String {
    let mut text = text.to_owned();
    let types = "LTYPE is 'old', 'new', or 'unchanged'.  GTYPE is LTYPE or 'changed'.";
    if text.contains(types) {
        for ltype in ["old", "new", "unchanged"] {
            if text.contains("--LTYPE-line-format") {
                text.push_str(&format!("\n--{ltype}-line-format\n"));
            }
        }
        for gtype in ["old", "new", "unchanged", "changed"] {
            if text.contains("--GTYPE-group-format") {
                text.push_str(&format!("\n--{gtype}-group-format\n"));
            }
        }
    }
    text
}

/// Whether `option` is named in `help` as a whole word (`--line` does not
/// match inside `--line-number`).
fn names(help: &str, option: &str) -> bool {
    help.match_indices(option).any(|(at, _)| {
        let before = help[..at].chars().next_back();
        let after = help[at + option.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '-')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_')
    })
}

#[test]
fn every_accepted_option_is_in_the_programs_help() {
    let mut invented = Vec::new();
    for (program, args) in PROGRAMS {
        let Lookup::Spec(spec) = lookup(program) else {
            panic!("{program} has no table");
        };
        assert!(
            spec.fails_closed(),
            "{program}: its table does not fail closed"
        );
        let text = help(program, args);
        assert!(
            text.contains("--help") || text.contains("Usage") || text.contains("usage"),
            "{program}: no help text came back:\n{text}"
        );
        let options = spec.accepted_long_options();
        let short = spec.accepted_short_options();
        for option in options.into_iter().chain(short) {
            // `-5` where the help says `-NUM` (grep's context).
            let digit = option.len() == 2 && option.as_bytes()[1].is_ascii_digit();
            let named = names(&text, option) || (digit && names(&text, "-NUM"));
            if !named {
                invented.push(format!("{program} {option}"));
            }
        }
    }
    assert!(
        invented.is_empty(),
        "options the tables accept that the programs' help does not name:\n{}",
        invented.join("\n")
    );
}

#[test]
fn which_takes_only_dash_a() {
    // debianutils `which` has no --help: its usage line is the oracle.
    let Lookup::Spec(spec) = lookup("which") else {
        panic!("which has a table");
    };
    assert!(spec.fails_closed());
    assert!(spec.accepted_long_options().is_empty());
    assert_eq!(spec.accepted_short_options(), ["-a"]);
    let text = help("which", &["-h"]);
    assert!(text.contains("[-a]"), "which's usage changed:\n{text}");
}

#[test]
fn the_matcher_takes_whole_options_only() {
    assert!(names("  -n, --line-number  x", "--line-number"));
    assert!(!names("  -n, --line-number  x", "--line"));
    assert!(names("--color[=WHEN]", "--color"));
    assert!(names("--files0-from=F", "--files0-from"));
    assert!(!names("--no-ignore-vcs", "--ignore-vcs"));
    assert!(names("  -n, --lines=NUM", "-n"));
    assert!(!names("  --no-dereference", "-n"));
    assert!(!names("  -nw  x", "-n"));
}

#[test]
fn zip_options_are_spelt_out() {
    let text = " sh  long               val  neg description\n --  ----               ---  --- ----\n\n 0   store                       store\n TT  unzip-command      req      unzip command\n     version                     (if no other args)\n";
    let spelled = zip_options(text);
    for option in ["-0", "--store", "-TT", "--unzip-command", "--version"] {
        assert!(names(&spelled, option), "{option}: {spelled}");
    }
}

/// The tables document themselves: every option a fail-closed table
/// accepts appears in one of the commands it promises to allow (a long
/// option spelt out, possibly abbreviated or with `=VALUE`; a short one
/// alone or in a bundle of short letters).
#[test]
fn every_accepted_option_has_an_allowed_example() {
    let examples = jig_programs::table_examples();
    let mut missing = Vec::new();
    for (program, _) in PROGRAMS.iter().chain(&[("which", &[][..])]) {
        let Lookup::Spec(spec) = lookup(program) else {
            panic!("{program} has no table");
        };
        let first = spec.names()[0];
        let words: Vec<&str> = examples
            .iter()
            .filter(|e| e.program == first && e.allowed)
            .flat_map(|e| e.command.split_whitespace())
            .collect();
        for option in spec.accepted_long_options() {
            let used = words
                .iter()
                .any(|w| *w == option || w.starts_with(&format!("{option}=")));
            if !used {
                missing.push(format!("{program} {option}"));
            }
        }
        for option in spec.accepted_short_options() {
            let letter = &option[1..];
            let used = words
                .iter()
                .any(|w| w.starts_with('-') && !w.starts_with("--") && w[1..].contains(letter));
            if !used {
                missing.push(format!("{program} {option}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "options the tables accept without an allowed example:\n{}",
        missing.join("\n")
    );
}
