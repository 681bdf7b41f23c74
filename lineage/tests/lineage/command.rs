//! Command tools through the `Tool` interface: the dry run, the run, the
//! audit, and the argv invariants under any value (proptest).

use std::path::PathBuf;
use std::sync::OnceLock;

use proptest::prelude::*;
use serde_json::json;

use crate::{Workspace, build};
use jig_lineage::{
    CommandSpec, CommandTool, DenyList, SlotSpec, SlotType, Template, Token, Tool, ToolForm,
    ToolResult, Writes, builtin_tools,
};

#[test]
fn check_is_the_dry_run_of_run() {
    let ws = Workspace::new();
    let tool = build(
        CommandSpec::new("count_lines", "Count lines", "wc -l {path}")
            .slot("path", SlotSpec::path("File").required())
            .with_read_only(true),
    );
    let arguments = json!({"path": "README.md"});
    let invocation = tool
        .check(
            &arguments,
            &jig_lineage::CheckContext::new(ws.kernel.root(), ws.kernel.search_path()),
        )
        .unwrap();
    assert_eq!(invocation.argv, ["wc", "-l", "README.md"]);
    assert!(invocation.read_only);
    assert_eq!(invocation.paths, [ws.root.join("README.md")]);
    assert_eq!(invocation, tool.check_in(&arguments, &ws.root).unwrap());
    match crate::run_tool(&tool, &ws.kernel, &arguments) {
        ToolResult::Ran {
            invocation: ran,
            outcome,
        } => {
            assert_eq!(ran, invocation);
            assert_eq!(outcome.exit_code(), Some(0));
            assert!(outcome.output.text().contains("3 README.md"));
        }
        other => panic!("{other:?}"),
    }
    let refused = crate::run_tool(&tool, &ws.kernel, &json!({"path": "../x"}));
    assert!(
        refused
            .text()
            .starts_with("error 614 (slot_invalid): slot \"path\"")
    );
}

#[test]
fn missing_program_is_a_start_failure() {
    let ws = Workspace::new();
    let tool = build(CommandSpec::new("nope", "Missing", "jig-no-such-program-x"));
    let result = crate::run_tool(&tool, &ws.kernel, &json!({}));
    assert_eq!(result.refusal().map(|r| r.code.code()), Some(621));
}

#[test]
fn identity_and_audit() {
    let tools = builtin_tools(&jig_lineage::DenyList::default());
    let mut report = String::new();
    for tool in &tools {
        assert_eq!(tool.form(), ToolForm::Command);
        let audit = tool.audit();
        assert_eq!(audit.binaries, [tool.template().program()]);
        report.push_str(&format!(
            "{} ({}): {}\n  form: {}\n  binaries: {:?}\n  skeleton: {}\n  slots:\n{}  variability: {}\n  writes: {}\n",
            tool.name(),
            if tool.read_only() { "read-only" } else { "writes" },
            tool.description(),
            audit.form.as_str(),
            audit.binaries,
            audit.skeleton,
            audit.slots.iter().map(|s| format!("    {s}\n")).collect::<String>(),
            audit.variability,
            audit.writes.describe(),
        ));
        // A read-only tool's audit says it writes nothing.
        assert_eq!(audit.writes, Writes::Nothing);
    }
    let fixed = build(CommandSpec::new("status", "Git status", "git status"));
    report.push_str(&format!("status: {}\n", fixed.audit().variability));
    // A tool that does not say it only reads may write the workspace; one
    // that says so writes nothing.
    assert_eq!(fixed.audit().writes, Writes::Workspace);
    let reading =
        build(CommandSpec::new("status", "Git status", "git status").with_read_only(true));
    assert_eq!(reading.audit().writes, Writes::Nothing);
    insta::assert_snapshot!("audit", report);
}

/// A root shared by the property tests (path checks read it).
fn shared_root() -> &'static PathBuf {
    static ROOT: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &ROOT
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().canonicalize().unwrap();
            std::fs::create_dir_all(root.join("src")).unwrap();
            std::os::unix::fs::symlink("/", root.join("up")).unwrap();
            (dir, root)
        })
        .1
}

/// A literal token: no whitespace, braces or metacharacters.
fn literal() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9_./=,:+%@-]{1,8}"
}

fn affix() -> impl Strategy<Value = String> {
    prop_oneof![Just(String::new()), "[a-z0-9=,:.-]{1,4}"]
}

