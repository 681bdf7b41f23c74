//! The runtime tool policy: which of the visible tools may run now, as
//! middleware placed first on every call.
//!
//! Two questions are kept apart. *Which tools the model can see* is the set
//! of registered and enabled tools whose schemas are sent
//! ([`PolicyConfig::enabled`]). *Which of them may run here, now* is the
//! runtime policy: a tool can be visible and still be refused.
//!
//! # Guarantees
//!
//! - The deny list is checked first; a non-empty allow list narrows; empty
//!   lists change nothing. A refused call never reaches the tool: not its
//!   validation, not the kernel.
//! - A refusal is a result for the model, not an error of the program: code
//!   616, `error_type` `tool_policy_denied`, the list that refused it
//!   (`denylist` or `allowlist`) and a sentence the model can act on.
//! - A list that names an unregistered tool is a configuration error when
//!   the policy is built, listing the known names.
//! - Calls that a tool marks as needing approval (the exec tool's `ask`
//!   rules) go to the integrator's [`Approver`] with the exact call; without
//!   one they are refused (617), and a denial is 618.
//! - Every call can be turned into one [`AuditEvent`], emitted through
//!   `tracing` and optionally appended to a JSON-lines file.
//!
//! # Non-goals
//!
//! The policy decides by tool name and by what a tool's own validation
//! reports; it parses no command line and runs nothing. It never reads the
//! environment by itself: [`PolicyConfig::from_vars`] takes the lookup.
//!
//! # Example
//!
//! ```
//! use jig_policy::{PolicyConfig, PolicyList, ToolPolicy, Verdict};
//!
//! # fn main() -> Result<(), jig_policy::PolicyError> {
//! let config = PolicyConfig::new().with_deny(["exec"]);
//! let policy = ToolPolicy::new(&config, &["grep", "find", "exec"])?;
//! assert_eq!(policy.verdict("grep"), Verdict::Allow);
//! assert_eq!(policy.verdict("exec"), Verdict::Deny(PolicyList::Denylist));
//! # Ok(())
//! # }
//! ```
#![forbid(unsafe_code)]

mod approve;
mod audit;
mod chain;
mod rules;

pub use approve::{Approval, ApprovalMiddleware, ApprovalRequest, Approver, ExactCalls};
pub use audit::{AuditEvent, AuditSink, JsonLinesAudit};
pub use chain::{Call, Chain, Middleware, Next, PolicyMiddleware, policy_refusal};
pub use rules::{
    ENV_ALLOWLIST, ENV_DENYLIST, ENV_ENABLED, PolicyConfig, PolicyError, PolicyList, ToolPolicy,
    Verdict, split_names,
};
