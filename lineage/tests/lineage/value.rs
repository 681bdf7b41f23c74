//! Slot values: each rule of the validation order, table-driven, with every
//! 614 message snapshotted.

use serde_json::{Value, json};

use crate::{Workspace, build};
use jig_lineage::{CommandSpec, CommandTool, ErrorCode, SlotSpec};

/// A tool with one slot of each kind of rule.
fn probe() -> CommandTool {
    build(
        CommandSpec::new(
            "probe",
            "Exercises every slot rule",
            "probe {text} {count} {file} {mode} {range}p {opt}",
        )
        .slot("text", SlotSpec::string("Text to search for").required())
        .slot("count", SlotSpec::number("How many lines").with_default(10))
        .slot("file", SlotSpec::path("File to read").with_default("."))
        .slot(
            "mode",
            SlotSpec::string("Speed")
                .with_enum(["fast", "slow"])
                .with_default("fast"),
        )
        .slot(
            "range",
            SlotSpec::string("Line or range, such as 5 or 1,20")
                .with_pattern(r"[0-9]+(,[0-9]+)?")
                .with_default("1"),
        )
        .slot(
            "opt",
            SlotSpec::string("An option")
                .dangerous_allow_leading_dash()
                .with_default("-v"),
        ),
    )
}

fn argv(text: &str, count: &str, file: &str, mode: &str, range: &str, opt: &str) -> Vec<String> {
    ["probe", text, count, file, mode, &format!("{range}p"), opt]
        .iter()
        .map(|s| (*s).to_owned())
        .collect()
}

#[test]
fn accepted_values() {
    let ws = Workspace::new();
    let tool = probe();
    let cases: Vec<(Value, Vec<String>)> = vec![
        (
            json!({"text": "TODO"}),
            argv("TODO", "10", ".", "fast", "1", "-v"),
        ),
        (
            json!({"text": 42}),
            argv("42", "10", ".", "fast", "1", "-v"),
        ),
        (
            json!({"text": true}),
            argv("true", "10", ".", "fast", "1", "-v"),
        ),
        (
            json!({"text": "x", "count": "5000"}),
            argv("x", "5000", ".", "fast", "1", "-v"),
        ),
        (
            json!({"text": "x", "count": " 7 "}),
            argv("x", "7", ".", "fast", "1", "-v"),
        ),
        (
            json!({"text": "x", "count": 2.5}),
            argv("x", "2.5", ".", "fast", "1", "-v"),
        ),
        (
            json!({"text": "x", "count": 3.0}),
            argv("x", "3", ".", "fast", "1", "-v"),
        ),
        (
            json!({"text": "x", "count": "1e3"}),
            argv("x", "1000", ".", "fast", "1", "-v"),
        ),
        (
            json!({"text": "x", "count": null}),
            argv("x", "10", ".", "fast", "1", "-v"),
        ),
        (
            json!({"text": "x", "file": "src/main.rs"}),
            argv("x", "10", "src/main.rs", "fast", "1", "-v"),
        ),
        (
            json!({"text": "x", "file": "new/not-yet.txt"}),
            argv("x", "10", "new/not-yet.txt", "fast", "1", "-v"),
        ),
        (
            json!({"text": "x", "file": "./-dash"}),
            argv("x", "10", "./-dash", "fast", "1", "-v"),
        ),
        (
            json!({"text": "x", "mode": "slow"}),
            argv("x", "10", ".", "slow", "1", "-v"),
        ),
        (
            json!({"text": "x", "range": "1,20"}),
            argv("x", "10", ".", "fast", "1,20", "-v"),
        ),
        (
            json!({"text": "x", "opt": "--color=never"}),
            argv("x", "10", ".", "fast", "1", "--color=never"),
        ),
        (json!({"text": ""}), argv("", "10", ".", "fast", "1", "-v")),
        (
            json!({"text": "caf\u{e9}"}),
            argv("caf\u{e9}", "10", ".", "fast", "1", "-v"),
        ),
    ];
    for (arguments, expected) in cases {
        let invocation = tool
            .check_in(&arguments, &ws.root)
            .unwrap_or_else(|r| panic!("{arguments}: {r}"));
        assert_eq!(invocation.argv, expected, "{arguments}");
        assert!(!invocation.read_only);
    }
}

