//! The exec form end to end through `dispatch`: one row per layer.

use std::sync::Arc;
use std::time::Duration;

use jig_exec_tool::{AllowList, ExecTool, PermissionRule};
use jig_lineage::ToolResult;
use jig_policy::{ExactCalls, PolicyConfig};
use jig_presets::Registry;
use serde_json::json;

use crate::Fixture;

fn exec_registry(fixture: &Fixture, policy: PolicyConfig) -> Registry {
    let allow = AllowList::default_read_only()
        .dangerous_allow_untabled(["sleep", "seq"])
        .unwrap();
    let config = ExecTool::builder()
        .allow(allow)
        .rule(PermissionRule::ask("git log *").unwrap());
    fixture
        .preset()
        .with_timeout(Duration::from_millis(400))
        .with_exec(config)
        .with_exec_budget(64)
        .with_policy(policy)
        .build()
        .unwrap()
        .registry
}

fn run(registry: &Registry, command: &str) -> ToolResult {
    registry.dispatch("exec", &json!({ "command": command }))
}

#[test]
fn exec_is_off_unless_granted() {
    let fixture = Fixture::new();
    let registry = fixture.registry();
    assert!(registry.tool("exec").is_none());
    assert_eq!(run(&registry, "ls").refusal().unwrap().code.code(), 619);
}

#[test]
fn one_row_per_exec_layer() {
    let fixture = Fixture::new();
    let registry = exec_registry(&fixture, PolicyConfig::new());
    let denied = exec_registry(&fixture, PolicyConfig::new().with_deny(["exec"]));
    let refusals = [
        (&denied, "ls", 616, "policy.denylist"),
        (&registry, "ls | wc -l", 615, "exec.operator"),
        (&registry, "cat notes.txt; id", 615, "exec.operator"),
        (&registry, "make", 615, "exec.allowlist"),
        (&registry, "rm notes.txt", 615, "exec.denylist"),
        (&registry, "find . -delete", 615, "exec.flags"),
        (&registry, "cat /etc/passwd", 615, "exec.path"),
        (&registry, "git log --oneline", 617, "policy.approval"),
    ];
    for (registry, command, code, layer) in refusals {
        let result = run(registry, command);
        let refusal = result
            .refusal()
            .unwrap_or_else(|| panic!("{command}: ran: {}", result.text()));
        assert_eq!(
            (refusal.code.code(), refusal.layer.as_str()),
            (code, layer),
            "{command}"
        );
    }
    assert!(fixture.root().join("notes.txt").exists());

    let ok = run(&registry, "cat notes.txt");
    assert_eq!(
        ok.text(),
        "exit: 0\noutput: first line\nTODO: write tests\nlast line\n"
    );
    let timed_out = run(&registry, "sleep 5");
    assert!(timed_out.outcome().unwrap().timed_out());
    let truncated = run(&registry, "seq 1 5000");
    let outcome = truncated.outcome().unwrap();
    assert!(outcome.output.is_truncated());
    assert_eq!(outcome.output.kept_bytes().len(), 64);
}

#[test]
fn an_approved_exact_call_runs() {
    let fixture = Fixture::new();
    let args = json!({"command": "git log --oneline"});
    let registry = fixture
        .preset()
        .with_exec(ExecTool::builder().rule(PermissionRule::ask("git log *").unwrap()))
        .with_approver(Arc::new(ExactCalls::new().approve("exec", &args)))
        .build()
        .unwrap()
        .registry;
    // Approved: git runs (and fails: the workspace is not a repository).
    let result = registry.dispatch("exec", &args);
    let outcome = result
        .outcome()
        .unwrap_or_else(|| panic!("{}", result.text()));
    assert_ne!(outcome.exit_code(), Some(0));
    // Another call under the same rule is not approved.
    let other = registry.dispatch("exec", &json!({"command": "git log -1"}));
    assert_eq!(other.refusal().unwrap().code.code(), 618);
}

#[test]
fn read_only_exec_calls_are_concurrency_safe() {
    let fixture = Fixture::new();
    let registry = exec_registry(&fixture, PolicyConfig::new());
    assert!(registry.is_concurrency_safe("exec", &json!({"command": "grep -rn TODO ."})));
    assert!(registry.is_concurrency_safe("exec", &json!({"command": "ls"})));
    assert!(!registry.is_concurrency_safe("exec", &json!({"command": "sleep 1"})));
    assert!(!registry.is_concurrency_safe("exec", &json!({"command": "ls | wc"})));
}
