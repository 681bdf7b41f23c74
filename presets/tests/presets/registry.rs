use std::sync::Arc;
use std::time::Duration;

use jig_lineage::ToolResult;
use jig_policy::{ExactCalls, PolicyConfig};
use jig_presets::FullPreset;
use serde_json::{Value, json};

use crate::{Fixture, redact};

/// What a row of the matrix expects.
#[derive(Debug)]
enum Expect {
    /// The command ran and exited with this code.
    Exit(i32),
    /// The kernel's timeout ended it.
    TimedOut,
    /// It ran and its output was cut.
    Truncated,
    /// Refused with this code by this layer.
    Refused(u16, &'static str),
}

fn check(label: &str, result: &ToolResult, expect: &Expect) {
    match (expect, result) {
        (Expect::Exit(code), ToolResult::Ran { outcome, .. }) => {
            assert_eq!(
                outcome.exit_code(),
                Some(*code),
                "{label}: {}",
                result.text()
            );
        }
        (Expect::TimedOut, ToolResult::Ran { outcome, .. }) => {
            assert!(outcome.timed_out(), "{label}: {}", result.text());
        }
        (Expect::Truncated, ToolResult::Ran { outcome, .. }) => {
            assert!(outcome.output.is_truncated(), "{label}: {}", result.text());
        }
        (Expect::Refused(code, layer), ToolResult::Refused(refusal)) => {
            assert_eq!(refusal.code.code(), *code, "{label}: {}", result.text());
            assert_eq!(refusal.layer.as_str(), *layer, "{label}: {}", result.text());
        }
        _ => panic!("{label}: expected {expect:?}, got {}", result.text()),
    }
}

/// One row per layer and form, end to end through `dispatch`.
#[test]
fn one_row_per_layer() {
    let fixture = Fixture::new();
    let preset = || {
        fixture
            .preset()
            .with_timeout(Duration::from_millis(400))
            .with_output_budget("seq", 64)
    };
    let plain = preset().build().unwrap().registry;
    let denying = preset()
        .with_policy(PolicyConfig::new().with_deny(["grep", "count_lines"]))
        .build()
        .unwrap()
        .registry;
    let allowing = preset()
        .with_policy(PolicyConfig::new().with_allow(["sed_print"]))
        .build()
        .unwrap()
        .registry;
    let rows: Vec<(&str, &jig_presets::Registry, &str, Value, Expect)> = vec![
        // command form (built-in and code-form)
        (
            "command ok",
            &plain,
            "grep",
            json!({"pattern": "TODO", "path": "."}),
            Expect::Exit(0),
        ),
        (
            "command no match",
            &plain,
            "grep",
            json!({"pattern": "absent", "path": "."}),
            Expect::Exit(1),
        ),
        (
            "command slot",
            &plain,
            "grep",
            json!({"pattern": "a;b"}),
            Expect::Refused(614, "slot"),
        ),
        (
            "command option injection",
            &plain,
            "find",
            json!({"path": "-delete", "pattern": "x"}),
            Expect::Refused(614, "slot"),
        ),
        (
            "command denylist",
            &denying,
            "grep",
            json!({"pattern": "TODO"}),
            Expect::Refused(616, "policy.denylist"),
        ),
        (
            "command allowlist",
            &allowing,
            "find",
            json!({"pattern": "x"}),
            Expect::Refused(616, "policy.allowlist"),
        ),
        (
            "command timeout",
            &plain,
            "sleep",
            json!({"seconds": 5}),
            Expect::TimedOut,
        ),
        (
            "command truncation",
            &plain,
            "seq",
            json!({"n": 5000}),
            Expect::Truncated,
        ),
        // descriptor form
        (
            "descriptor ok",
            &plain,
            "count_lines",
            json!({"path": "notes.txt"}),
            Expect::Exit(0),
        ),
        (
            "descriptor path escape",
            &plain,
            "count_lines",
            json!({"path": "../../etc/passwd"}),
            Expect::Refused(614, "slot"),
        ),
        (
            "descriptor device",
            &plain,
            "count_lines",
            json!({"path": "/dev/zero"}),
            Expect::Refused(614, "slot"),
        ),
        (
            "descriptor missing slot",
            &plain,
            "count_lines",
            json!({}),
            Expect::Refused(614, "slot"),
        ),
        (
            "descriptor denylist",
            &denying,
            "count_lines",
            json!({"path": "notes.txt"}),
            Expect::Refused(616, "policy.denylist"),
        ),
        // registry
        (
            "unknown tool",
            &plain,
            "rm",
            json!({}),
            Expect::Refused(619, "registry"),
        ),
        (
            "arguments not an object",
            &plain,
            "grep",
            json!([1, 2]),
            Expect::Refused(620, "registry"),
        ),
    ];
    for (label, registry, tool, args, expect) in &rows {
        check(label, &registry.dispatch(tool, args), expect);
    }
}

#[test]
fn results_read_well() {
    let fixture = Fixture::new();
    let registry = fixture.registry();
    let calls = [
        (
            "grep_ok",
            "grep",
            json!({"pattern": "TODO", "path": "notes.txt"}),
        ),
        (
            "sed_print_ok",
            "sed_print",
            json!({"range": "2", "path": "notes.txt"}),
        ),
        ("unknown_tool", "grpe", json!({})),
        ("invalid_arguments", "grep", json!("{not json")),
    ];
    for (name, tool, args) in calls {
        let text = registry.dispatch(tool, &args).text();
        insta::assert_snapshot!(name, redact(&text, fixture.root()));
    }
}

#[test]
fn arguments_may_arrive_as_a_json_string() {
    let fixture = Fixture::new();
    let registry = fixture.registry();
    let result = registry.dispatch(
        "sed_print",
        &json!(r#"{"range": "2", "path": "notes.txt"}"#),
    );
    assert_eq!(result.text(), "exit: 0\noutput: TODO: write tests\n");
}

#[test]
fn dry_run_gives_the_argv_or_the_refusal_and_runs_nothing() {
    let fixture = Fixture::new();
    let registry = fixture.registry();
    let invocation = registry
        .dry_run("find", &json!({"path": "src", "pattern": "*.rs"}))
        .unwrap();
    assert_eq!(invocation.argv, ["find", "src", "-name", "*.rs"]);
    let refusal = registry
        .dry_run("grep", &json!({"pattern": "$(id)"}))
        .unwrap_err();
    assert_eq!(refusal.code.code(), 614);
    let denied = fixture
        .preset()
        .with_policy(PolicyConfig::new().with_deny(["find"]))
        .build()
        .unwrap()
        .registry;
    let refusal = denied
        .dry_run("find", &json!({"pattern": "x"}))
        .unwrap_err();
    assert_eq!(refusal.code.code(), 616);
    // A dry run of a command that would create a file creates nothing.
    let marker = fixture.root().join("created-by-dry-run");
    let _ = registry.dry_run("count_lines", &json!({"path": "created-by-dry-run"}));
    assert!(!marker.exists());
}

#[test]
fn read_only_calls_are_safe_to_run_concurrently() {
    let fixture = Fixture::new();
    let registry = fixture.registry();
    assert!(registry.is_concurrency_safe("grep", &json!({"pattern": "x"})));
    assert!(!registry.is_concurrency_safe("sleep", &json!({"seconds": 1})));
    assert!(!registry.is_concurrency_safe("grep", &json!({"pattern": "a b"})));
    assert!(!registry.is_concurrency_safe("nope", &json!({})));
}

#[test]
fn eight_threads_dispatch_at_once() {
    let fixture = Fixture::new();
    let registry = Arc::new(fixture.registry());
    let handles: Vec<_> = (0..8)
        .map(|i| {
            let registry = Arc::clone(&registry);
            std::thread::spawn(move || {
                let (tool, args) = match i % 3 {
                    0 => ("grep", json!({"pattern": "TODO", "path": "."})),
                    1 => ("find", json!({"path": ".", "pattern": "*.rs"})),
                    _ => ("sed_print", json!({"range": "1,2", "path": "notes.txt"})),
                };
                assert!(registry.is_concurrency_safe(tool, &args));
                registry.dispatch(tool, &args)
            })
        })
        .collect();
    for handle in handles {
        let result = handle.join().unwrap();
        assert_eq!(
            result.outcome().unwrap().exit_code(),
            Some(0),
            "{}",
            result.text()
        );
    }
}

#[test]
fn every_call_is_audited_to_the_sink() {
    let fixture = Fixture::new();
    let log = fixture.root().join("audit.jsonl");
    let sink = Arc::new(jig_policy::JsonLinesAudit::open(&log).unwrap());
    let registry = FullPreset::new(fixture.root())
        .with_audit(sink)
        .build()
        .unwrap()
        .registry;
    registry.dispatch("grep", &json!({"pattern": "TODO"}));
    registry.dispatch("grep", &json!({"pattern": "a|b"}));
    let lines: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["verdict"], "ran");
    assert_eq!(lines[1]["code"], 614);
    assert_eq!(lines[1]["layer"], "slot");
}

#[test]
fn an_approver_is_wired_in() {
    // Built-in tools never ask; the wiring is exercised end to end by the
    // exec tool's ask rules. Here: an approver does not disturb other calls.
    let fixture = Fixture::new();
    let registry = fixture
        .preset()
        .with_approver(Arc::new(ExactCalls::new()))
        .build()
        .unwrap()
        .registry;
    let result = registry.dispatch("grep", &json!({"pattern": "TODO"}));
    assert_eq!(result.outcome().unwrap().exit_code(), Some(0));
}
