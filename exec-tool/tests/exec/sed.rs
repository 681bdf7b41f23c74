//! sed's allow-only grammar against the real program.
//!
//! - The oracle is GNU sed itself: `sed --debug` prints the program it
//!   parsed. For generated scripts, whenever the table accepts one, sed
//!   accepts it too and its program holds only accepted commands (no `w`,
//!   `W`, `r`, `R`, `e`, `v`, no `s///w` or `s///e`).
//! - The attacks of issue 16 are refused by the table, and, run for real
//!   under containment (with the run point's `--sandbox`, and without it),
//!   write no file, read no outside file and run no command. Run without
//!   containment or sandbox, they do: the attacks are real.
//! - The grammar never panics and reads in linear time.

use std::path::Path;
use std::time::{Duration, Instant};

use jig_exec_tool::ExecTool;
use jig_kernel::{Containment, Kernel};
use jig_programs::{Lookup, judge, lookup};
use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::json;

use crate::support::Workspace;

/// Whether the sed table accepts `sed ARGS... README.md`.
fn accepts(args: &[&str]) -> bool {
    let Lookup::Spec(spec) = lookup("sed") else {
        panic!("sed has a table")
    };
    let mut argv: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    argv.push("README.md".to_owned());
    judge("sed", spec, &argv).is_ok()
}

/// The commands GNU sed parsed from `scripts` (`sed --debug`), one line
/// of its `SED PROGRAM:` each (with the lines it continues on), without
/// indentation; or its error.
fn sed_program(options: &[&str], scripts: &[&str]) -> Result<Vec<String>, String> {
    // --sandbox: a script jig refuses may hold `w`, which opens its file
    // as soon as the script is read; and a scratch folder to run in. The
    // kernel runs it uncontained (containment is not what is tested here).
    let scratch = tempfile::tempdir().unwrap();
    let kernel = Kernel::builder(scratch.path())
        .dangerous_no_containment()
        .build()
        .unwrap();
    let mut argv = vec!["sed", "--debug", "--sandbox", "-n"];
    argv.extend_from_slice(options);
    for script in scripts {
        argv.extend(["-e", script]);
    }
    argv.push("/dev/null");
    let outcome = kernel.run(&argv).unwrap();
    let text = outcome.output.text();
    if outcome.exit_code() != Some(0) {
        return Err(text);
    }
    let program = text
        .split_once("SED PROGRAM:\n")
        .map(|(_, program)| program)
        .ok_or_else(|| format!("no program in {text:?}"))?;
    // Every command line is indented; a line that is not continues the
    // text of the previous one (a newline in a replacement or a `y`
    // string, the end of an `a` text).
    let mut lines: Vec<String> = Vec::new();
    for line in program.lines() {
        match lines.last_mut() {
            Some(last) if !line.starts_with("  ") => {
                last.push('\n');
                last.push_str(line);
            }
            _ => lines.push(line.trim_start().to_owned()),
        }
    }
    Ok(lines)
}

/// The command letter of one line of `sed --debug`'s program, and what
/// follows it: the line's addresses (printed with `/` delimiters, a `/`
/// inside escaped) are skipped up to the blank before the command.
fn command_of(line: &str) -> (char, &str) {
    let bytes = line.as_bytes();
    let mut i = 0;
    let mut addressed = false;
    while i < bytes.len() {
        match bytes[i] {
            b'/' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'/' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                addressed = true;
            }
            b'0'..=b'9' | b'$' | b'~' | b'+' | b',' => addressed = true,
            b'I' | b'M' if addressed => {}
            b'[' if line[i..].starts_with("[ADDR-NULL]") => i += "[ADDR-NULL]".len() - 1,
            b'!' => {}
            b' ' if addressed => {
                i += 1;
                break;
            }
            _ => break,
        }
        i += 1;
    }
    let rest = line.get(i..).unwrap_or_default();
    let mut chars = rest.chars();
    (chars.next().unwrap_or(' '), chars.as_str())
}