#[test]
fn refused_values() {
    let ws = Workspace::new();
    let tool = probe();
    // (rule, arguments, slot at fault)
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "unknown argument",
            json!({"text": "x", "colour": "red"}),
            "colour",
        ),
        (
            "unknown argument before missing",
            json!({"txt": "x"}),
            "txt",
        ),
        ("required", json!({}), "text"),
        ("required, null", json!({"text": null}), "text"),
        ("required before type", json!({"count": "abc"}), "text"),
        (
            "type: number from text",
            json!({"text": "x", "count": "abc"}),
            "count",
        ),
        (
            "type: number from NaN text",
            json!({"text": "x", "count": "NaN"}),
            "count",
        ),
        (
            "type: number from bool",
            json!({"text": "x", "count": true}),
            "count",
        ),
        (
            "type: string from array",
            json!({"text": ["a", "b"]}),
            "text",
        ),
        (
            "type: string from object",
            json!({"text": {"a": 1}}),
            "text",
        ),
        (
            "type: path from array",
            json!({"text": "x", "file": ["."]}),
            "file",
        ),
        ("enum", json!({"text": "x", "mode": "medium"}), "mode"),
        (
            "enum before characters",
            json!({"text": "x", "mode": "fast;id"}),
            "mode",
        ),
        (
            "pattern",
            json!({"text": "x", "range": "1r/etc/shadow"}),
            "range",
        ),
        (
            "pattern before dash",
            json!({"text": "x", "range": "-es/.*/id/e"}),
            "range",
        ),
        (
            "pattern, sed dollar",
            json!({"text": "x", "range": "1,$"}),
            "range",
        ),
        ("characters: space", json!({"text": "TODO src"}), "text"),
        ("characters: newline", json!({"text": "a\nb"}), "text"),
        ("characters: tab", json!({"text": "a\tb"}), "text"),
        ("characters: NUL", json!({"text": "a\u{0}b"}), "text"),
        ("characters: escape", json!({"text": "a\u{1b}[31m"}), "text"),
        (
            "characters: no-break space",
            json!({"text": "a\u{a0}b"}),
            "text",
        ),
        (
            "characters: ideographic space",
            json!({"text": "a\u{3000}b"}),
            "text",
        ),
        (
            "characters: line separator",
            json!({"text": "a\u{2028}b"}),
            "text",
        ),
        (
            "characters: right-to-left override",
            json!({"text": "a\u{202e}b"}),
            "text",
        ),
        ("characters: double quote", json!({"text": "\"x\""}), "text"),
        ("characters: single quote", json!({"text": "'x'"}), "text"),
        ("characters: semicolon", json!({"text": "x;id"}), "text"),
        ("characters: pipe", json!({"text": "FIXME|TODO"}), "text"),
        ("characters: ampersand", json!({"text": "&id"}), "text"),
        ("characters: dollar", json!({"text": "$(id)"}), "text"),
        ("characters: backtick", json!({"text": "`id`"}), "text"),
        ("characters: greater", json!({"text": ">/tmp/x"}), "text"),
        ("characters: less", json!({"text": "</etc/passwd"}), "text"),
        ("characters before dash", json!({"text": "-a b"}), "text"),
        ("leading dash: string", json!({"text": "--pre=sh"}), "text"),
        ("leading dash: lone", json!({"text": "-"}), "text"),
        (
            "leading dash: number",
            json!({"text": "x", "count": -5}),
            "count",
        ),
        (
            "leading dash: number text",
            json!({"text": "x", "count": "-5"}),
            "count",
        ),
        (
            "leading dash: path",
            json!({"text": "x", "file": "-delete"}),
            "file",
        ),
        ("path: parent", json!({"text": "x", "file": "../x"}), "file"),
        (
            "path: absolute outside",
            json!({"text": "x", "file": "/etc/passwd"}),
            "file",
        ),
        (
            "path: symlink escape",
            json!({"text": "x", "file": "symlink_to_root/etc/shadow"}),
            "file",
        ),
        (
            "path: proc",
            json!({"text": "x", "file": "/proc/self/environ"}),
            "file",
        ),
        (
            "path: device",
            json!({"text": "x", "file": "/dev/zero"}),
            "file",
        ),
        ("path: fifo", json!({"text": "x", "file": "fifo"}), "file"),
        ("path: empty", json!({"text": "x", "file": ""}), "file"),
        (
            "path: home",
            json!({"text": "x", "file": "~/.ssh/id_rsa"}),
            "file",
        ),
        (
            "path: backslash",
            json!({"text": "x", "file": "..\\..\\etc\\passwd"}),
            "file",
        ),
        (
            "path: url",
            json!({"text": "x", "file": "file:///etc/passwd"}),
            "file",
        ),
        (
            "path: too long",
            json!({"text": "x", "file": "a/".repeat(2100)}),
            "file",
        ),
    ];
    let mut report = String::new();
    for (rule, arguments, slot) in cases {
        let refusal = tool.check_in(&arguments, &ws.root).unwrap_err();
        assert_eq!(refusal.code, ErrorCode::SlotInvalid, "{rule}");
        assert_eq!(refusal.layer.as_str(), "slot", "{rule}");
        assert_eq!(refusal.slot.as_deref(), Some(slot), "{rule}");
        assert!(refusal.message.starts_with(char::is_lowercase), "{rule}");
        report.push_str(&format!("{rule}\n  {}\n", refusal.render()));
    }
    insta::assert_snapshot!("slot_refusals", report);
}

