//! The `Tool` interface: arguments, schema, audit, and real runs of a few
//! allowed commands in a temporary workspace.

use jig_exec_tool::{EXEC_TOOL_NAME, ExecTool};
use jig_lineage::{Tool, ToolForm};
use serde_json::json;

use crate::support::{Workspace, allowing};

#[test]
fn arguments_are_one_command_string() {
    let ws = Workspace::new();
    let tool = ExecTool::builder().build();
    let ok = tool
        .check(&json!({"command": "  ls -la \n"}), &ws.context())
        .unwrap();
    assert_eq!(ok.argv, ["ls", "-la"]);
    let bad = [
        json!("ls"),
        json!({}),
        json!({"command": 5}),
        json!({"command": "ls", "cwd": "/"}),
    ];
    let messages: Vec<String> = bad
        .iter()
        .map(|arguments| {
            let refusal = tool.check(arguments, &ws.context()).unwrap_err();
            assert_eq!(refusal.code.code(), 620);
            assert_eq!(refusal.layer.as_str(), "exec.arguments");
            refusal.render()
        })
        .collect();
    insta::assert_snapshot!("argument_refusals", messages.join("\n"));
}

#[test]
fn schema_description_and_audit() {
    let tool = ExecTool::builder().build();
    assert_eq!(tool.name(), EXEC_TOOL_NAME);
    assert_eq!(tool.form(), ToolForm::Exec);
    insta::assert_json_snapshot!("input_schema", tool.input_schema());
    insta::assert_snapshot!("description", tool.description());
    insta::assert_debug_snapshot!("audit", tool.audit());
}

#[test]
fn allowed_commands_run_for_real() {
    let ws = Workspace::new();
    let tool = allowing(&[
        "cat", "grep", "head", "wc", "ls", "sed", "find", "echo", "sort",
    ]);
    let cases = [
        ("cat README.md", "# demo\nTODO: docs\n"),
        ("grep -n TODO README.md", "2:TODO: docs\n"),
        ("head -n 1 src/main.rs", "fn main() {\n"),
        ("wc -l data.csv", "3 data.csv\n"),
        ("sed -n 2p data.csv", "1,2\n"),
        ("find src -name '*.rs'", "src/main.rs\n"),
        ("echo 'a;b' \"c d\"", "a;b c d\n"),
        ("sort -r data.csv", "a,b\n3,4\n1,2\n"),
    ];
    for (command, output) in cases {
        let result = crate::support::run_tool(&tool, &ws.kernel, &json!({ "command": command }));
        let outcome = result
            .outcome()
            .unwrap_or_else(|| panic!("{command}: {}", result.text()));
        assert_eq!(outcome.exit_code(), Some(0), "{command}");
        assert_eq!(
            outcome.render(),
            format!("exit: 0\noutput: {output}"),
            "{command}"
        );
    }
}

#[test]
fn refused_commands_never_run() {
    let ws = Workspace::new();
    let tool = ExecTool::builder().build();
    for command in [
        "find . -delete",
        "sed -i d README.md",
        "echo x > README.md",
        "ls; rm README.md",
    ] {
        let result = crate::support::run_tool(&tool, &ws.kernel, &json!({ "command": command }));
        assert!(result.refusal().is_some(), "{command}");
    }
    assert!(ws.dir.path().join("README.md").exists());
    assert_eq!(
        std::fs::read_to_string(ws.dir.path().join("README.md")).unwrap(),
        "# demo\nTODO: docs\n"
    );
}

#[test]
fn missing_programs_are_a_start_failure() {
    let ws = Workspace::new();
    let tool = allowing(&["surely-not-installed-xyz"]);
    let result = crate::support::run_tool(
        &tool,
        &ws.kernel,
        &json!({"command": "surely-not-installed-xyz"}),
    );
    assert_eq!(result.refusal().map(|r| r.code.code()), Some(621));
}