/// The flags GNU sed printed for an `s` command (`/RE/REPL/FLAGS`; it
/// escapes a `/` in the regex, not in the replacement): what follows the
/// last `/`. A `w FILE` flag would show as `wFILE`, `e` as `e`.
fn s_flags(after_s: &str) -> &str {
    after_s.rsplit_once('/').map_or(after_s, |(_, flags)| flags)
}

/// What glibc's regex compiler (and sed's check of `s` back-references)
/// says of a regular expression whose content is wrong, once sed has read
/// the script's structure as the table does: an interval or back-reference
/// with nothing before it, a range or class name glibc does not know. The
/// table reads where each regex ends, not what it matches (imitating
/// glibc's regex grammar would drift from it); sed refusing such a script
/// runs nothing. Errors of structure (an unmatched bracket, an unknown
/// command, an unterminated section) are not among these.
const REGEX_CONTENT_ERRORS: [&str; 8] = [
    "Invalid preceding regular expression",
    "Invalid back reference",
    "Invalid range end",
    "Invalid character class name",
    "Invalid collation character",
    "Invalid content of \\{\\}",
    "Unmatched \\{",
    "on `s' command's RHS",
];

/// Checks one program the table accepted against GNU sed's parse: sed
/// accepts it, and it holds only accepted commands; or sed refuses one of
/// its regular expressions for its content ([`REGEX_CONTENT_ERRORS`]).
fn check_with_sed(options: &[&str], scripts: &[&str]) -> Result<(), TestCaseError> {
    let program = sed_program(options, scripts);
    if let Err(error) = &program
        && REGEX_CONTENT_ERRORS
            .iter()
            .any(|known| error.contains(known))
    {
        return Ok(());
    }
    prop_assert!(
        program.is_ok(),
        "jig accepts {:?} {:?}; GNU sed refuses it: {:?}",
        options,
        scripts,
        program
    );
    for line in program.unwrap_or_default() {
        let (command, rest) = command_of(&line);
        prop_assert!(
            "{}=aicqQlpPdDnNgGhHxzFsy:btT".contains(command),
            "jig accepts {:?}; GNU sed parsed the command {:?} in {:?}",
            scripts,
            command,
            line
        );
        if command == 's' {
            let flags = s_flags(rest);
            prop_assert!(
                flags.chars().all(|f| "gpimIM0123456789".contains(f)),
                "jig accepts {:?}; GNU sed parsed the flags {:?} in {:?}",
                scripts,
                flags,
                line
            );
        }
    }
    Ok(())
}

/// First addresses (regexes without blanks, for [`command_of`]).
const FIRST: &[&str] = &[
    "", "", "", "1", "3", "$", "/a/", "/a.*b/I", "\\%x%", "/[/]/", "/[]/]/M", "0~2", "2~3",
    "/x/ I", "0", "12",
];
/// Second addresses, after the comma.
const SECOND: &[&str] = &[
    "", "", "5", "$", "+2", "~3", "/b/", "2~2", " /c/", "+0", "\\,y,",
];
/// Commands, accepted and not, whole and broken.
const COMMANDS: &[&str] = &[
    "p",
    "P",
    "=",
    "l",
    "l 5",
    "q",
    "q 3",
    "Q1",
    "d",
    "D",
    "n",
    "N",
    "g",
    "G",
    "h",
    "H",
    "x",
    "z",
    "F",
    "s/a/b/",
    "s/a/b/g",
    "s/[/]/x/2p",
    "s|a|\\||I",
    "s/a\\/b/c/ g",
    "s,x,y,mM",
    "s/a/b/w x",
    "s/a/b/e",
    "s/a/b/ w x",
    "s/a/b/0",
    "s/a/b",
    "s/[/x/",
    "y/ab/cd/",
    "y/a\\/b/c\\/d/",
    "y/ab/c/",
    "{p}",
    "{ s/a/b/; p }",
    "{",
    "}",
    "a text; w x",
    "i hi",
    "c bye",
    "a\\",
    "b",
    "t",
    "T",
    "b end",
    "bend",
    ":end",
    ":end w x",
    "b end w x",
    ":a r x",
    ":a e id",
    "w x",
    "W x",
    "r x",
    "R x",
    "e id",
    "v",
    "L",
    "k",
    "#c",
    "!p",
    "!!p",
    "p x",
];
/// Between commands.
const SEPARATORS: &[&str] = &[";", "\n", " ; ", ";;", " ", "", "}", "\t"];

