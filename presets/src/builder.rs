//! The `FullPreset` builder: one place that wires every layer.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use jig_exec_tool::{AllowList, EXEC_TOOL_NAME, ExecConfig, ExecTool};
use jig_kernel::{Containment, Kernel, KernelError, Limits};
use jig_lineage::{DenyList, Protected, Tool};
use jig_policy::{
    ApprovalMiddleware, Approver, AuditSink, Chain, PolicyConfig, PolicyError, PolicyMiddleware,
    ToolPolicy,
};

use crate::Registry;
use crate::runpoint::{Guard, RunPoint};

/// Where descriptor tools come from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum DescriptorSource {
    /// `<root>/.jig/tools` when it exists.
    Default,
    /// This folder (which must exist).
    Dir(PathBuf),
    /// No descriptor tools.
    Off,
}

/// Why a preset could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PresetError {
    /// The kernel could not be built (missing root...).
    #[error(transparent)]
    Kernel(#[from] KernelError),
    /// The policy names an unknown tool.
    #[error(transparent)]
    Policy(#[from] PolicyError),
    /// Two code-form tools have the same name.
    #[error("two tools are named `{name}`; tool names must be unique")]
    DuplicateTool {
        /// The name used twice.
        name: String,
    },
    /// The descriptor folder given could not be read.
    #[error("cannot read the descriptor folder {}: {source}", path.display())]
    DescriptorDir {
        /// The folder.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// A lifted program runs the workspace's own code and containment is
    /// not required.
    #[error(
        "`{program}` runs the workspace's own code (recipes, build scripts, package scripts, test \
         configuration); it may be lifted only when containment is required \
         (`Containment::required()`, CLI `--require-containment`)"
    )]
    WorkspaceCodeUncontained {
        /// The lifted program.
        program: String,
    },
    /// A per-tool output budget names an unknown tool.
    #[error("an output budget names unknown tool `{name}`; known tools: {known}")]
    UnknownBudget {
        /// The unknown name.
        name: String,
        /// The registered names, comma-separated.
        known: String,
    },
}

/// What [`FullPreset::build`] gives: the registry, and the descriptor files
/// that were skipped (error 613), which are reported, not fatal.
#[derive(Debug)]
#[non_exhaustive]
pub struct Built {
    /// The registry of visible tools.
    pub registry: Registry,
    /// One 613 error per skipped descriptor file.
    pub descriptor_errors: Vec<jig_descriptor::DescriptorError>,
    /// The deny-list entries lifted for command and descriptor tools
    /// ([`FullPreset::dangerous_allow_programs`]), to be said wherever the
    /// configuration is shown.
    pub lifted_programs: Vec<String>,
}

/// The builder an integrator starts from: built-in command tools on,
/// descriptor tools loaded from a folder by default, the exec tool off, the
/// runtime policy first on every call.
pub struct FullPreset {
    root: PathBuf,
    limits: Limits,
    containment: Option<Containment>,
    allow_workspace_programs: bool,
    protected_paths: Vec<PathBuf>,
    secrets_readable: bool,
    search_path: Option<Vec<PathBuf>>,
    builtins: bool,
    descriptors: DescriptorSource,
    command_tools: Vec<Arc<dyn Tool>>,
    exec: Option<ExecConfig>,
    exec_budget: Option<usize>,
    deny: DenyList,
    /// Deny-list entries lifted for command and descriptor tools.
    lifted: Vec<String>,
    policy: PolicyConfig,
    approver: Option<Arc<dyn Approver>>,
    budgets: BTreeMap<String, usize>,
    audit: Option<Arc<dyn AuditSink>>,
}

impl std::fmt::Debug for FullPreset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FullPreset")
            .field("root", &self.root)
            .field("limits", &self.limits)
            .field("builtins", &self.builtins)
            .field("descriptors", &self.descriptors)
            .field("exec", &self.exec.is_some())
            .finish_non_exhaustive()
    }
}

