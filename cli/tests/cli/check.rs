//! `jig check`: compiler-style diagnostics for descriptor files.

use crate::snapshot;
use crate::support::{example_tools, run_jig, tools_dir};

const GOOD: &str = r#"{
  "name": "line_count",
  "description": "Count lines",
  "command": "wc -l {path}",
  "arguments": {"path": {"type": "path", "description": "File", "required": true}}
}"#;

const DENIED_BINARY: &str = r#"{
  "name": "wipe",
  "description": "Remove a file",
  "command": "rm -f {path}",
  "arguments": {"path": {"type": "path", "description": "File", "required": true}}
}"#;

const UNDECLARED_SLOT: &str = r#"{
  "name": "search",
  "description": "Search",
  "command": "grep -rn {pattern} {where}",
  "arguments": {
    "pattern": {"type": "string", "description": "Pattern", "required": true}
  }
}"#;

const BAD_JSON: &str =
    "{\n  \"name\": \"broken\",\n  \"command\": \"ls\"\n  \"description\": \"x\"\n}\n";

const CLASH: &str = r#"{
  "name": "grep",
  "description": "Shadows the built-in",
  "command": "grep -n {pattern} README.md",
  "arguments": {"pattern": {"type": "string", "description": "Pattern", "required": true}}
}"#;