/// A command built from the pieces above.
fn command() -> impl Strategy<Value = String> {
    (
        prop::sample::select(FIRST),
        prop::sample::select(SECOND),
        prop::bool::ANY,
        prop::sample::select(COMMANDS),
    )
        .prop_map(|(first, second, bang, command)| {
            let mut text = first.to_owned();
            if !first.is_empty() && !second.is_empty() {
                text.push(',');
                text.push_str(second);
            }
            if !first.is_empty() && bang {
                text.push('!');
            }
            text.push_str(command);
            text
        })
}

/// A script of a few commands.
fn script() -> impl Strategy<Value = String> {
    prop::collection::vec((command(), prop::sample::select(SEPARATORS)), 1..6).prop_map(|parts| {
        parts
            .into_iter()
            .map(|(command, separator)| command + separator)
            .collect()
    })
}

/// Text made of the bytes sed's grammar cares about.
fn soup() -> impl Strategy<Value = String> {
    proptest::string::string_regex("[abpwrexsyqlIMN0-9 \t\n;:{}#!,$~+/\\\\\\[\\]|%=.^-]{0,30}")
        .unwrap()
}

proptest! {
    #![proptest_config(Config { cases: Config::default().cases.max(768), ..Config::default() })]

    /// Whenever the table accepts a generated script, GNU sed parses it
    /// into accepted commands only.
    #[test]
    fn generated_scripts_agree_with_gnu_sed(script in script()) {
        if accepts(&["-n", &script]) {
            check_with_sed(&[], &[&script])?;
        }
    }

    /// The same for bytes thrown together, and for two `-e` scripts.
    #[test]
    fn soup_agrees_with_gnu_sed(first in soup(), second in soup()) {
        // Text that starts with `-` is options to sed (`-eaI` is `-e aI`),
        // to the table as to GNU sed, not a script: it is tried as a script
        // after `-e` below.
        if !first.starts_with('-') && accepts(&["-n", &first]) {
            check_with_sed(&[], &[&first])?;
        }
        if accepts(&["-n", "-e", &first, "-e", &second]) {
            check_with_sed(&[], &[&first, &second])?;
        }
    }

    /// With `--posix`, GNU sed refuses its extensions: the table too.
    #[test]
    fn posix_scripts_agree_with_gnu_sed(script in script()) {
        if accepts(&["--posix", "-n", &script]) {
            check_with_sed(&["--posix"], &[&script])?;
        }
    }

    /// The grammar never panics, whatever the script.
    #[test]
    fn any_script_is_judged(script in any::<String>(), more in soup()) {
        accepts(&["-n", &script]);
        accepts(&["-e", &more, "-e", &script]);
    }
}

/// Scripts the table accepts whose regular expression glibc refuses for
/// its content (found by the soup above, once in about 100,000 cases):
/// sed reads their structure as the table does and runs nothing.
#[test]
fn a_regex_glibc_refuses_runs_nothing() {
    for script in ["/\\{/aa", "\\=\\1==#", "s/a/\\1/p", "/[b-a]/p"] {
        assert!(accepts(&["-n", script]), "{script}");
        let refused = sed_program(&[], &[script]).unwrap_err();
        assert!(
            REGEX_CONTENT_ERRORS
                .iter()
                .any(|known| refused.contains(known)),
            "{script}: {refused}"
        );
    }
}

/// A script attached to its `-e` (`-eaI`: the command `a` with the text
/// `I`) is read as GNU sed reads it.
#[test]
fn a_script_attached_to_its_option_agrees_with_gnu_sed() {
    assert!(accepts(&["-n", "-eaI"]));
    check_with_sed(&["-eaI"], &[]).unwrap();
    assert!(!accepts(&["-n", "-e", "-eaI"]));
    assert!(sed_program(&[], &["-eaI"]).is_err());
}

