//! `jig tools`: the visible tools and their schemas.

use crate::snapshot;
use crate::support::{jig, run_example, run_with};

#[test]
fn every_format_lists_the_builtins_and_the_descriptors() {
    for (format, name_at) in [
        ("openai", "/function/name"),
        ("anthropic", "/name"),
        ("mcp", "/name"),
    ] {
        let run = run_example(&["tools", "--format", format]);
        assert_eq!(run.code, 0, "{run:?}");
        let names: Vec<String> = run
            .json()
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.pointer(name_at).unwrap().as_str().unwrap().to_owned())
            .collect();
        for name in ["grep", "search_text", "list_rust_files", "count_lines"] {
            assert!(
                names.iter().any(|n| n == name),
                "{format}: {name} not in {names:?}"
            );
        }
    }
}

#[test]
fn mcp_schemas() {
    let run = run_example(&["tools", "--format", "mcp"]);
    assert_eq!(run.code, 0, "{run:?}");
    snapshot!("mcp", run.stdout);
}

#[test]
fn openai_is_the_default_format() {
    let run = run_example(&["tools"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.json()[0]["type"], "function");
}

#[test]
fn enabled_tools_narrow_what_is_visible() {
    let root = crate::support::example_root();
    let tools = crate::support::example_tools();
    let run = run_with(
        jig()
            .env("JIG_ENABLED_TOOLS", "search_text,count_lines")
            .args([
                "--root",
                root.to_str().unwrap(),
                "--tools",
                tools.to_str().unwrap(),
            ])
            .args(["tools", "--format", "mcp"]),
    );
    assert_eq!(run.code, 0, "{run:?}");
    let json = run.json();
    let names: Vec<&str> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["count_lines", "search_text"], "registration order");
}

#[test]
fn a_bad_descriptor_is_skipped_with_a_warning_and_the_rest_load() {
    let dir = crate::support::tools_dir(&[
        (
            "ok.tool.json",
            r#"{"name": "line_count", "description": "Count lines", "command": "wc -l {path}",
                "arguments": {"path": {"type": "path", "description": "File", "required": true}}}"#,
        ),
        (
            "bad.tool.json",
            r#"{"name": "bad", "command": "sh -c {script}"}"#,
        ),
    ]);
    let root = crate::support::example_root();
    let run = crate::support::run_jig(&[
        "--root",
        root.to_str().unwrap(),
        "--tools",
        dir.path().to_str().unwrap(),
        "tools",
        "--format",
        "mcp",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("bad.tool.json"), "{}", run.stderr);
    assert!(run.stderr.contains("jig check"), "{}", run.stderr);
    let json = run.json();
    let names: Vec<&str> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"line_count"), "{names:?}");
    assert!(!names.contains(&"bad"), "{names:?}");
}