#[test]
fn the_example_tools_are_clean() {
    let dir = example_tools();
    let run = run_jig(&["check", dir.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("3 tools loaded"), "{}", run.stderr);
    let run = run_jig(&[
        "--tools",
        dir.to_str().unwrap(),
        "check",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.json()["ok"], true);
    assert_eq!(run.json()["loaded"].as_array().unwrap().len(), 3);
}

#[test]
fn each_bad_file_gets_a_diagnostic_and_the_good_ones_load() {
    let dir = tools_dir(&[
        ("good.tool.json", GOOD),
        ("denied.tool.json", DENIED_BINARY),
        ("undeclared.tool.json", UNDECLARED_SLOT),
        ("broken.tool.json", BAD_JSON),
        ("clash.tool.json", CLASH),
        ("ignored.json", "not a tool file"),
    ]);
    let run = run_jig(&["check", dir.path().to_str().unwrap()]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    for file in ["denied", "undeclared", "broken", "clash"] {
        assert!(
            run.stderr.contains(&format!("{file}.tool.json")),
            "{file}:\n{}",
            run.stderr
        );
    }
    assert!(!run.stderr.contains("good.tool.json"), "{}", run.stderr);
    assert_eq!(
        run.stderr.matches("error[613]").count(),
        4,
        "{}",
        run.stderr
    );
    snapshot!("diagnostics", sorted_blocks(&run.stderr));

    let run = run_jig(&["check", dir.path().to_str().unwrap(), "--format", "json"]);
    assert_eq!(run.code, 1);
    let json = run.json();
    assert_eq!(json["loaded"], serde_json::json!(["line_count"]));
    assert_eq!(json["files"], 5);
    for error in json["errors"].as_array().unwrap() {
        assert_eq!(error["code"], 613);
        assert!(error["file"].as_str().unwrap().ends_with(".tool.json"));
    }
}

#[test]
fn a_bad_json_file_points_at_the_line_and_column() {
    let dir = tools_dir(&[("broken.tool.json", BAD_JSON)]);
    let run = run_jig(&["check", dir.path().to_str().unwrap()]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("broken.tool.json:4:"), "{}", run.stderr);
    assert!(
        run.stderr.contains("4 |   \"description\""),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains('^'), "{}", run.stderr);
}

#[test]
fn a_missing_folder_is_an_error() {
    let run = run_jig(&["check", "/nonexistent/jig-tools"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stderr.contains("/nonexistent/jig-tools"),
        "{}",
        run.stderr
    );
}

/// The diagnostics sorted (the loader's order is the folder's), then the
/// summary line.
fn sorted_blocks(stderr: &str) -> String {
    let mut blocks: Vec<&str> = stderr.trim_end().split("\n\n").collect();
    let summary = blocks.pop().unwrap_or_default();
    blocks.sort_unstable();
    blocks.push(summary);
    blocks.join("\n\n")
}

/// A sed descriptor written like the README's but without the `pattern`:
/// its `range` slot feeds sed's script language.
const SED_WITHOUT_PATTERN: &str = r#"{
  "name": "print_lines",
  "description": "Print lines of a file",
  "command": "sed -n {range}p {path}",
  "arguments": {
    "range": {"type": "string", "description": "Line range", "required": true},
    "path": {"type": "path", "description": "File", "required": true}
  }
}"#;

#[test]
fn a_slot_that_feeds_a_programs_language_is_reported() {
    let dir = tools_dir(&[("print_lines.tool.json", SED_WITHOUT_PATTERN)]);
    let run = run_jig(&["check", dir.path().to_str().unwrap()]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("error[613]"), "{}", run.stderr);
    assert!(run.stderr.contains("slot `range`"), "{}", run.stderr);
    assert!(
        run.stderr.contains("print_lines.tool.json"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("`pattern`"), "{}", run.stderr);
    // With the pattern, the same tool is clean.
    let fixed = SED_WITHOUT_PATTERN.replace(
        r#""required": true},
    "path""#,
        r#""required": true, "pattern": "^\\d+(,\\d+)?$"},
    "path""#,
    );
    assert!(fixed.contains("pattern"), "{fixed}");
    let dir = tools_dir(&[("print_lines.tool.json", fixed.as_str())]);
    let run = run_jig(&["check", dir.path().to_str().unwrap()]);
    assert_eq!(run.code, 0, "{run:?}");
}

/// Two files that define `search_text`: the second written after the first
/// was in use, as a model with write access to the folder would.
const SEARCH_A: &str = r#"{
  "name": "search_text",
  "description": "Search",
  "command": "grep -rn {pattern} .",
  "arguments": {"pattern": {"type": "string", "description": "Pattern", "required": true}}
}"#;
const SEARCH_B: &str = r#"{
  "name": "search_text",
  "description": "Count instead",
  "command": "wc -l {pattern}",
  "arguments": {"pattern": {"type": "string", "description": "Pattern", "required": true}}
}"#;

#[test]
fn a_name_two_files_define_is_refused_in_both() {
    let dir = tools_dir(&[
        ("a_search.tool.json", SEARCH_A),
        ("b_search.tool.json", SEARCH_B),
        ("good.tool.json", GOOD),
    ]);
    let path = dir.path().to_str().unwrap();
    let run = run_jig(&["check", path]);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(
        run.stderr.matches("error[613]").count(),
        2,
        "{}",
        run.stderr
    );
    snapshot!("duplicate_name", run.stderr);

    // The commands that load the folder skip both and say so, naming both.
    let run = run_jig(&["--tools", path, "call", "search_text", r#"{"pattern":"x"}"#]);
    assert_eq!(run.code, 2, "{run:?}");
    for file in ["a_search.tool.json", "b_search.tool.json"] {
        assert_eq!(
            run.stderr
                .lines()
                .filter(|l| l.starts_with("jig: warning: skipped") && l.contains(file))
                .count(),
            2,
            "each warning names both files:\n{}",
            run.stderr
        );
    }
    assert!(run.stdout.contains("search_text"), "{}", run.stdout);
    let run = run_jig(&[
        "--tools",
        path,
        "call",
        "line_count",
        r#"{"path":"Cargo.toml"}"#,
    ]);
    assert_ne!(run.code, 2, "the other tools still load: {run:?}");
}

#[test]
fn a_model_cannot_disable_a_tool_by_adding_a_file() {
    // The tools folder inside the workspace, the exec tool granted with
    // programs that write: the run point keeps the folder read-only, so no
    // call can add the second definition that would take the tool away.
    let root = tempfile::tempdir().unwrap();
    let tools = root.path().join("agent-tools");
    std::fs::create_dir(&tools).unwrap();
    std::fs::write(tools.join("search.tool.json"), SEARCH_A).unwrap();
    let root_arg = root.path().to_str().unwrap();
    let tools_arg = tools.to_str().unwrap();
    for command in [
        "cp agent-tools/search.tool.json agent-tools/0.tool.json",
        "touch agent-tools/0.tool.json",
    ] {
        let arguments = serde_json::json!({ "command": command }).to_string();
        let run = run_jig(&[
            "--root",
            root_arg,
            "--tools",
            tools_arg,
            "--exec-allow",
            "cp,touch",
            "call",
            "exec",
            &arguments,
        ]);
        assert_eq!(run.code, 2, "{command} was not refused: {run:?}");
    }
    assert_eq!(std::fs::read_dir(&tools).unwrap().count(), 1);
    let run = run_jig(&["--root", root_arg, "--tools", tools_arg, "check"]);
    assert_eq!(run.code, 0, "the tool is still there: {run:?}");
}
