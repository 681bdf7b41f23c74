//! The registry: the visible tools, their schemas, and dispatch of one call
//! through the policy chain to a tool and the kernel.

use jig_lineage::Layer;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use jig_kernel::{CancelToken, Kernel, Limits, RunOptions};
use jig_lineage::{
    CheckContext, ErrorCode, Invocation, Refusal, SchemaFormat, Tool, ToolResult, export,
};
use jig_policy::{AuditEvent, AuditSink, Call, Chain, ToolPolicy, Verdict, policy_refusal};
use jig_programs::GitAnswer;
use serde_json::Value;

/// The tools a model can see and the one way to call them.
///
/// Every call goes through the policy chain first (allow/deny lists, then
/// approvals), then the tool's validation, then the kernel. The registry is
/// `Send + Sync`: share it across threads behind an `Arc`.
pub struct Registry {
    kernel: Kernel,
    tools: Vec<Arc<dyn Tool>>,
    by_name: BTreeMap<String, usize>,
    policy: ToolPolicy,
    chain: Chain,
    budgets: BTreeMap<String, usize>,
    audit: Option<Arc<dyn AuditSink>>,
    /// The repository's hooks folders, read-only in every call that may
    /// write (asked of git by the first one).
    hooks: Option<Arc<crate::hooks::LazyHooks>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("root", &self.kernel.root())
            .field("tools", &self.by_name.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// Options of one dispatch.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct DispatchOptions {
    /// Cancels the call (its whole process group) from another thread.
    pub cancel: Option<CancelToken>,
}

impl DispatchOptions {
    /// Options with a cancel token.
    pub fn with_cancel(cancel: CancelToken) -> Self {
        Self {
            cancel: Some(cancel),
        }
    }
}

impl Registry {
    /// A registry of `tools` (the visible ones, in order), calls going
    /// through `chain`.
    pub(crate) fn new(
        kernel: Kernel,
        tools: Vec<Arc<dyn Tool>>,
        policy: ToolPolicy,
        chain: Chain,
        budgets: BTreeMap<String, usize>,
        audit: Option<Arc<dyn AuditSink>>,
    ) -> Self {
        let by_name = tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name().to_owned(), i))
            .collect();
        Self {
            kernel,
            tools,
            by_name,
            policy,
            chain,
            budgets,
            audit,
            hooks: None,
        }
    }

    /// This registry with the repository's hooks folders protected in
    /// every call that may write.
    pub(crate) fn with_hooks(mut self, hooks: Arc<crate::hooks::LazyHooks>) -> Self {
        self.hooks = Some(hooks);
        self
    }

    /// Every path kept read-only in a call that may write: the kernel's
    /// own, the repository's hooks folders (`core.hooksPath`) and its
    /// submodules' `.git`, which this asks of git if no call has yet. An
    /// error says why git could not tell them all; every call that may
    /// write is then refused.
    pub fn protected_paths(&self) -> Result<Vec<PathBuf>, String> {
        let hooks = match &self.hooks {
            Some(hooks) => hooks.get().map_err(str::to_owned)?,
            None => &[],
        };
        Ok(self
            .kernel
            .read_only_paths()
            .iter()
            .chain(hooks)
            .cloned()
            .collect())
    }

    /// The kernel every call runs on.
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    /// The visible tools, in registration order.
    pub fn tools(&self) -> impl Iterator<Item = &dyn Tool> {
        self.tools.iter().map(|t| t.as_ref())
    }

    /// The names of the visible tools, in registration order.
    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().map(|t| t.name()).collect()
    }

    /// The visible tool called `name`.
    pub fn tool(&self, name: &str) -> Option<&dyn Tool> {
        self.by_name.get(name).map(|&i| self.tools[i].as_ref())
    }

    /// The visible tools' schemas, as a JSON array in `format`.
    pub fn schemas(&self, format: SchemaFormat) -> Value {
        Value::Array(self.tools().map(|t| export(t, format)).collect())
    }

    /// The limits of a call to `name`: the kernel's, with the tool's own
    /// output budget when one was set.
    pub fn limits_for(&self, name: &str) -> Limits {
        let limits = self.kernel.limits();
        match self.budgets.get(name) {
            Some(&bytes) => limits.with_max_output(bytes),
            None => limits,
        }
    }

    /// Dispatches one call: the policy chain, the tool's validation, the
    /// kernel. Arguments may be an object, a JSON string holding an object
    /// (as some model APIs send them) or null (no arguments).
    pub fn dispatch(&self, name: &str, arguments: &Value) -> ToolResult {
        self.dispatch_with(name, arguments, &DispatchOptions::default())
    }

    /// [`dispatch`](Self::dispatch) with options (a cancel token).
    pub fn dispatch_with(
        &self,
        name: &str,
        arguments: &Value,
        options: &DispatchOptions,
    ) -> ToolResult {
        let start = Instant::now();
        let result = self.dispatch_inner(name, arguments, options);
        // The event is made only when a subscriber or a sink takes it.
        if self.audit.is_some() || AuditEvent::traced() {
            let event = AuditEvent::new(name, &result, start.elapsed());
            event.emit();
            if let Some(sink) = &self.audit {
                sink.record(&event);
            }
        }
        result
    }

    fn dispatch_inner(
        &self,
        name: &str,
        arguments: &Value,
        options: &DispatchOptions,
    ) -> ToolResult {
        let tool = match self.resolve(name) {
            Ok(tool) => tool,
            Err(refusal) => return ToolResult::Refused(refusal),
        };
        let arguments = match normalize_arguments(arguments) {
            Ok(arguments) => arguments,
            Err(refusal) => return ToolResult::Refused(refusal),
        };
        let call = Call::new(tool, &arguments, self.check_context());
        let limits = self.limits_for(name);
        // The kernel stays here, at the end of the chain: no middleware holds it.
        let terminal = |call: &Call<'_>| match call.check() {
            Ok(invocation) => {
                let invocation = match self.harden_git(invocation.clone(), limits) {
                    Ok(invocation) => invocation,
                    Err(refusal) => return ToolResult::Refused(refusal),
                };
                let mut run = invocation.run_options(limits);
                if !invocation.read_only
                    && let Some(hooks) = &self.hooks
                {
                    match hooks.get() {
                        Ok(found) => {
                            for hook in found {
                                run = run.with_read_only_path(hook);
                            }
                        }
                        Err(why) => return ToolResult::Refused(unknown_protected_paths(why)),
                    }
                }
                if let Some(cancel) = &options.cancel {
                    run = run.with_cancel(cancel.clone());
                }
                let outcome = self.kernel.run_with(&invocation.argv, &run);
                ToolResult::from_run(invocation.clone(), outcome)
            }
            Err(refusal) => ToolResult::Refused(refusal.clone()),
        };
        self.chain.handle(&call, &terminal)
    }

    /// A git run's configuration overrides beyond the fixed ones, asked of
    /// git itself right before the run: the names of the keys that name
    /// programs (driver names are the repository's own), read by git from
    /// the run's own folder in the run's own environment, contained,
    /// read-only and time-limited; and where the repository keeps its data.
    /// Each key gets a neutral value in the invocation's environment. jig
    /// opens none of the repository's files: a configuration that blocks
    /// blocks only this query, which the kernel ends at its timeout.
    fn harden_git(
        &self,
        mut invocation: Invocation,
        limits: Limits,
    ) -> Result<Invocation, Refusal> {
        let env = invocation.env.clone();
        let timeout = limits.timeout.min(jig_programs::GIT_QUERY_TIMEOUT);
        let query_limits = limits
            .with_timeout(timeout)
            .with_max_output(jig_programs::GIT_QUERY_MAX_OUTPUT);
        let mut ask = |argv: &[String]| {
            let mut options = RunOptions::new(query_limits);
            for (key, value) in &env {
                options = options.with_env(key, value);
            }
            let outcome = self.kernel.run_with(argv, &options).ok()?;
            if outcome.timed_out() || outcome.output.is_truncated() {
                return None;
            }
            Some(GitAnswer::new(
                outcome.exit_code(),
                outcome.output.kept_bytes(),
            ))
        };
        let overrides =
            jig_programs::git_config_overrides(&invocation.argv, self.kernel.root(), &mut ask)
                .map_err(|finding| {
                    let mut refusal = finding.into_refusal(ErrorCode::RunRefused);
                    refusal.layer = refusal.layer.at_run_point();
                    refusal
                })?;
        if !overrides.is_empty() {
            jig_programs::add_git_config(&mut invocation.env, overrides);
        }
        Ok(invocation)
    }

    /// Validates one call through every layer (the runtime policy, the
    /// tool's own validation) and runs nothing: the argv that would run, or
    /// the refusal. A call that would need approval comes back with
    /// `needs_approval` set; no approver is asked during a dry run.
    pub fn dry_run(&self, name: &str, arguments: &Value) -> Result<Invocation, Refusal> {
        let tool = self.resolve(name)?;
        if let Verdict::Deny(list) = self.policy.verdict(name) {
            return Err(policy_refusal(name, list));
        }
        let arguments = normalize_arguments(arguments)?;
        tool.check(&arguments, &self.check_context())
    }

    /// Whether this call only reads and may run concurrently with other
    /// read-only calls. A call that would be refused is not.
    pub fn is_concurrency_safe(&self, name: &str, arguments: &Value) -> bool {
        let Ok(tool) = self.resolve(name) else {
            return false;
        };
        let Ok(arguments) = normalize_arguments(arguments) else {
            return false;
        };
        tool.check(&arguments, &self.check_context())
            .is_ok_and(|invocation| invocation.read_only)
    }

    /// What validation may know of the kernel: its root and search path.
    fn check_context(&self) -> CheckContext<'_> {
        CheckContext::new(self.kernel.root(), self.kernel.search_path())
    }

    fn resolve(&self, name: &str) -> Result<&dyn Tool, Refusal> {
        self.tool(name).ok_or_else(|| {
            Refusal::new(
                ErrorCode::UnknownTool,
                Layer::Registry,
                format!(
                    "there is no tool named `{}`; the available tools are: {}",
                    quoted_name(name),
                    self.names().join(", ")
                ),
            )
        })
    }
}

