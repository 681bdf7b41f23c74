//! Property tests: the tokenizer never panics, an accepted command runs as
//! exactly its words, and adding a name to the deny list never allows more.

use jig_exec_tool::{ExecTool, tokenize};
use jig_lineage::DenyList;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use crate::invariants::check_text;
use crate::support::Workspace;

/// Text made mostly of the characters a shell cares about.
fn shellish() -> impl Strategy<Value = String> {
    proptest::string::string_regex("[a-z0-9 \t;|&$`*?'\"\\\\(){}\\[\\]<>~#=,.!/\n-]{0,40}").unwrap()
}

/// One way of writing a word so that a POSIX shell reads it back.
#[derive(Debug, Clone, Copy)]
enum Quoting {
    Single,
    Double,
    Backslash,
}

fn quote(word: &str, quoting: Quoting) -> String {
    match quoting {
        Quoting::Single => format!("'{}'", word.replace('\'', "'\\''")),
        Quoting::Double => {
            let mut out = String::from("\"");
            for c in word.chars() {
                if matches!(c, '"' | '\\' | '$' | '`') {
                    out.push('\\');
                }
                out.push(c);
            }
            out.push('"');
            out
        }
        Quoting::Backslash if word.is_empty() => "''".to_owned(),
        Quoting::Backslash => {
            let mut out = String::new();
            for c in word.chars() {
                let ordinary = c.is_ascii_alphanumeric() || "-_./:@+%".contains(c);
                if !ordinary {
                    out.push('\\');
                }
                out.push(c);
            }
            out
        }
    }
}

fn quoting() -> impl Strategy<Value = Quoting> {
    prop_oneof![
        Just(Quoting::Single),
        Just(Quoting::Double),
        Just(Quoting::Backslash)
    ]
}

proptest! {
    // At least 2000 cases; PROPTEST_CASES raises it.
    #![proptest_config(Config { cases: Config::default().cases.max(2000), ..Config::default() })]

    #[test]
    fn tokenizer_and_scanner_never_panic(text in any::<String>()) {
        check_text(&text);
    }

    #[test]
    fn shellish_text_keeps_the_invariants(text in shellish()) {
        check_text(&text);
    }

    /// Words quoted any way and joined with any blanks come back exactly,
    /// and the scan accepts them (every special character is quoted).
    #[test]
    fn quoted_words_round_trip(
        words in proptest::collection::vec(
            ("[a-zA-Z0-9 ;|&$`*?'\"\\\\(){}<>~#=,.!/-]{0,8}", quoting()), 0..6),
        blanks in proptest::collection::vec("[ \t]{1,3}", 6),
    ) {
        let mut text = String::from("echo");
        let mut expected = vec!["echo".to_owned()];
        for (i, (word, quoting)) in words.iter().enumerate() {
            text.push_str(&blanks[i]);
            text.push_str(&quote(word, *quoting));
            expected.push(word.clone());
        }
        prop_assert_eq!(tokenize(&text).unwrap(), expected.clone());
        let parsed = ExecTool::parse(&text);
        prop_assert!(parsed.is_ok(), "{:?}: {:?}", text, parsed);
        prop_assert_eq!(parsed.unwrap().into_argv(), expected);
    }
}

/// Commands to judge, and programs to deny.
const COMMANDS: &[&str] = &[
    "ls -la",
    "cat README.md",
    "grep -rn TODO src",
    "git log -3",
    "git status",
    "find . -name x",
    "sed -n 1p README.md",
    "head -n 2 data.csv",
    "echo hi",
    "sort data.csv",
    "wc -l README.md",
    "rg TODO",
    "tree",
    "du -sh .",
    "diff README.md data.csv",
    "python3 --version",
    "cp a b",
    "tar -tf a.tar",
    "node -c a.js",
    "jq . a.json",
];
const PROGRAMS: &[&str] = &[
    "ls", "cat", "grep", "git", "find", "sed", "head", "echo", "sort", "wc", "rg", "tree", "du",
    "diff", "python3", "cp", "tar", "node", "jq", "LS", "bash",
];

#[test]
fn denying_more_never_allows_more() {
    let ws = Workspace::new();
    let allow = crate::support::any_allow(PROGRAMS.iter().copied());
    let mut runner = TestRunner::new(Config {
        cases: 500,
        source_file: Some(file!()),
        ..Config::default()
    });
    let strategy = (
        proptest::sample::select(COMMANDS),
        proptest::sample::subsequence(PROGRAMS, 0..4),
        proptest::sample::select(PROGRAMS),
        "( -[a-zA-Z]| [a-z./]{1,6}){0,3}",
    );
    runner
        .run(&strategy, |(command, denied, extra, suffix)| {
            let command = format!("{command}{suffix}");
            let base = DenyList::default().deny(denied.iter().copied());
            let smaller = ExecTool::builder()
                .allow(allow.clone())
                .deny(base.clone())
                .build();
            let bigger = ExecTool::builder()
                .allow(allow.clone())
                .deny(base.deny([extra]))
                .build();
            let before = ws.check(&smaller, &command);
            let after = ws.check(&bigger, &command);
            prop_assert!(
                !(before.is_err() && after.is_ok()),
                "{} allowed only with more denied",
                command
            );
            if let Ok(invocation) = &after {
                // What runs is exactly the words of the text.
                prop_assert_eq!(&invocation.argv, &tokenize(&command).unwrap());
            }
            Ok(())
        })
        .unwrap();
}

/// Any text, judged with every program of the tables allowed: the check
/// never panics, and what it accepts runs as exactly the text's words.
#[test]
fn checking_any_text_is_total() {
    let ws = Workspace::new();
    let programs: Vec<&str> = jig_programs::table_examples()
        .iter()
        .map(|e| e.program)
        .collect();
    let tool = ExecTool::builder()
        .allow(crate::support::any_allow(programs))
        .build();
    let mut runner = TestRunner::new(Config {
        cases: Config::default().cases.max(2000),
        source_file: Some(file!()),
        ..Config::default()
    });
    let words = proptest::sample::select(
        &[
            "git",
            "grep",
            "find",
            "sed",
            "tar",
            "ls",
            "node",
            "-c",
            "-e",
            "-r",
            "--",
            "-",
            "-C",
            "..",
            "/etc/passwd",
            "symlink_to_root",
            "fifo",
            "log",
            "'s/a/b/w x'",
            "-exec",
            "-name",
            "x",
            "--to-c=x",
            "-tf",
            "'1e id'",
            "-n",
            "1p",
            "src",
            "--output=o",
            "\\;",
            "'*'",
            "-i",
        ][..],
    );
    let strategy = proptest::collection::vec(words, 1..7);
    runner
        .run(&strategy, |words| {
            let text = words.join(" ");
            if let Ok(invocation) = ws.check(&tool, &text) {
                prop_assert_eq!(&invocation.argv, &tokenize(&text).unwrap());
            }
            check_text(&text);
            Ok(())
        })
        .unwrap();
}
