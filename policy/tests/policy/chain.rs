use jig_policy::{Call, Chain, PolicyConfig, PolicyMiddleware, ToolPolicy};
use serde_json::json;

use crate::{Echo, context, kernel, terminal};

fn chain(config: PolicyConfig) -> Chain {
    let policy = ToolPolicy::new(&config, &["visible", "other"]).unwrap();
    Chain::new().with(PolicyMiddleware::new(policy))
}

#[test]
fn a_visible_but_denied_tool_is_never_reached() {
    let (_dir, kernel) = kernel();
    let tool = Echo::new("visible");
    let args = json!({"text": "hi"});
    let chain = chain(PolicyConfig::new().with_deny(["visible"]));
    let result = chain.handle(
        &Call::new(&tool, &args, context(&kernel)),
        &terminal(&kernel),
    );
    let refusal = result.refusal().unwrap();
    assert_eq!(refusal.code.code(), 616);
    assert_eq!(refusal.code.error_type(), "tool_policy_denied");
    assert_eq!(refusal.layer.as_str(), "policy.denylist");
    assert_eq!(tool.reached(), 0, "the tool's validation must not run");
    insta::assert_snapshot!("denylist_refusal", result.text());
}

#[test]
fn the_allow_list_narrows() {
    let (_dir, kernel) = kernel();
    let tool = Echo::new("visible");
    let args = json!({});
    let chain = chain(PolicyConfig::new().with_allow(["other"]));
    let result = chain.handle(
        &Call::new(&tool, &args, context(&kernel)),
        &terminal(&kernel),
    );
    assert_eq!(result.refusal().unwrap().layer.as_str(), "policy.allowlist");
    assert_eq!(tool.reached(), 0);
    insta::assert_snapshot!("allowlist_refusal", result.text());
}

#[test]
fn empty_lists_change_nothing() {
    let (_dir, kernel) = kernel();
    let tool = Echo::new("visible");
    let args = json!({"text": "ran"});
    let result = chain(PolicyConfig::new()).handle(
        &Call::new(&tool, &args, context(&kernel)),
        &terminal(&kernel),
    );
    assert_eq!(result.text(), "exit: 0\noutput: ran\n");
    assert_eq!(
        tool.reached(),
        1,
        "validation runs once for the whole chain"
    );
}
