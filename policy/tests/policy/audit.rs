use std::time::Instant;

use jig_policy::{
    AuditEvent, AuditSink, Call, Chain, JsonLinesAudit, PolicyConfig, PolicyMiddleware, ToolPolicy,
};
use serde_json::json;

use crate::{Echo, context, kernel, terminal};

#[test]
fn every_call_leaves_one_json_line() {
    let (dir, kernel) = kernel();
    let path = dir.path().join("audit.jsonl");
    let sink = JsonLinesAudit::open(&path).unwrap();
    let policy = ToolPolicy::new(
        &PolicyConfig::new().with_deny(["other"]),
        &["visible", "other"],
    )
    .unwrap();
    let chain = Chain::new().with(PolicyMiddleware::new(policy));
    for name in ["visible", "other"] {
        let tool = Echo::new(name);
        let args = json!({"text": "audited"});
        let start = Instant::now();
        let result = chain.handle(
            &Call::new(&tool, &args, context(&kernel)),
            &terminal(&kernel),
        );
        let event = AuditEvent::new(name, &result, start.elapsed());
        event.emit();
        sink.record(&event);
    }
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["verdict"], "ran");
    assert_eq!(
        lines[0]["argv"][0].as_str().unwrap().rsplit('/').next(),
        Some("echo")
    );
    assert_eq!(lines[0]["exit_code"], 0);
    assert_eq!(lines[0]["output_bytes"], 8);
    // The event says what contained the command (this machine kind has
    // every mechanism) and what it was allowed to change.
    assert!(
        lines[0]["containment"]
            .as_str()
            .unwrap()
            .starts_with("landlock abi"),
        "{}",
        lines[0]
    );
    assert!(lines[0]["access"].is_string());
    assert!(lines[1]["containment"].is_null());
    assert_eq!(lines[1]["verdict"], "refused");
    assert_eq!(lines[1]["layer"], "policy.denylist");
    assert_eq!(lines[1]["code"], 616);
    assert_eq!(lines[1]["error_type"], "tool_policy_denied");
}
