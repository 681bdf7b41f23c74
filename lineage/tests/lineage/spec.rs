//! Building tools from specifications: every refusal (snapshotted, with
//! its JSON pointer), and the descriptor JSON form.

use serde_json::json;

use jig_lineage::{CommandSpec, CommandTool, DenyList, SlotSpec, SpecError, ToolForm};

fn pattern() -> SlotSpec {
    SlotSpec::string("Pattern").required()
}

fn path() -> SlotSpec {
    SlotSpec::path("Path").with_default(".")
}

fn grep_like(template: &str) -> CommandSpec {
    CommandSpec::new("search", "Search text", template)
        .slot("pattern", pattern())
        .slot("path", path())
}

#[test]
fn refused_specifications() {
    let cases: Vec<(&str, CommandSpec)> = vec![
        ("empty name", CommandSpec::new("", "x", "ls")),
        ("name with a space", CommandSpec::new("my tool", "x", "ls")),
        ("name too long", CommandSpec::new("a".repeat(65), "x", "ls")),
        ("no description", CommandSpec::new("t", "  ", "ls")),
        ("empty template", CommandSpec::new("t", "x", "")),
        ("slot as program", grep_like("{pattern} {path}")),
        ("metacharacter", grep_like("grep -rn {pattern} {path};id")),
        ("pipe token", grep_like("grep -rn {pattern} {path} | head")),
        ("denied program", grep_like("rm -rf {pattern} {path}")),
        (
            "denied program by path",
            grep_like("/bin/rm {pattern} {path}"),
        ),
        (
            "denied program relative",
            grep_like("./rm {pattern} {path}"),
        ),
        ("denied shell", grep_like("bash -c {pattern} {path}")),
        ("denied launcher", grep_like("env grep {pattern} {path}")),
        ("denied family", grep_like("mkfs.ext4 {pattern} {path}")),
        (
            "undeclared slot",
            grep_like("grep -rn {pattern} {path} {extra}"),
        ),
        ("unused slot", grep_like("grep -rn {pattern}")),
        (
            "bad slot name",
            CommandSpec::new("t", "x", "ls").slot("a-b", path()),
        ),
        (
            "duplicate slot",
            grep_like("grep -rn {pattern} {path}").slot("path", path()),
        ),
        (
            "neither required nor default",
            CommandSpec::new("t", "x", "ls {p}").slot("p", SlotSpec::path("P")),
        ),
        (
            "required and default",
            CommandSpec::new("t", "x", "ls {p}")
                .slot("p", SlotSpec::path("P").required().with_default(".")),
        ),
        (
            "bad pattern",
            CommandSpec::new("t", "x", "ls {p}").slot("p", pattern().with_pattern("(a")),
        ),
        (
            "empty enum",
            CommandSpec::new("t", "x", "ls {p}")
                .slot("p", pattern().with_enum(Vec::<String>::new())),
        ),
        (
            "enum entry with a space",
            CommandSpec::new("t", "x", "ls {p}").slot("p", pattern().with_enum(["a", "b c"])),
        ),
        (
            "enum entry of the wrong type",
            CommandSpec::new("t", "x", "head -n {n}").slot(
                "n",
                SlotSpec::number("N")
                    .required()
                    .with_enum([json!(1), json!("many")]),
            ),
        ),
        (
            "enum entry against the pattern",
            CommandSpec::new("t", "x", "ls {p}").slot(
                "p",
                pattern().with_pattern("[a-z]+").with_enum(["ok", "NO"]),
            ),
        ),
        (
            "default with a metacharacter",
            CommandSpec::new("t", "x", "ls {p}")
                .slot("p", SlotSpec::string("P").with_default("$HOME")),
        ),
        (
            "default with a leading dash",
            CommandSpec::new("t", "x", "ls {p}")
                .slot("p", SlotSpec::string("P").with_default("-la")),
        ),
        (
            "default of the wrong type",
            CommandSpec::new("t", "x", "head -n {n}")
                .slot("n", SlotSpec::number("N").with_default("ten")),
        ),
        (
            "default outside the enum",
            CommandSpec::new("t", "x", "ls {p}").slot(
                "p",
                SlotSpec::string("P").with_enum(["a"]).with_default("b"),
            ),
        ),
        (
            "null default",
            CommandSpec::new("t", "x", "ls {p}")
                .slot("p", SlotSpec::string("P").with_default(json!(null))),
        ),
        (
            "dash on a path slot",
            CommandSpec::new("t", "x", "ls {p}").slot("p", path().dangerous_allow_leading_dash()),
        ),
    ];
    let mut report = String::new();
    for (case, spec) in cases {
        let template = spec.template.clone();
        let error = CommandTool::build(spec, &DenyList::default(), ToolForm::Command).unwrap_err();
        let span = error
            .template_span(&template)
            .map(|(at, len)| format!(" (command[{at}..{}])", at + len))
            .unwrap_or_default();
        report.push_str(&format!(
            "{case}\n  at {}{span}: {error}\n",
            error.pointer()
        ));
    }
    insta::assert_snapshot!("spec_errors", report);
}

