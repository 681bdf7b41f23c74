//! The `Tool` interface that every form of the lineage implements.

use std::path::{Path, PathBuf};

use jig_kernel::{Access, KernelError, Limits, Outcome, RunOptions};
use serde_json::Value;

use crate::{ErrorCode, Layer};

/// Which form of the lineage a tool belongs to; the order is the order of
/// strength of the guarantee, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ToolForm {
    /// A command tool written in Rust: whole template fixed, typed slots.
    Command,
    /// A command tool loaded from a `*.tool.json` file: the same guarantee.
    Descriptor,
    /// The free-text exec tool: only the binary is checked against a list.
    Exec,
}

impl ToolForm {
    /// `command`, `descriptor` or `exec`.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolForm::Command => "command",
            ToolForm::Descriptor => "descriptor",
            ToolForm::Exec => "exec",
        }
    }
}

/// What a validated call will run: the dry run's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Invocation {
    /// The argv, program first, exactly as it will be handed to the kernel.
    pub argv: Vec<String>,
    /// Variables added to the kernel's environment for this call only (the
    /// exec tool uses them to neutralize git's configuration, for example).
    pub env: Vec<(String, String)>,
    /// Whether the call only reads, so a harness may run it concurrently
    /// with other read-only calls.
    pub read_only: bool,
    /// Set when a rule says a person must approve this call first; the
    /// string says which rule.
    pub needs_approval: Option<String>,
    /// The call's path arguments resolved to absolute paths inside the
    /// workspace (symbolic links followed), for hooks and observers; the
    /// argv itself holds the values as the model wrote them.
    pub paths: Vec<std::path::PathBuf>,
}

impl Invocation {
    /// An invocation of `argv`: no extra environment, not read-only, no
    /// approval needed.
    pub fn new(argv: Vec<String>) -> Self {
        Self {
            argv,
            env: Vec::new(),
            read_only: false,
            needs_approval: None,
            paths: Vec::new(),
        }
    }

    /// This invocation marked read-only (or not).
    pub fn with_read_only(mut self, read_only: bool) -> Self {
        self.read_only = read_only;
        self
    }

    /// This invocation with one more environment variable.
    pub fn with_env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// This invocation with one more resolved path argument.
    pub fn with_path(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.paths.push(path.into());
        self
    }

    /// This invocation marked as needing approval, because of `rule`.
    pub fn with_approval(mut self, rule: impl Into<String>) -> Self {
        self.needs_approval = Some(rule.into());
        self
    }

    /// The kernel's options for running this invocation under `limits`: a
    /// call its tool reports read-only gets no write access at all
    /// ([`Access::ReadOnly`]), and the invocation's variables are added to
    /// the kernel's environment. Runs nothing: the caller (the registry,
    /// the one caller of the kernel) hands the argv and these options to
    /// the kernel and turns the answer into a result with
    /// [`ToolResult::from_run`].
    pub fn run_options(&self, limits: Limits) -> RunOptions {
        let access = if self.read_only {
            Access::ReadOnly
        } else {
            Access::WriteWorkspace
        };
        let mut options = RunOptions::new(limits).with_access(access);
        for (key, value) in &self.env {
            options = options.with_env(key, value);
        }
        options
    }
}

/// A call refused before anything ran: a message for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Refusal {
    /// The code (614 for a slot, 615 for the exec tool...).
    pub code: ErrorCode,
    /// The layer that refused.
    pub layer: Layer,
    /// The slot (or argument) at fault, when there is one.
    pub slot: Option<String>,
    /// What was wrong and what to do instead.
    pub message: String,
}

impl Refusal {
    /// A refusal with this code, layer and message.
    pub fn new(code: ErrorCode, layer: Layer, message: impl Into<String>) -> Self {
        Self {
            code,
            layer,
            slot: None,
            message: message.into(),
        }
    }

    /// This refusal naming the slot at fault.
    pub fn with_slot(mut self, slot: impl Into<String>) -> Self {
        self.slot = Some(slot.into());
        self
    }

    /// The text the model reads: `error 614 (slot_invalid): ...`.
    pub fn render(&self) -> String {
        format!(
            "error {} ({}): {}",
            self.code.code(),
            self.code.error_type(),
            self.message
        )
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.render())
    }
}

impl std::error::Error for Refusal {}

/// What one call came to.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
#[expect(
    clippy::large_enum_variant,
    reason = "one result per call, moved once to its caller; boxing would cost every caller a pointer chase for nothing"
)]
pub enum ToolResult {
    /// The command ran (whatever its exit code).
    Ran {
        /// What ran.
        invocation: Invocation,
        /// How it ended.
        outcome: Outcome,
    },
    /// The call was refused before anything ran.
    Refused(Refusal),
}

impl ToolResult {
    /// The result of handing `invocation` to the kernel: what ran, or, when
    /// the kernel could not start it, a 621 refusal for the model.
    pub fn from_run(invocation: Invocation, run: Result<Outcome, KernelError>) -> Self {
        match run {
            Ok(outcome) => ToolResult::Ran {
                invocation,
                outcome,
            },
            Err(error) => ToolResult::Refused(start_failed(&error)),
        }
    }

    /// The one string the model reads.
    pub fn text(&self) -> String {
        match self {
            ToolResult::Ran { outcome, .. } => outcome.render(),
            ToolResult::Refused(refusal) => refusal.render(),
        }
    }

