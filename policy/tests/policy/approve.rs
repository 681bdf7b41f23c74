use std::sync::Arc;

use jig_policy::{ApprovalMiddleware, Call, Chain, ExactCalls};
use serde_json::json;

use crate::{Echo, context, kernel, terminal};

#[test]
fn without_an_approver_asking_calls_are_refused() {
    let (_dir, kernel) = kernel();
    let tool = Echo::asking("deploy");
    let args = json!({"text": "x"});
    let chain = Chain::new().with(ApprovalMiddleware::new(None));
    let result = chain.handle(
        &Call::new(&tool, &args, context(&kernel)),
        &terminal(&kernel),
    );
    assert_eq!(result.refusal().unwrap().code.code(), 617);
    insta::assert_snapshot!("approval_required", result.text());
}

#[test]
fn approval_is_bound_to_the_exact_call() {
    let (_dir, kernel) = kernel();
    let tool = Echo::asking("deploy");
    let approved = json!({"text": "approved"});
    let approver = ExactCalls::new().approve("deploy", &approved);
    let chain = Chain::new().with(ApprovalMiddleware::new(Some(Arc::new(approver))));

    let result = chain.handle(
        &Call::new(&tool, &approved, context(&kernel)),
        &terminal(&kernel),
    );
    assert_eq!(result.text(), "exit: 0\noutput: approved\n");

    let other = json!({"text": "something else"});
    let result = chain.handle(
        &Call::new(&tool, &other, context(&kernel)),
        &terminal(&kernel),
    );
    assert_eq!(result.refusal().unwrap().code.code(), 618);
    insta::assert_snapshot!("approval_denied", result.text());
}

#[test]
fn calls_without_an_ask_rule_pass_untouched() {
    let (_dir, kernel) = kernel();
    let tool = Echo::new("plain");
    let args = json!({"text": "free"});
    let chain = Chain::new().with(ApprovalMiddleware::new(None));
    let result = chain.handle(
        &Call::new(&tool, &args, context(&kernel)),
        &terminal(&kernel),
    );
    assert_eq!(result.text(), "exit: 0\noutput: free\n");
}
