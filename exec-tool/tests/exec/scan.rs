//! Layer 3: tokenizing and the operator scan.

use jig_exec_tool::{ExecTool, tokenize};

use crate::support::render;

#[test]
fn tokenizer_follows_posix_quoting() {
    let cases: &[(&str, &[&str])] = &[
        ("ls", &["ls"]),
        ("  ls   -la  ", &["ls", "-la"]),
        ("a 'b c' \"d e\" f\\ g", &["a", "b c", "d e", "f g"]),
        ("a 'it'\\''s'", &["a", "it's"]),
        ("a \"x\\\"y\" \"\\\\\" \"\\a\"", &["a", "x\"y", "\\", "\\a"]),
        ("a '' \"\" ''\"\"", &["a", "", "", ""]),
        ("a 'x\"y' \"x'y\"", &["a", "x\"y", "x'y"]),
        ("a\tb", &["a", "b"]),
        ("a;b", &["a", ";", "b"]),
        (
            "a | b || c && d & e",
            &["a", "|", "b", "||", "c", "&&", "d", "&", "e"],
        ),
        (
            "a >> b 2>&1 < c <<< d",
            &["a", ">>", "b", "2", ">&", "1", "<", "c", "<<<", "d"],
        ),
        ("a # comment ; x", &["a"]),
        ("a#b", &["a#b"]),
        ("(a)", &["(", "a", ")"]),
        ("a \\; \\|", &["a", ";", "|"]),
        ("é 'ü'", &["é", "ü"]),
    ];
    for (input, words) in cases {
        assert_eq!(tokenize(input).unwrap(), *words, "{input:?}");
    }
    for unclosed in ["a 'b", "a \"b", "a \\", "a \"b\\\""] {
        let refusal = tokenize(unclosed).unwrap_err();
        assert_eq!(refusal.layer.as_str(), "exec.operator", "{unclosed:?}");
    }
}

/// Commands the scan accepts, and the argv each becomes.
#[test]
fn accepted_commands_become_their_words() {
    let cases: &[(&str, &[&str])] = &[
        ("grep -rn 'a|b' src", &["grep", "-rn", "a|b", "src"]),
        (
            "find . -name '*.rs' -o -name \"*.toml\"",
            &["find", ".", "-name", "*.rs", "-o", "-name", "*.toml"],
        ),
        (
            "find . \\( -name a \\) -exec x {} \\;",
            &["find", ".", "(", "-name", "a", ")", "-exec", "x", "{}", ";"],
        ),
        ("sed -n '$p' f", &["sed", "-n", "$p", "f"]),
        (
            "echo 'a;b' \"c&d\" 'e>f' '$(x)' '`y`'",
            &["echo", "a;b", "c&d", "e>f", "$(x)", "`y`"],
        ),
        (
            "git log HEAD@{1} --format=%h",
            &["git", "log", "HEAD@{1}", "--format=%h"],
        ),
        ("echo a=b x~y", &["echo", "a=b", "x~y"]),
        ("echo \"\\$HOME\"", &["echo", "$HOME"]),
        ("ls\t-la", &["ls", "-la"]),
        ("echo 'tab\there'", &["echo", "tab\there"]),
        ("echo ！ ｃat", &["echo", "！", "ｃat"]),
    ];
    for (input, argv) in cases {
        let parsed = ExecTool::parse(input).unwrap_or_else(|r| panic!("{input:?}: {r}"));
        assert_eq!(parsed.argv(), *argv, "{input:?}");
        assert_eq!(tokenize(input).unwrap(), *argv, "{input:?}");
    }
}

/// Everything a shell would read differently, each refused by layer 3.
const REFUSED: &[&str] = &[
    "",
    "   ",
    "ls; id",
    "ls && id",
    "ls&&id",
    "ls || id",
    "ls | sh",
    "ls |& sh",
    "ls & id",
    "nohup sleep 120 > /dev/null &",
    "echo x > out.txt",
    "echo x >> ~/.bashrc",
    "ls 2>&1",
    "cat < /etc/passwd",
    "cat <<< secret",
    "cat << EOF",
    "diff <(ls) <(id)",
    "(id)",
    "ls\nid",
    "ls\r\nid",
    "ls #; id",
    "ls $(id)",
    "ls $HOME",
    "ls ${HOME}",
    "cat${IFS}/etc/passwd",
    "cat ${HOME:0:1}etc${HOME:0:1}passwd",
    "echo \"$(id)\"",
    "echo \"a $b\"",
    "echo $'\\x41'",
    "who$@ami",
    "who$()ami",
    "ls `id`",
    "echo \"`id`\"",
    "cat `echo -e \"\\x2f\\x65\\x74\\x63\"`",
    "ls *.rs",
    "/???/??t /???/p??s??",
    "ls [ab]",
    "{cat,/etc/passwd}",
    "echo {1..3}",
    "echo a{b,c}",
    "cat ~/.ssh/id_rsa",
    "ls --dir=~/x",
    "ls a:~/x",
    "w\\ho\\am\\i",
    "/\\b\\i\\n/////s\\h",
    "'ls' -la",
    "l\"s\" -la",
    "PAGER='sh -c id' git -p help",
    "LD_PRELOAD=./x.so ls",
    "A=1",
    ". ./payload.sh",
    "source x",
    "eval id",
    "exec id",
    "cd /",
    "! ls",
    "if true",
    "echo a\u{0007}b",
    "echo 'a\u{0000}b'",
    "echo a\u{200B}b",
    "echo 'a\u{202E}b'",
    "cat README.md\u{00A0}/etc/passwd",
    "echo 'unclosed",
    "echo trailing\\",
];

#[test]
fn operator_scan_refusals() {
    let cases: Vec<_> = REFUSED
        .iter()
        .map(|command| {
            (
                *command,
                ExecTool::parse(command).map(|p| jig_lineage::Invocation::new(p.into_argv())),
            )
        })
        .collect();
    for (command, result) in &cases {
        let refusal = result
            .as_ref()
            .err()
            .unwrap_or_else(|| panic!("accepted: {command:?}"));
        assert_eq!(refusal.layer.as_str(), "exec.operator", "{command:?}");
        assert_eq!(refusal.code.code(), 615, "{command:?}");
    }
    insta::assert_snapshot!("operator_refusals", render(&cases));
}

/// One classifier for slots and commands: every code point the lineage
/// calls invisible is refused in an exec command, quoted or not (the
/// Unicode tag block among them), and ordinary letters of every script
/// pass.
#[test]
fn every_invisible_code_point_is_refused_in_a_command() {
    let mut invisible = 0;
    for c in (0..=0x10FFFF_u32).filter_map(char::from_u32) {
        if !jig_lineage::is_invisible(c) || c == '\t' || c == '\n' {
            continue;
        }
        invisible += 1;
        for command in [format!("grep a{c}b notes"), format!("grep 'a{c}b' notes")] {
            assert!(
                ExecTool::parse(&command).is_err(),
                "U+{:04X} passed in {command:?}",
                u32::from(c)
            );
        }
    }
    assert!(invisible > 4000, "{invisible} invisible code points");
    assert!(ExecTool::parse("grep \u{E0041} notes").is_err());
    for visible in [
        "grep café notes",
        "grep 日本 notes",
        "grep Ωμέγα notes",
        "grep ok😀 notes",
    ] {
        assert!(ExecTool::parse(visible).is_ok(), "{visible}");
    }
}
