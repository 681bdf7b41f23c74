//! `jig mcp` driven by the official Python MCP SDK (`mcp`), as a real client
//! would. The SDK lives in `<workspace>/.venv`, which `.ci/run` creates and
//! fills from `.ci/requirements.txt`.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::support::{JIG, example_root, example_tools};

/// The virtual environment's interpreter.
fn python() -> PathBuf {
    let python = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.venv/bin/python3");
    assert!(
        python.exists(),
        "{} is missing: this test needs the Python MCP SDK. Create the environment as CI does: \
         `python3 -m venv .venv && .venv/bin/pip install -r .ci/requirements.txt` at the \
         workspace root",
        python.display()
    );
    python
}

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/mcp_client.py")
}

#[test]
fn the_python_sdk_lists_calls_and_gets_refusals() {
    let calls = json!([
        ["search_text", {"pattern": "TODO", "path": "src/count.rs"}],
        ["count_lines", {"path": "notes/plan.txt"}],
        ["search_text", {"pattern": "a|b"}],
        ["search_text", {"pattern": "x", "path": "/etc/passwd"}],
        ["grep", {"pattern": "FIXME", "path": "notes"}],
    ]);
    let output = std::process::Command::new(python())
        .arg(script())
        .arg("calls")
        .arg(calls.to_string())
        .arg("--")
        .arg(JIG)
        .arg("--root")
        .arg(example_root())
        .arg("--tools")
        .arg(example_tools())
        .arg("--deny")
        .arg("grep")
        .arg("mcp")
        .env_remove("JIG_TOOL_ALLOWLIST")
        .env_remove("JIG_TOOL_DENYLIST")
        .env_remove("JIG_ENABLED_TOOLS")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the client failed:\n{stderr}\n{stdout}"
    );
    let report: Value = serde_json::from_str(&stdout).unwrap();

    assert_eq!(report["server"]["name"], "jig-cli");
    assert_eq!(report["server"]["version"], env!("CARGO_PKG_VERSION"));
    let tools = report["tools"].as_array().unwrap();
    let search = tools.iter().find(|t| t["name"] == "search_text").unwrap();
    assert_eq!(search["input_schema"]["required"], json!(["pattern"]));

    let results = report["results"].as_array().unwrap();
    let expect = [
        (false, "exit: 0\noutput: 5:"),
        (false, "exit: 0\noutput: 5 notes/plan.txt"),
        (true, "error 614 (slot_invalid)"),
        (true, "error 614 (slot_invalid)"),
        (true, "error 616 (tool_policy_denied)"),
    ];
    assert_eq!(results.len(), expect.len());
    for (result, (is_error, start)) in results.iter().zip(expect) {
        assert_eq!(result["is_error"], is_error, "{result}");
        let text = result["text"].as_str().unwrap();
        assert!(text.starts_with(start), "expected {start:?}, got {text:?}");
    }
}