    /// The one string the model reads, taking the result: the captured
    /// output is freed as soon as it is rendered, so a call's memory peaks
    /// at the capture and its one rendering (about twice the output budget).
    pub fn into_text(self) -> String {
        let text = self.text();
        drop(self);
        text
    }

    /// The refusal, if the call was refused.
    pub fn refusal(&self) -> Option<&Refusal> {
        match self {
            ToolResult::Refused(refusal) => Some(refusal),
            ToolResult::Ran { .. } => None,
        }
    }

    /// The outcome, if the command ran.
    pub fn outcome(&self) -> Option<&Outcome> {
        match self {
            ToolResult::Ran { outcome, .. } => Some(outcome),
            ToolResult::Refused(_) => None,
        }
    }
}

/// What a tool's validation may know of the place where a call would run:
/// the canonical workspace root and the program search path.
///
/// It holds no power to run anything: [`Tool::check`] receives this, never
/// the kernel, so a tool's validation and every middleware that asks for it
/// stay side-effect free. Build one with [`CheckContext::new`].
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct CheckContext<'a> {
    /// The canonical workspace root (as `std::fs::canonicalize` gives it):
    /// relative path values are resolved from it and must stay inside it.
    pub root: &'a Path,
    /// The folders where a bare program name is looked up, in order.
    pub search_path: &'a [PathBuf],
}

impl<'a> CheckContext<'a> {
    /// A context for the canonical workspace `root` and the program
    /// `search_path`.
    pub fn new(root: &'a Path, search_path: &'a [PathBuf]) -> Self {
        Self { root, search_path }
    }
}

/// The security reviewer's view of one tool.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolAudit {
    /// The tool's form.
    pub form: ToolForm,
    /// The binaries it can run (one for command tools; the allow list for
    /// the exec tool).
    pub binaries: Vec<String>,
    /// The fixed skeleton (the template; for the exec tool, a description).
    pub skeleton: String,
    /// One line per slot: name, type and constraints.
    pub slots: Vec<String>,
    /// A plain statement of how much the model can vary.
    pub variability: String,
    /// What the tool's calls may write.
    pub writes: Writes,
}

/// What a tool's calls may write, as the reviewer reads it in an audit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Writes {
    /// Nothing: every call runs read-only ([`Access::ReadOnly`]; only its
    /// private temporary folder takes writes).
    Nothing,
    /// The workspace, its protected paths excepted
    /// ([`Access::WriteWorkspace`]).
    Workspace,
    /// Decided for each call (the exec tool): nothing when the program's
    /// option table reads the command as one that only reads; otherwise the
    /// workspace, also for a program without a table.
    PerCall,
}

impl Writes {
    /// `nothing`, `workspace` or `per-call`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Nothing => "nothing",
            Self::Workspace => "workspace",
            Self::PerCall => "per-call",
        }
    }

    /// One line for a reviewer: what is written, and what decides it.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Nothing => {
                "nothing: every call runs read-only (only its private temporary folder takes writes)"
            }
            Self::Workspace => "the workspace, its protected paths excepted",
            Self::PerCall => {
                "decided per call: nothing when the program's option table reads the command as one that only reads; otherwise the workspace (protected paths excepted), also for a program without a table"
            }
        }
    }
}

impl ToolAudit {
    /// An audit of a tool of `form` that can run `binaries` on `skeleton`,
    /// whose calls may write the workspace.
    pub fn new(
        form: ToolForm,
        binaries: Vec<String>,
        skeleton: impl Into<String>,
        slots: Vec<String>,
        variability: impl Into<String>,
    ) -> Self {
        Self {
            form,
            binaries,
            skeleton: skeleton.into(),
            slots,
            variability: variability.into(),
            writes: Writes::Workspace,
        }
    }

    /// This audit saying the tool's calls write `writes` (a new audit says
    /// [`Writes::Workspace`], the most a call may write).
    pub fn with_writes(mut self, writes: Writes) -> Self {
        self.writes = writes;
        self
    }
}

/// A tool the model can call: a command template plus the parts the model
/// may vary.
///
/// Validation ([`check`](Self::check)) needs no I/O beyond path checks and
/// answers the argv that would run: it is the dry run. A tool never runs
/// anything itself and never holds the kernel: the registry of
/// `jig-presets`, the one caller of the kernel, runs what the run point
/// vetted.
pub trait Tool: Send + Sync {
    /// The name the model calls the tool by.
    fn name(&self) -> &str;

    /// What the tool does, for the model.
    fn description(&self) -> &str;

    /// The tool's form.
    fn form(&self) -> ToolForm;

    /// The JSON Schema (draft 2020-12) of the tool's arguments: the model's
    /// whole view of its power.
    fn input_schema(&self) -> &Value;

    /// Validates `arguments` against the workspace of `context` and returns
    /// what would run, or the refusal for the model.
    fn check(&self, arguments: &Value, context: &CheckContext<'_>) -> Result<Invocation, Refusal>;

    /// The reviewer's view of the tool.
    fn audit(&self) -> ToolAudit;
}

fn start_failed(error: &KernelError) -> Refusal {
    let hint = match error {
        KernelError::ProgramNotFound { .. } => "; the program is not installed on this machine",
        KernelError::NotExecutable { .. } => "; the file is not a program that can be run",
        _ => "",
    };
    Refusal::new(
        ErrorCode::StartFailed,
        Layer::Kernel,
        format!("the command could not start: {error}{hint}"),
    )
}