impl FullPreset {
    /// A preset whose every command runs in `root` (the agent's workspace).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            limits: Limits::default(),
            containment: Some(Containment::best_effort()),
            allow_workspace_programs: false,
            protected_paths: Vec::new(),
            secrets_readable: false,
            search_path: None,
            builtins: true,
            descriptors: DescriptorSource::Default,
            command_tools: Vec::new(),
            exec: None,
            exec_budget: None,
            deny: DenyList::default(),
            lifted: Vec::new(),
            policy: PolicyConfig::default(),
            approver: None,
            budgets: BTreeMap::new(),
            audit: None,
        }
    }

    /// Sets the operating-system containment of every call (default
    /// [`Containment::best_effort`]; [`Containment::required`] makes a
    /// missing mechanism a build error).
    pub fn with_containment(mut self, containment: Containment) -> Self {
        self.containment = Some(containment);
        self
    }

    /// Runs every call without operating-system containment (no Landlock,
    /// no seccomp, no namespaces): only the argument layers bound what a
    /// program does. See `KernelBuilder::dangerous_no_containment`.
    pub fn dangerous_no_containment(mut self) -> Self {
        self.containment = None;
        self
    }

    /// Lifts deny-list entries (with their resolved targets and versioned
    /// families: `python3` lifts `python3.11`) for command and descriptor
    /// tools only: the exec tool keeps the whole deny list. A program that
    /// runs the workspace's own code ([`jig_programs::RUNS_WORKSPACE_CODE`]:
    /// `make`, `cargo`, `npm`, `pytest`...) may be lifted only when
    /// containment is required; otherwise [`build`](Self::build) fails.
    pub fn dangerous_allow_programs<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.lifted.extend(names.into_iter().map(Into::into));
        self
    }

    /// Lets tools run programs that resolve inside the workspace (a
    /// template naming `./build.sh`). The model may be able to write those
    /// files: only for workspaces the model cannot change.
    pub fn dangerous_allow_workspace_programs(mut self) -> Self {
        self.allow_workspace_programs = true;
        self
    }

    /// Protects more paths (relative to the root, or absolute inside it):
    /// no call that may write can name them, and where the kernel has a
    /// mount namespace they are read-only in every call.
    pub fn with_protected_paths<I, P>(mut self, paths: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: Into<PathBuf>,
    {
        self.protected_paths
            .extend(paths.into_iter().map(Into::into));
        self
    }

    /// Lets calls read secret files (`.env`, `.netrc`, private keys...),
    /// which are refused to every path argument and hidden from every call
    /// by default.
    pub fn dangerous_allow_secret_reads(mut self) -> Self {
        self.secrets_readable = true;
        self
    }

    /// Sets the kernel limits of every call.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets the timeout of every call.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.limits = self.limits.with_timeout(timeout);
        self
    }

    /// Sets the default output budget of every call, in bytes.
    pub fn with_max_output(mut self, bytes: usize) -> Self {
        self.limits = self.limits.with_max_output(bytes);
        self
    }

    /// Sets the output budget of one tool, in bytes.
    pub fn with_output_budget(mut self, tool: impl Into<String>, bytes: usize) -> Self {
        self.budgets.insert(tool.into(), bytes);
        self
    }

    /// Replaces the kernel's program search path.
    pub fn with_search_path<I, P>(mut self, dirs: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: Into<PathBuf>,
    {
        self.search_path = Some(dirs.into_iter().map(Into::into).collect());
        self
    }

    /// Leaves out the built-in command tools (grep, find, sed_print).
    pub fn without_builtins(mut self) -> Self {
        self.builtins = false;
        self
    }

    /// Loads descriptor tools from `dir` instead of `<root>/.jig/tools`.
    pub fn with_descriptor_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.descriptors = DescriptorSource::Dir(dir.into());
        self
    }

    /// Loads no descriptor tools.
    pub fn without_descriptors(mut self) -> Self {
        self.descriptors = DescriptorSource::Off;
        self
    }

    /// Adds code-form tools.
    pub fn with_command_tools<I, T>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = T>,
        T: Tool + 'static,
    {
        self.command_tools
            .extend(tools.into_iter().map(|t| Arc::new(t) as Arc<dyn Tool>));
        self
    }

    /// Adds an already shared tool.
    pub fn with_tool(mut self, tool: Arc<dyn Tool>) -> Self {
        self.command_tools.push(tool);
        self
    }

    /// Grants the exec tool (named `exec`), configured by `config`: its
    /// allow list and permission rules. Off unless this is called. The
    /// preset's deny list replaces the config's, so one deny list covers
    /// every form.
    pub fn with_exec(mut self, config: ExecConfig) -> Self {
        self.exec = Some(config);
        self
    }

    /// Grants the exec tool with an allow list of program names.
    pub fn with_exec_allow(self, allow: AllowList) -> Self {
        self.with_exec(ExecTool::builder().allow(allow))
    }

    /// Sets the exec tool's own output budget, in bytes (it often differs
    /// from the file tools').
    pub fn with_exec_budget(mut self, bytes: usize) -> Self {
        self.exec_budget = Some(bytes);
        self
    }

    /// Replaces the deny-binaries list shared by every form.
    pub fn with_deny_list(mut self, deny: DenyList) -> Self {
        self.deny = deny;
        self
    }

    /// Sets the policy: visible tools, runtime allow and deny lists.
    pub fn with_policy(mut self, policy: PolicyConfig) -> Self {
        self.policy = policy;
        self
    }

    /// Sets the approver asked before calls that need approval.
    pub fn with_approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.approver = Some(approver);
        self
    }

    /// Records one audit event per call into `sink` (they also always go
    /// through `tracing`).
    pub fn with_audit(mut self, sink: Arc<dyn AuditSink>) -> Self {
        self.audit = Some(sink);
        self
    }

    /// Builds the kernel, loads the tools, checks the policy against them
    /// and returns the registry with the descriptor files that were skipped.
    pub fn build(self) -> Result<Built, PresetError> {
        // Protected paths: git's and jig's own, the descriptor folder, the
        // integrator's; enforced by the run point on every form's paths and
        // by the kernel's mount namespace where there is one.
        let descriptor_dir = match &self.descriptors {
            DescriptorSource::Default => Some(PathBuf::from(".jig/tools")),
            DescriptorSource::Dir(dir) => Some(resolve_dir(&self.root, dir)),
            DescriptorSource::Off => None,
        };
        let mut protected_extra: Vec<PathBuf> = self.protected_paths.clone();
        if let Some(dir) = &descriptor_dir {
            protected_extra.push(std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone()));
        }
        let kernel = kernel_builder(&self, &protected_extra).build()?;
        // The repository's own hooks folders (`core.hooksPath`), asked of
        // git the first time a call that may write needs them: protected
        // like `.git/hooks` in every such call, by the run point and the
        // kernel.
        let hooks = Arc::new(crate::hooks::LazyHooks::new(kernel.clone()));

        // Lifted entries apply to command and descriptor tools; the exec
        // tool keeps the whole list.
        let required = self.containment.is_some_and(|c| c.is_required());
        if let Some(program) = self
            .lifted
            .iter()
            .find(|name| jig_programs::runs_workspace_code(name))
            .filter(|_| !required)
        {
            return Err(PresetError::WorkspaceCodeUncontained {
                program: program.clone(),
            });
        }
        let tool_deny = self.deny.clone().dangerous_allow(&self.lifted);
        let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
        if self.builtins {
            tools.extend(crate::wiring::builtin_tools(&tool_deny));
        }
        for tool in self.command_tools {
            if tools.iter().any(|t| t.name() == tool.name()) {
                return Err(PresetError::DuplicateTool {
                    name: tool.name().to_owned(),
                });
            }
            tools.push(tool);
        }
        let mut exec_tool: Option<Arc<dyn Tool>> = None;
        if let Some(config) = self.exec {
            let exec = config.deny(self.deny.clone()).build();
            if tools.iter().any(|t| t.name() == exec.name()) {
                return Err(PresetError::DuplicateTool {
                    name: exec.name().to_owned(),
                });
            }
            let exec: Arc<dyn Tool> = Arc::new(exec);
            exec_tool = Some(exec.clone());
            tools.push(exec);
        }
        let mut budgets = self.budgets;
        if let Some(bytes) = self.exec_budget {
            budgets.insert(EXEC_TOOL_NAME.to_owned(), bytes);
        }
        let descriptor_dir = match &self.descriptors {
            DescriptorSource::Default => {
                let dir = kernel.root().join(".jig").join("tools");
                dir.is_dir().then_some(dir)
            }
            DescriptorSource::Dir(dir) => Some(dir.clone()),
            DescriptorSource::Off => None,
        };
        let mut descriptor_errors = Vec::new();
        if let Some(dir) = descriptor_dir {
            let dir = resolve_dir(&self.root, &dir);
            let reserved: Vec<String> = tools.iter().map(|t| t.name().to_owned()).collect();
            let (loaded, errors) = crate::wiring::load_descriptors(&dir, &tool_deny, &reserved)
                .map_err(|source| PresetError::DescriptorDir { path: dir, source })?;
            tools.extend(loaded);
            descriptor_errors = errors;
        }

        let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
        let policy = ToolPolicy::new(&self.policy, &names)?;
        for name in budgets.keys() {
            if !names.contains(&name.as_str()) {
                return Err(PresetError::UnknownBudget {
                    name: name.clone(),
                    known: names.join(", "),
                });
            }
        }
        if let Some(enabled) = &self.policy.enabled {
            tools.retain(|t| enabled.iter().any(|e| e == t.name()));
        }
        // The run point: every tool, whatever its form or author, behind the
        // same adapter.
        let guard = Arc::new(Guard {
            deny: self.deny.clone(),
            tool_deny,
            allow_workspace_programs: self.allow_workspace_programs,
            protected: Protected::new(kernel.root(), &protected_extra)
                .with_secrets_readable(self.secrets_readable),
            protected_extra: protected_extra.clone(),
            hooks: hooks.clone(),
            write_protected: std::sync::OnceLock::new(),
            git_problem: std::sync::OnceLock::new(),
            kernel: kernel.clone(),
        });
        let tools: Vec<Arc<dyn Tool>> = tools
            .into_iter()
            .map(|tool| {
                let own_exec = exec_tool.as_ref().is_some_and(|e| Arc::ptr_eq(e, &tool));
                Arc::new(RunPoint::wrap(tool, guard.clone(), own_exec)) as Arc<dyn Tool>
            })
            .collect();
        let chain = Chain::new()
            .with(PolicyMiddleware::new(policy.clone()))
            .with(ApprovalMiddleware::new(self.approver));
        Ok(Built {
            registry: Registry::new(kernel, tools, policy, chain, budgets, self.audit)
                .with_hooks(hooks),
            descriptor_errors,
            lifted_programs: self.lifted,
        })
    }
}