/// The scripts the generators above build, enumerated: a fixed list of a
/// few hundred, so that a run always covers them.
#[test]
fn listed_scripts_agree_with_gnu_sed() {
    let mut accepted = 0;
    let mut sed_only = Vec::new();
    for first in FIRST {
        for command in COMMANDS {
            for separator in [";", "\n"] {
                let script = format!("{first}{command}{separator}p");
                if accepts(&["-n", &script]) {
                    accepted += 1;
                    check_with_sed(&[], &[&script]).unwrap();
                } else if sed_program(&[], &[&script]).is_ok() {
                    sed_only.push(script);
                }
            }
        }
    }
    println!(
        "sed scripts: {accepted} accepted by jig and GNU sed; {} accepted by GNU sed only",
        sed_only.len()
    );
    assert!(accepted > 300, "{accepted}");
}

/// The table's own examples hold the usual commands of agents, and GNU
/// sed reads every accepted one into accepted commands.
#[test]
fn the_tables_examples_agree_with_gnu_sed() {
    for example in jig_programs::table_examples() {
        if example.program != "sed" || !example.allowed {
            continue;
        }
        let words = jig_exec_tool::tokenize(example.command).unwrap();
        let args: Vec<&str> = words.iter().skip(1).map(String::as_str).collect();
        // The scripts: every -e, or the first operand.
        let mut scripts = Vec::new();
        let mut operands = Vec::new();
        let mut options = Vec::new();
        let mut iter = args.iter();
        while let Some(arg) = iter.next() {
            match *arg {
                "-e" => scripts.push(*iter.next().unwrap()),
                "-l" => {
                    iter.next();
                }
                _ if arg.starts_with("--expression=") => {
                    scripts.push(&arg["--expression=".len()..]);
                }
                "--posix" | "-E" | "-r" | "--regexp-extended" => options.push(*arg),
                _ if !arg.starts_with('-') => operands.push(*arg),
                _ => {}
            }
        }
        if scripts.is_empty() {
            match operands.first() {
                Some(script) => scripts.push(script),
                None => continue,
            }
        }
        check_with_sed(&options, &scripts).unwrap_or_else(|e| panic!("{}: {e}", example.command));
    }
}

/// A long script is judged in time proportional to its length.
#[test]
fn long_scripts_are_judged_in_linear_time() {
    for piece in [
        "s/[[[/]/x/;",
        "p;",
        "/a/,+3{",
        "b;",
        "#\n",
        "y/ab/cd/\n",
        "[[[[[[",
    ] {
        let long = piece.repeat(200_000 / piece.len());
        let started = Instant::now();
        accepts(&["-n", &long]);
        let elapsed = started.elapsed();
        assert!(
            elapsed < Duration::from_secs(2),
            "{piece:?}: {elapsed:?} for {} bytes",
            long.len()
        );
    }
}

/// The attacks of issue 16 and their kin. `{out}` is a folder outside the
/// workspace, `{secret}` a file there.
const ATTACKS: &[&str] = &[
    ":a w {out}/label-w",
    ":a r {secret}",
    ":a e echo PWNED$((6*7))",
    ":a\tw {out}/label-tab-w",
    "ba w {out}/branch-w\n:a",
    "s/o/0/w {out}/s-w",
    "s/.*/echo PWNED$((6*7))/ep",
    "1e echo PWNED$((6*7))",
    "0~1w {out}/step-w",
    "$!N;w {out}/n-w",
    "y/a/b/;w {out}/y-w",
    "1R {secret}",
    "W {out}/big-w",
    "$r {secret}",
];

/// What an attack may have done: written a marker in `out`, printed the
/// secret, or run a shell (which prints `PWNED42`).
fn effects(out: &Path, output: &str) -> Vec<String> {
    let mut found: Vec<String> = std::fs::read_dir(out)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != "secret")
        .map(|name| format!("wrote {name}"))
        .collect();
    if output.contains("SECRET_CANARY") {
        found.push("read the secret".to_owned());
    }
    if output.contains("PWNED42") {
        found.push("ran a command".to_owned());
    }
    found
}