fn kind() -> impl Strategy<Value = SlotType> {
    prop_oneof![
        Just(SlotType::String),
        Just(SlotType::Path),
        Just(SlotType::Number)
    ]
}

/// A template source and the kind of each slot it uses (`s0`, `s1`...).
fn template() -> impl Strategy<Value = (String, Vec<SlotType>)> {
    let token = prop_oneof![
        literal().prop_map(|l| (l, None)),
        (affix(), affix(), kind()).prop_map(|(p, s, k)| (p, Some((s, k)))),
    ];
    (
        "[a-z][a-z0-9_-]{0,7}",
        proptest::collection::vec(token, 0..6),
    )
        .prop_map(|(program, tokens)| {
            let mut source = program;
            let mut kinds = Vec::new();
            for (text, slot) in tokens {
                source.push(' ');
                match slot {
                    None => source.push_str(&text),
                    Some((suffix, kind)) => {
                        source.push_str(&format!("{text}{{s{}}}{suffix}", kinds.len()));
                        kinds.push(kind);
                    }
                }
            }
            (source, kinds)
        })
}

/// Any Unicode text, plus text made of the characters that matter most.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[-a-z0-9 ;|&$`<>'\"\\\\/.~\\n\\t\u{a0}\u{202e}\u{2028}\u{fe54}]{0,12}",
        "(\\.\\./|src/|up/|/etc/|-){0,4}[a-z]{0,3}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// For any value in any slot of any template: a 614 refusal, or an argv
    /// with the template's token count, the skeleton byte-identical, the
    /// program unchanged and the slot's element the literal value with its
    /// affix.
    #[test]
    fn no_value_changes_the_skeleton(
        (source, kinds) in template(),
        target in any::<proptest::sample::Index>(),
        text in value(),
    ) {
        let mut spec = CommandSpec::new("prop", "Property", source.clone());
        for (i, kind) in kinds.iter().enumerate() {
            spec = spec.slot(format!("s{i}"), SlotSpec::new(*kind, "").required());
        }
        // The property is about slots, not the deny list: random program
        // names such as `dd` must not make the build fail.
        let no_deny = DenyList::dangerous_replace(Vec::<String>::new());
        let tool = CommandTool::build(spec, &no_deny, ToolForm::Command).unwrap();
        let target = (!kinds.is_empty()).then(|| target.index(kinds.len()));
        let mut arguments = serde_json::Map::new();
        for (i, kind) in kinds.iter().enumerate() {
            let filler = match kind {
                SlotType::Number => json!(7),
                SlotType::Path => json!("src"),
                _ => json!("v"),
            };
            let value = if Some(i) == target { json!(text) } else { filler };
            arguments.insert(format!("s{i}"), value);
        }
        let template = Template::parse(&source).unwrap();
        match tool.check_in(&serde_json::Value::Object(arguments), shared_root()) {
            Err(refusal) => {
                prop_assert_eq!(refusal.code.code(), 614);
                prop_assert_eq!(refusal.slot, target.map(|t| format!("s{t}")));
            }
            Ok(invocation) => {
                let argv = invocation.argv;
                prop_assert_eq!(argv.len(), template.tokens().len());
                prop_assert_eq!(&argv[0], template.program());
                for (token, element) in template.tokens().iter().zip(&argv) {
                    match token {
                        Token::Literal(literal) => prop_assert_eq!(element, literal),
                        Token::Slot { prefix, name, suffix } => {
                            let i: usize = name.as_str()[1..].parse().unwrap();
                            let inner = element
                                .strip_prefix(prefix.as_str())
                                .and_then(|e| e.strip_suffix(suffix.as_str()));
                            prop_assert!(inner.is_some(), "{element:?} lost its affix");
                            let inner = inner.unwrap_or_default();
                            match (Some(i) == target, kinds[i]) {
                                (true, SlotType::Number) => {
                                    prop_assert!(inner.parse::<f64>().is_ok(), "{inner:?}");
                                    prop_assert!(inner.chars().all(|c| c.is_ascii_digit() || c == '.'), "{inner:?}");
                                }
                                (true, _) => prop_assert_eq!(inner, text.as_str()),
                                (false, SlotType::Number) => prop_assert_eq!(inner, "7"),
                                (false, SlotType::Path) => prop_assert_eq!(inner, "src"),
                                (false, _) => prop_assert_eq!(inner, "v"),
                            }
                        }
                        _ => prop_assert!(false, "unknown token kind"),
                    }
                }
            }
        }
    }
}