/// A relative descriptor folder is taken relative to the current directory
/// of the integrator's process, as a command-line user expects; `root` is
/// used only when the folder does not exist there.
fn resolve_dir(root: &Path, dir: &Path) -> PathBuf {
    if dir.is_absolute() || dir.exists() {
        dir.to_path_buf()
    } else {
        root.join(dir)
    }
}

/// The kernel of `preset`, with `protected` read-only besides git's and
/// jig's own paths.
fn kernel_builder(preset: &FullPreset, protected: &[PathBuf]) -> jig_kernel::KernelBuilder {
    let mut kernel = Kernel::builder(&preset.root)
        .limits(preset.limits)
        .read_only_paths(
            jig_lineage::PROTECTED_PATHS
                .iter()
                .map(PathBuf::from)
                .chain(
                    std::fs::canonicalize(&preset.root)
                        .ok()
                        .and_then(|root| jig_lineage::linked_git_dir(&root)),
                )
                .chain(protected.iter().cloned()),
        );
    if !preset.secrets_readable {
        kernel = kernel.mask_files(jig_lineage::is_secret_name);
    }
    kernel = match preset.containment {
        Some(containment) => kernel.containment(containment),
        None => kernel.dangerous_no_containment(),
    };
    if let Some(dirs) = &preset.search_path {
        kernel = kernel.search_path(dirs.iter().cloned());
    }
    kernel
}