#[test]
fn exec_form_is_not_a_command_form() {
    let error = CommandTool::build(
        grep_like("grep -rn {pattern} {path}"),
        &DenyList::default(),
        ToolForm::Exec,
    )
    .unwrap_err();
    assert!(matches!(error, SpecError::Form { form: "exec" }));
}

#[test]
fn deny_list_is_the_integrators() {
    let spec = || CommandSpec::new("py", "Run the fixed script", "python3 tools/report.py");
    // Interpreters are denied by default; an integrator lifts the deny for a
    // fixed script visibly.
    assert!(matches!(
        CommandTool::build(spec(), &DenyList::default(), ToolForm::Command),
        Err(SpecError::DeniedProgram { .. })
    ));
    let lifted = DenyList::default().dangerous_allow(["python3"]);
    assert!(CommandTool::build(spec(), &lifted, ToolForm::Command).is_ok());
    let stricter = lifted.deny(["python3"]);
    assert!(matches!(
        CommandTool::build(spec(), &stricter, ToolForm::Command),
        Err(SpecError::DeniedProgram { .. })
    ));
    let rm = || grep_like("rm {pattern} {path}");
    let lifted = DenyList::default().dangerous_allow(["rm"]);
    assert!(CommandTool::build(rm(), &lifted, ToolForm::Command).is_ok());
}

#[test]
fn descriptor_json_form() {
    let text = r#"{
      "name": "search_text",
      "description": "Search text in workspace files",
      "command": "grep -rn {pattern} {path}",
      "arguments": {
        "pattern": {"type": "string", "description": "Text pattern to search", "required": true},
        "path": {"type": "string", "description": "Directory or file to search", "default": "."}
      }
    }"#;
    let spec: CommandSpec = serde_json::from_str(text).unwrap();
    assert_eq!(spec.template, "grep -rn {pattern} {path}");
    let names: Vec<&str> = spec.slots.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["pattern", "path"]);
    assert!(spec.slot_spec("pattern").unwrap().required);
    let round: CommandSpec = serde_json::from_value(serde_json::to_value(&spec).unwrap()).unwrap();
    assert_eq!(round, spec);
    insta::assert_snapshot!("spec_json", serde_json::to_string_pretty(&spec).unwrap());
}

#[test]
fn json_form_refuses_unknown_keys_and_duplicates() {
    let cases = [
        r#"{"name": "t", "description": "x", "command": "ls", "colour": 1}"#,
        r#"{"name": "t", "description": "x", "command": "ls {p}", "arguments": {"p": {"type": "string", "requird": true}}}"#,
        r#"{"name": "t", "description": "x", "command": "ls {p}", "arguments": {"p": {"type": "path", "default": "."}, "p": {"type": "path", "default": "."}}}"#,
        r#"{"name": "t", "description": "x", "command": "ls {p}", "arguments": {"p": {"type": "boolean"}}}"#,
    ];
    for text in cases {
        assert!(serde_json::from_str::<CommandSpec>(text).is_err(), "{text}");
    }
}
