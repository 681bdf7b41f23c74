//! `repair` and `repair_value` as a caller sees them: replies of weak
//! models, and the errors.

use jig_toolcall::{MAX_DEPTH, RepairError, repair, repair_value};
use serde_json::json;

/// Replies in the style of small local models, and their repair.
#[test]
fn weak_model_replies_are_repaired() {
    let cases = [
        (
            "Sure! Here is the tool call:\n```json\n{\n  \"name\": \"read_file\",\n  \"arguments\": {\"path\": \"README.md\"}\n}\n```\nLet me know if you need anything else.",
            json!({"name": "read_file", "arguments": {"path": "README.md"}}),
        ),
        (
            "{'name': 'search', 'arguments': {'query': 'don't panic', 'limit': 10,}}",
            json!({"name": "search", "arguments": {"query": "don't panic", "limit": 10}}),
        ),
        (
            "{\n  \"name\": \"run\", // the exec tool\n  \"arguments\": {\"cmd\": \"ls -la\", \"dry\": False, \"cwd\": None}\n}",
            json!({"name": "run", "arguments": {"cmd": "ls -la", "dry": false, "cwd": null}}),
        ),
        (
            "{name: write_file, arguments: {path: notes.txt, content: \"a \"quoted\" word\"}}",
            json!({"name": "write_file", "arguments": {"path": "notes.txt", "content": "a \"quoted\" word"}}),
        ),
        (
            "{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"line one\nline two",
            json!({"name": "write_file", "arguments": {"path": "a.txt", "content": "line one\nline two"}}),
        ),
        (
            "{\"name\": \"grep\" \"arguments\": {\"pattern\": \"TODO\" \"path\": \"src\"}}",
            json!({"name": "grep", "arguments": {"pattern": "TODO", "path": "src"}}),
        ),
    ];
    for (reply, expected) in cases {
        assert_eq!(repair_value(reply).unwrap(), expected, "{reply}");
        let text = repair(reply).unwrap();
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&text).unwrap(),
            expected
        );
    }
}

#[test]
fn prose_is_no_json() {
    for reply in ["I have finished the task.", "", "   ", "The answer: yes"] {
        assert!(matches!(repair(reply), Err(RepairError::NoJson)), "{reply}");
    }
}

#[test]
fn nesting_beyond_the_limit_is_an_error() {
    let deep = format!(
        "{}1{}",
        "[".repeat(MAX_DEPTH + 1),
        "]".repeat(MAX_DEPTH + 1)
    );
    assert!(matches!(
        repair(&deep),
        Err(RepairError::TooDeep {
            limit: MAX_DEPTH,
            ..
        })
    ));
    let deepest_allowed = format!("{}1{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
    assert_eq!(repair(&deepest_allowed).unwrap(), deepest_allowed);
}

#[test]
fn error_messages() {
    let invalid = serde_json::from_str::<serde_json::Value>("[").unwrap_err();
    let messages = [
        RepairError::NoJson.to_string(),
        RepairError::TooDeep {
            offset: 130,
            limit: MAX_DEPTH,
        }
        .to_string(),
        RepairError::Invalid { source: invalid }.to_string(),
    ];
    insta::assert_snapshot!(messages.join("\n"));
}