/// A tool name as a refusal quotes it: its first 80 characters (a name
/// the model sent can be as long as its request).
fn quoted_name(name: &str) -> String {
    const SHOWN: usize = 80;
    let mut shown: String = name.chars().take(SHOWN).collect();
    if shown.len() < name.len() {
        shown.push_str("...");
    }
    shown
}

/// Accepts an object (borrowed as it is: no copy on the hot path), a JSON
/// string holding an object, or null.
fn normalize_arguments(arguments: &Value) -> Result<Cow<'_, Value>, Refusal> {
    let invalid = |what: &str| {
        Refusal::new(
            ErrorCode::InvalidArguments,
            Layer::Registry,
            format!(
                "the arguments must be a JSON object such as {{\"pattern\": \"TODO\"}}; {what}"
            ),
        )
    };
    let empty = || Cow::Owned(Value::Object(serde_json::Map::new()));
    match arguments {
        Value::Object(_) => Ok(Cow::Borrowed(arguments)),
        Value::Null => Ok(empty()),
        Value::String(text) if text.trim().is_empty() => Ok(empty()),
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(value @ Value::Object(_)) => Ok(Cow::Owned(value)),
            Ok(_) => Err(invalid("the string holds JSON that is not an object")),
            Err(error) => Err(invalid(&format!("the string is not valid JSON ({error})"))),
        },
        _ => Err(invalid("got another JSON type")),
    }
}

/// The refusal of a call that may write when the paths git follows in the
/// repository are unknown (see [`crate::hooks::configured_hooks`]).
pub(crate) fn unknown_protected_paths(why: &str) -> Refusal {
    Refusal::new(
        ErrorCode::RunRefused,
        Layer::RunPath,
        format!(
            "this call may write, and jig could not learn which paths of the repository git \
             follows (its hooks folders and submodules), so it cannot keep them read-only: \
             {why}; only calls that do not write can run in this workspace"
        ),
    )
}
