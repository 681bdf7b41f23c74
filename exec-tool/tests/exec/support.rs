//! A workspace to check commands in: a few files, a symbolic link to `/`
//! named `symlink_to_root` and a FIFO named `fifo` (as the corpus README
//! asks), and a kernel rooted there.

use jig_exec_tool::{AllowList, ExecTool};
use jig_kernel::Kernel;
use jig_lineage::{CheckContext, DEFAULT_DENIED_INTERPRETERS, DenyList, Refusal};

pub(crate) struct Workspace {
    pub(crate) dir: tempfile::TempDir,
    pub(crate) kernel: Kernel,
}

impl Workspace {
    pub(crate) fn new() -> Self {
        Self::with_kernel(|root| Kernel::builder(root).build().unwrap())
    }

    /// A workspace whose kernel runs without operating-system containment,
    /// so that a test sees what the exec tool's own layers do (containment
    /// would also stop what they let through).
    pub(crate) fn bare() -> Self {
        Self::with_kernel(|root| {
            Kernel::builder(root)
                .dangerous_no_containment()
                .build()
                .unwrap()
        })
    }

    fn with_kernel(kernel: impl FnOnce(&std::path::Path) -> Kernel) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        for (name, text) in [
            ("Cargo.toml", "[package]\nname = \"demo\"\n"),
            ("src/main.rs", "fn main() {\n    println!(\"hello\");\n}\n"),
            ("README.md", "# demo\nTODO: docs\n"),
            ("data.csv", "a,b\n1,2\n3,4\n"),
        ] {
            std::fs::write(root.join(name), text).unwrap();
        }
        std::os::unix::fs::symlink("/", root.join("symlink_to_root")).unwrap();
        let kernel = kernel(root);
        let options = jig_kernel::RunOptions::new(kernel.limits())
            .with_access(jig_kernel::Access::WriteWorkspace);
        let made = kernel.run_with(&["mkfifo", "fifo"], &options).unwrap();
        assert_eq!(made.exit_code(), Some(0), "mkfifo: {}", made.render());
        Self { dir, kernel }
    }

    /// What a dry run in this workspace knows: the kernel's root and search
    /// path.
    pub(crate) fn context(&self) -> CheckContext<'_> {
        CheckContext::new(self.kernel.root(), self.kernel.search_path())
    }

    /// Checks `command` with `tool` (the dry run).
    pub(crate) fn check(
        &self,
        tool: &ExecTool,
        command: &str,
    ) -> Result<jig_lineage::Invocation, Refusal> {
        tool.check_command(command, &self.context())
    }
}

/// A tool allowing exactly `programs`.
pub(crate) fn allowing(programs: &[&str]) -> ExecTool {
    ExecTool::builder()
        .allow(any_allow(programs.iter().copied()))
        .build()
}

/// A tool allowing the program of `command` (its first word, if it can be
/// an allow-list name), for judging layers 3 and 4 alone.
pub(crate) fn allowing_program_of(command: &str) -> ExecTool {
    let program = command.split_whitespace().next().unwrap_or_default();
    // Interpreters (and their versioned names, `python3.11`) are on the
    // default deny list; their option tables are still tested, as an
    // integrator who lifts the deny would rely on them.
    let interpreter =
        jig_lineage::family(program).any(|m| DEFAULT_DENIED_INTERPRETERS.contains(&m));
    let deny = if interpreter {
        DenyList::default().dangerous_allow([program])
    } else {
        DenyList::default()
    };
    match AllowList::new(Vec::<String>::new())
        .and_then(|allow| allow.dangerous_allow_untabled([program]))
    {
        Ok(allow) => ExecTool::builder().allow(allow).deny(deny).build(),
        Err(_) => ExecTool::builder()
            .allow(AllowList::new(Vec::<String>::new()).unwrap())
            .build(),
    }
}

/// `command => layer: message`, one line per case, for snapshots.
pub(crate) fn render(cases: &[(&str, Result<jig_lineage::Invocation, Refusal>)]) -> String {
    cases
        .iter()
        .map(|(command, result)| match result {
            Ok(invocation) => format!("{command:?}\n  => allowed {:?}\n", invocation.argv),
            Err(refusal) => format!(
                "{command:?}\n  => {}: {}\n",
                refusal.layer.as_str(),
                refusal.render()
            ),
        })
        .collect()
}

/// Checks `arguments` with `tool` and runs the invocation on `kernel`, as
/// the registry (the one caller of the kernel) does.
/// What the registry does right before a run (the exec tool alone cannot:
/// it never holds the kernel): asks git itself, contained, which of the
/// repository's configuration keys name programs, and neutralizes each.
pub(crate) fn harden_git(
    kernel: &Kernel,
    mut invocation: jig_lineage::Invocation,
) -> Result<jig_lineage::Invocation, jig_lineage::Refusal> {
    let env = invocation.env.clone();
    let limits = kernel
        .limits()
        .with_timeout(jig_programs::GIT_QUERY_TIMEOUT)
        .with_max_output(jig_programs::GIT_QUERY_MAX_OUTPUT);
    let mut ask = |argv: &[String]| {
        let mut options = jig_kernel::RunOptions::new(limits);
        for (key, value) in &env {
            options = options.with_env(key, value);
        }
        let outcome = kernel.run_with(argv, &options).ok()?;
        if outcome.timed_out() || outcome.output.is_truncated() {
            return None;
        }
        Some(jig_programs::GitAnswer::new(
            outcome.exit_code(),
            outcome.output.kept_bytes(),
        ))
    };
    let overrides = jig_programs::git_config_overrides(&invocation.argv, kernel.root(), &mut ask)
        .map_err(|finding| finding.into_refusal(jig_lineage::ErrorCode::ExecRefused))?;
    jig_programs::add_git_config(&mut invocation.env, overrides);
    Ok(invocation)
}

pub(crate) fn run_tool(
    tool: &dyn jig_lineage::Tool,
    kernel: &Kernel,
    arguments: &serde_json::Value,
) -> jig_lineage::ToolResult {
    let context = jig_lineage::CheckContext::new(kernel.root(), kernel.search_path());
    match tool
        .check(arguments, &context)
        .and_then(|i| harden_git(kernel, i))
    {
        Ok(invocation) => {
            let options = invocation.run_options(kernel.limits());
            let outcome = kernel.run_with(&invocation.argv, &options);
            jig_lineage::ToolResult::from_run(invocation, outcome)
        }
        Err(refusal) => jig_lineage::ToolResult::Refused(refusal),
    }
}

/// An allow list of exactly `programs`, tabled or not: these tests judge
/// the other layers, so a program without a table is granted the dangerous
/// way.
pub(crate) fn any_allow<I, S>(programs: I) -> AllowList
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    AllowList::new(Vec::<String>::new())
        .unwrap()
        .dangerous_allow_untabled(programs)
        .unwrap()
}
