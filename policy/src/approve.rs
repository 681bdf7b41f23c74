//! Asking a person before calls that a rule marks as needing approval.

use jig_lineage::Layer;
use std::collections::BTreeSet;
use std::sync::Arc;

use jig_lineage::{ErrorCode, Refusal, ToolResult};
use serde_json::Value;

use crate::{Call, Middleware, Next};

/// What an approver is asked: the exact call and what it would run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ApprovalRequest {
    /// The tool's name.
    pub tool: String,
    /// The model's arguments, exactly.
    pub arguments: Value,
    /// The argv that would run.
    pub argv: Vec<String>,
    /// The rule that asks for approval.
    pub rule: String,
}

/// An approver's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Approval {
    /// Run the call.
    Approve,
    /// Do not run it, for this reason (shown to the model).
    Deny {
        /// Why not.
        reason: String,
    },
}

/// Decides on calls that need approval: a prompt to a person, a chat
/// message, a list of pre-approved calls.
///
/// Each request is one exact call (tool name and arguments): an answer never
/// carries over to another call.
pub trait Approver: Send + Sync {
    /// Approves or denies `request`.
    fn approve(&self, request: &ApprovalRequest) -> Approval;
}

/// Approves exactly the listed calls (tool name and arguments, compared as
/// JSON values) and denies every other.
#[derive(Debug, Clone, Default)]
pub struct ExactCalls {
    calls: BTreeSet<(String, String)>,
}

impl ExactCalls {
    /// No call approved.
    pub fn new() -> Self {
        Self::default()
    }

    /// This list with one more approved call.
    pub fn approve(mut self, tool: impl Into<String>, arguments: &Value) -> Self {
        self.calls.insert((tool.into(), canonical(arguments)));
        self
    }
}

impl Approver for ExactCalls {
    fn approve(&self, request: &ApprovalRequest) -> Approval {
        if self
            .calls
            .contains(&(request.tool.clone(), canonical(&request.arguments)))
        {
            Approval::Approve
        } else {
            Approval::Deny {
                reason: "this exact call was not approved in advance".to_owned(),
            }
        }
    }
}

/// JSON text with object keys sorted, so equal values compare equal.
fn canonical(value: &Value) -> String {
    fn sort(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut entries: Vec<_> = map.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                Value::Object(
                    entries
                        .into_iter()
                        .map(|(k, v)| (k.clone(), sort(v)))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(sort).collect()),
            other => other.clone(),
        }
    }
    sort(value).to_string()
}

/// Asks the approver (if any) before calls whose validation says they need
/// approval; without an approver such calls are refused.
#[derive(Clone, Default)]
pub struct ApprovalMiddleware {
    approver: Option<Arc<dyn Approver>>,
}

impl std::fmt::Debug for ApprovalMiddleware {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApprovalMiddleware")
            .field("approver", &self.approver.is_some())
            .finish()
    }
}

impl ApprovalMiddleware {
    /// Approval through `approver`, or refusal of every such call when
    /// `None`.
    pub fn new(approver: Option<Arc<dyn Approver>>) -> Self {
        Self { approver }
    }
}

impl Middleware for ApprovalMiddleware {
    fn handle(&self, call: &Call<'_>, next: Next<'_>) -> ToolResult {
        let Ok(invocation) = call.check() else {
            return next.run(call); // the refusal itself is the tool's answer
        };
        let Some(rule) = &invocation.needs_approval else {
            return next.run(call);
        };
        let Some(approver) = &self.approver else {
            return ToolResult::Refused(Refusal::new(
                ErrorCode::ApprovalRequired,
                Layer::PolicyApproval,
                format!(
                    "this call needs a person's approval (rule `{rule}`) and no approver is \
                     configured; do not retry it, ask the user to run it or to approve it"
                ),
            ));
        };
        let request = ApprovalRequest {
            tool: call.name().to_owned(),
            arguments: call.arguments().clone(),
            argv: invocation.argv.clone(),
            rule: rule.clone(),
        };
        match approver.approve(&request) {
            Approval::Approve => next.run(call),
            Approval::Deny { reason } => ToolResult::Refused(Refusal::new(
                ErrorCode::ApprovalDenied,
                Layer::PolicyApproval,
                format!(
                    "the approver refused this call (rule `{rule}`): {reason}; \
                     do not retry the same call"
                ),
            )),
        }
    }
}
