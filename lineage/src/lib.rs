//! The command tool lineage: the `Tool` interface, templates, typed slots and
//! their validation, the deny-binaries list, the built-in command tools.
//!
//! (Front page to be completed with the lineage issue.)
#![forbid(unsafe_code)]

mod codes;
mod deny;
mod tool;

pub use codes::ErrorCode;
pub use deny::{DEFAULT_DENIED, DEFAULT_DENIED_PREFIXES, DenyList};
pub use tool::{Invocation, Refusal, RunContext, Tool, ToolAudit, ToolForm, ToolResult, execute};
