use std::time::Duration;

use jig_policy::PolicyConfig;
use jig_presets::{FullPreset, PresetError};

use crate::{Fixture, seq_tool, sleep_tool};

#[test]
fn builtins_and_descriptors_are_on_by_default() {
    let fixture = Fixture::new();
    let registry = fixture.registry();
    assert_eq!(
        registry.names(),
        ["grep", "find", "sed_print", "sleep", "seq", "count_lines"]
    );
}

#[test]
fn a_bad_descriptor_is_reported_not_fatal() {
    let fixture = Fixture::new();
    std::fs::write(
        fixture.root().join(".jig/tools/bad.tool.json"),
        r#"{"name": "bad", "description": "x", "command": "rm -rf {path}", "arguments": {"path": {"type": "path"}}}"#,
    )
    .unwrap();
    let built = fixture.preset().build().unwrap();
    assert_eq!(built.descriptor_errors.len(), 1);
    let message = built.descriptor_errors[0].to_string();
    assert!(
        message.contains("613") && message.contains("bad.tool.json"),
        "{message}"
    );
    assert!(built.registry.tool("count_lines").is_some());
    assert!(built.registry.tool("bad").is_none());
}

#[test]
fn a_descriptor_may_not_shadow_a_builtin() {
    let fixture = Fixture::new();
    std::fs::write(
        fixture.root().join(".jig/tools/grep.tool.json"),
        r#"{"name": "grep", "description": "x", "command": "grep {p} .", "arguments": {"p": {"type": "string"}}}"#,
    )
    .unwrap();
    let built = fixture.preset().build().unwrap();
    assert_eq!(built.descriptor_errors.len(), 1);
    assert_eq!(
        built.registry.tool("grep").unwrap().form(),
        jig_lineage::ToolForm::Command
    );
}

#[test]
fn an_unknown_name_in_the_policy_is_a_configuration_error() {
    let fixture = Fixture::new();
    let error = fixture
        .preset()
        .with_policy(PolicyConfig::new().with_deny(["grpe"]))
        .build()
        .unwrap_err();
    assert!(matches!(error, PresetError::Policy(_)));
    assert_eq!(
        error.to_string(),
        "the deny list names unknown tool `grpe`; known tools: count_lines, find, grep, sed_print, seq, sleep"
    );
}

#[test]
fn duplicate_code_form_tools_are_refused() {
    let fixture = Fixture::new();
    let error = fixture
        .preset()
        .with_command_tools([seq_tool()])
        .build()
        .unwrap_err();
    assert!(
        matches!(error, PresetError::DuplicateTool { .. }),
        "{error}"
    );
}

#[test]
fn a_missing_root_is_an_error() {
    let fixture = Fixture::new();
    let error = FullPreset::new(fixture.root().join("missing"))
        .build()
        .unwrap_err();
    assert!(matches!(error, PresetError::Kernel(_)), "{error}");
}

#[test]
fn enabled_tools_narrow_what_the_model_sees() {
    let fixture = Fixture::new();
    let registry = fixture
        .preset()
        .with_policy(PolicyConfig::new().with_enabled(["grep", "seq"]))
        .build()
        .unwrap()
        .registry;
    assert_eq!(registry.names(), ["grep", "seq"]);
    let refused = registry.dispatch("find", &serde_json::json!({"pattern": "x"}));
    assert_eq!(refused.refusal().unwrap().code.code(), 619);
}

#[test]
fn per_tool_output_budgets_apply() {
    let fixture = Fixture::new();
    let registry = fixture
        .preset()
        .with_output_budget("seq", 16)
        .with_timeout(Duration::from_secs(10))
        .build()
        .unwrap()
        .registry;
    assert_eq!(registry.limits_for("seq").max_output, 16);
    assert_eq!(registry.limits_for("grep").max_output, 2048);
    let result = registry.dispatch("seq", &serde_json::json!({"n": 1000}));
    let outcome = result.outcome().unwrap();
    assert_eq!(outcome.output.kept_bytes().len(), 16);
    let error = fixture
        .preset()
        .with_output_budget("nope", 1)
        .build()
        .unwrap_err();
    assert!(matches!(error, PresetError::UnknownBudget { .. }));
    let _ = sleep_tool();
}