fn attack_script(attack: &str, out: &Path) -> String {
    attack
        .replace("{out}", &out.display().to_string())
        .replace("{secret}", &out.join("secret").display().to_string())
}

#[test]
fn the_attacks_are_refused_and_contained() {
    let ws = Workspace::bare();
    let outside = tempfile::tempdir().unwrap();
    let out = outside.path();
    std::fs::write(out.join("secret"), "SECRET_CANARY\n").unwrap();
    let contained = Kernel::builder(ws.dir.path())
        .containment(Containment::required())
        .build()
        .unwrap();
    let tool = ExecTool::builder().build();
    let quote = |text: &str| format!("'{}'", text.replace('\'', "'\\''"));
    for attack in ATTACKS {
        let script = attack_script(attack, out);
        // The attack is real: GNU sed, uncontained, without --sandbox, does
        // what the script says.
        let open = ws
            .kernel
            .run(&["sed", "-n", script.as_str(), "README.md"])
            .unwrap();
        let done = effects(out, &open.output.text());
        assert!(
            !done.is_empty(),
            "{attack:?} has no effect: {}",
            open.render()
        );
        for entry in std::fs::read_dir(out).unwrap() {
            let path = entry.unwrap().path();
            if !path.ends_with("secret") {
                std::fs::remove_file(path).unwrap();
            }
        }
        // The table refuses it, and the exec tool does not run it.
        assert!(!accepts(&["-n", &script]), "{attack:?}");
        let command = format!("sed -n {} README.md", quote(&script));
        let result = crate::support::run_tool(&tool, &contained, &json!({ "command": command }));
        assert!(result.outcome().is_none(), "{attack:?}: {}", result.text());
        assert!(
            result.text().contains("615"),
            "{attack:?}: {}",
            result.text()
        );
        // Run anyway, contained: with the run point's --sandbox GNU sed
        // refuses it itself, and without it containment stops it.
        for hardening in [&["--sandbox"][..], &[]] {
            let mut argv = vec!["sed"];
            argv.extend_from_slice(hardening);
            argv.extend(["-n", script.as_str(), "README.md"]);
            let outcome = contained.run(&argv).unwrap();
            assert!(outcome.confinement.is_complete());
            let done = effects(out, &outcome.output.text());
            assert!(done.is_empty(), "{argv:?}: {done:?}: {}", outcome.render());
            if !hardening.is_empty() {
                assert_ne!(outcome.exit_code(), Some(0), "{}", outcome.render());
            }
        }
    }
}

/// The usual commands of agents run, contained, and print what sed prints.
#[test]
fn the_usual_commands_run_contained() {
    let ws = Workspace::bare();
    let kernel = Kernel::builder(ws.dir.path())
        .containment(Containment::required())
        .build()
        .unwrap();
    let tool = ExecTool::builder().build();
    for (command, expected) in [
        ("sed -n '2,3p' data.csv", "1,2\n3,4\n"),
        ("sed -n '/a,b/,/3/p' data.csv", "a,b\n1,2\n3,4\n"),
        ("sed 's/,/;/g' data.csv", "a;b\n1;2\n3;4\n"),
        ("sed -n '$p' data.csv", "3,4\n"),
        (
            "sed -E 's/([0-9]+)/<\\1>/g' data.csv",
            "a,b\n<1>,<2>\n<3>,<4>\n",
        ),
        ("sed '1d' data.csv", "1,2\n3,4\n"),
        ("sed -n '1~2p' data.csv", "a,b\n3,4\n"),
        ("sed = data.csv", "1\na,b\n2\n1,2\n3\n3,4\n"),
        ("sed ':a;N;$!ba;s/\\n/ /g' data.csv", "a,b 1,2 3,4\n"),
    ] {
        let result = crate::support::run_tool(&tool, &kernel, &json!({ "command": command }));
        let outcome = result
            .outcome()
            .unwrap_or_else(|| panic!("{command}: {}", result.text()));
        assert_eq!(
            outcome.exit_code(),
            Some(0),
            "{command}: {}",
            outcome.render()
        );
        assert_eq!(outcome.output.text(), expected, "{command}");
    }
}