#[test]
fn arguments_must_be_an_object() {
    let ws = Workspace::new();
    let tool = probe();
    let mut report = String::new();
    for arguments in [json!([1]), json!("text"), json!(3), json!(true)] {
        let refusal = tool.check_in(&arguments, &ws.root).unwrap_err();
        assert_eq!(refusal.code, ErrorCode::InvalidArguments);
        report.push_str(&format!("{arguments}\n  {}\n", refusal.render()));
    }
    insta::assert_snapshot!("not_an_object", report);
    // `null` is no arguments at all.
    let refusal = tool.check_in(&Value::Null, &ws.root).unwrap_err();
    assert_eq!(refusal.slot.as_deref(), Some("text"));
}

#[test]
fn no_arguments_tool() {
    let ws = Workspace::new();
    let tool = build(CommandSpec::new("status", "Git status", "git status"));
    assert_eq!(
        tool.check_in(&json!({}), &ws.root).unwrap().argv,
        ["git", "status"]
    );
    assert_eq!(
        tool.check_in(&Value::Null, &ws.root).unwrap().argv,
        ["git", "status"]
    );
    let refusal = tool.check_in(&json!({"x": 1}), &ws.root).unwrap_err();
    insta::assert_snapshot!("no_arguments", refusal.render());
}

/// Any JSON at all, as a model might send it.
fn any_json() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        any::<String>().prop_map(Value::from),
        prop::sample::select(vec!["text", "count", "file", "mode", "range", "opt"])
            .prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec(
                (
                    prop::sample::select(vec![
                        "text", "count", "file", "mode", "range", "opt", "x"
                    ]),
                    inner
                ),
                0..6
            )
            .prop_map(|pairs| Value::Object(
                pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
            )),
        ]
    })
}

proptest::proptest! {
    /// Whatever the arguments, the answer is an argv or a refusal: never a
    /// panic, and the argv always has the template's shape.
    #[test]
    fn any_arguments_never_panic(arguments in any_json()) {
        let root = std::env::temp_dir().canonicalize().unwrap();
        match probe().check_in(&arguments, &root) {
            Ok(invocation) => proptest::prop_assert_eq!(invocation.argv.len(), 7),
            Err(refusal) => proptest::prop_assert!([614, 620].contains(&refusal.code.code())),
        }
    }
}

/// A pattern's matcher is built at its first use in a code tool, at load in
/// a descriptor; one too large for a matcher (its syntax is valid) is a
/// declaration error for a descriptor, and refuses every value of a code
/// tool, saying why: never an accepted value.
#[test]
fn a_pattern_too_large_for_a_matcher_never_accepts() {
    use jig_lineage::{DenyList, ToolForm};
    let ws = Workspace::new();
    let spec = || {
        CommandSpec::new("big", "x", "echo {word}").slot(
            "word",
            SlotSpec::string("W")
                .with_pattern("(\\w{1000}){1000}")
                .required(),
        )
    };
    let descriptor = CommandTool::build(spec(), &DenyList::default(), ToolForm::Descriptor);
    let error = descriptor.expect_err("refused at load").to_string();
    assert!(error.contains("pattern"), "{error}");
    let code = build(spec());
    for value in ["a", &"a".repeat(1000)] {
        let refusal = code
            .check_in(&json!({"word": value}), &ws.root)
            .unwrap_err();
        assert_eq!(refusal.code, ErrorCode::SlotInvalid);
        assert!(
            refusal.message.contains("too large to build a matcher"),
            "{}",
            refusal.message
        );
    }
    // A pattern of valid size, built at first use, shared by clones.
    let small = build(CommandSpec::new("small", "x", "echo {word}").slot(
        "word",
        SlotSpec::string("W").with_pattern("[a-z]+").required(),
    ));
    let copy = small.clone();
    assert!(small.check_in(&json!({"word": "abc"}), &ws.root).is_ok());
    assert!(copy.check_in(&json!({"word": "ABC"}), &ws.root).is_err());
}
