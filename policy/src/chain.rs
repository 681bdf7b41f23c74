//! The middleware chain around one tool call.

use std::sync::{Arc, OnceLock};

use jig_lineage::{CheckContext, ErrorCode, Invocation, Refusal, Tool, ToolResult};
use serde_json::Value;

use crate::{PolicyList, ToolPolicy, Verdict};

/// One call on its way through the chain: the tool, the model's arguments
/// and what validation may know of the workspace, plus the tool's own
/// validation, computed at most once. A call holds no kernel: no middleware
/// can run anything.
pub struct Call<'a> {
    tool: &'a dyn Tool,
    arguments: &'a Value,
    context: CheckContext<'a>,
    checked: OnceLock<Result<Invocation, Refusal>>,
}

impl std::fmt::Debug for Call<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Call")
            .field("tool", &self.tool.name())
            .field("arguments", self.arguments)
            .finish_non_exhaustive()
    }
}

impl<'a> Call<'a> {
    /// A call of `tool` with `arguments`, in the workspace of `context`.
    pub fn new(tool: &'a dyn Tool, arguments: &'a Value, context: CheckContext<'a>) -> Self {
        Self {
            tool,
            arguments,
            context,
            checked: OnceLock::new(),
        }
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        self.tool.name()
    }

    /// The tool.
    pub fn tool(&self) -> &'a dyn Tool {
        self.tool
    }

    /// The model's arguments.
    pub fn arguments(&self) -> &'a Value {
        self.arguments
    }

    /// What the tool's validation knows of the workspace: its canonical
    /// root and the program search path.
    pub fn context(&self) -> CheckContext<'a> {
        self.context
    }

    /// The tool's validation of the arguments (the dry run), computed on
    /// first use and reused by every later layer, so what was approved is
    /// exactly what runs.
    pub fn check(&self) -> &Result<Invocation, Refusal> {
        self.checked
            .get_or_init(|| self.tool.check(self.arguments, &self.context))
    }
}

/// One layer around tool calls: it answers a call itself or passes it on.
pub trait Middleware: Send + Sync {
    /// Handles `call`; `next.run(call)` passes it on to the rest of the chain.
    fn handle(&self, call: &Call<'_>, next: Next<'_>) -> ToolResult;
}

/// The rest of the chain after one middleware.
pub struct Next<'a> {
    rest: &'a [Arc<dyn Middleware>],
    terminal: &'a dyn Fn(&Call<'_>) -> ToolResult,
}

impl std::fmt::Debug for Next<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Next")
            .field("remaining", &self.rest.len())
            .finish_non_exhaustive()
    }
}

impl Next<'_> {
    /// Passes `call` to the next middleware, or to the end of the chain.
    pub fn run(self, call: &Call<'_>) -> ToolResult {
        match self.rest.split_first() {
            Some((first, rest)) => first.handle(
                call,
                Next {
                    rest,
                    terminal: self.terminal,
                },
            ),
            None => (self.terminal)(call),
        }
    }
}

/// An ordered list of middlewares; the first sees every call first.
#[derive(Clone, Default)]
pub struct Chain {
    layers: Vec<Arc<dyn Middleware>>,
}

impl std::fmt::Debug for Chain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chain")
            .field("layers", &self.layers.len())
            .finish()
    }
}

impl Chain {
    /// An empty chain.
    pub fn new() -> Self {
        Self::default()
    }

    /// This chain with `layer` added last.
    pub fn with(mut self, layer: impl Middleware + 'static) -> Self {
        self.layers.push(Arc::new(layer));
        self
    }

    /// This chain with a shared `layer` added last.
    pub fn with_shared(mut self, layer: Arc<dyn Middleware>) -> Self {
        self.layers.push(layer);
        self
    }

    /// Sends `call` through every layer; `terminal` runs it at the end.
    pub fn handle(
        &self,
        call: &Call<'_>,
        terminal: &dyn Fn(&Call<'_>) -> ToolResult,
    ) -> ToolResult {
        Next {
            rest: &self.layers,
            terminal,
        }
        .run(call)
    }
}

/// The runtime policy as middleware: the first layer of every call.
#[derive(Debug, Clone)]
pub struct PolicyMiddleware {
    policy: ToolPolicy,
}

impl PolicyMiddleware {
    /// The middleware of `policy`.
    pub fn new(policy: ToolPolicy) -> Self {
        Self { policy }
    }
}

impl Middleware for PolicyMiddleware {
    fn handle(&self, call: &Call<'_>, next: Next<'_>) -> ToolResult {
        match self.policy.verdict(call.name()) {
            Verdict::Allow => next.run(call),
            Verdict::Deny(list) => ToolResult::Refused(policy_refusal(call.name(), list)),
        }
    }
}

/// The refusal a policy list gives: code 616, `tool_policy_denied`, layer
/// `policy.denylist` or `policy.allowlist`.
pub fn policy_refusal(name: &str, list: PolicyList) -> Refusal {
    let why = match list {
        PolicyList::Denylist => "it is on the runtime deny list",
        PolicyList::Allowlist => "it is not on the runtime allow list",
    };
    Refusal::new(
        ErrorCode::PolicyDenied,
        list.layer(),
        format!(
            "tool `{name}` may not run in this environment: {why} ({}); \
             do not retry it, use another of your tools or tell the user what you need",
            list.as_str()
        ),
    )
}
