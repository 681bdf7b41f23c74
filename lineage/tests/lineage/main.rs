//! Integration tests of jig-lineage. Modules mirror `src/`; `corpus` runs
//! the shared attack corpus as a dry run.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod builtin;
mod chars;
mod command;
mod corpus;
mod deny;
mod path;
mod schema;
mod spec;
mod template;
mod value;

use std::path::PathBuf;

use jig_kernel::Kernel;
use jig_lineage::{CommandSpec, CommandTool, DenyList, ToolForm};

/// A temporary workspace with a few files, a symbolic link to `/` and a
/// FIFO, and a kernel rooted in it.
pub(crate) struct Workspace {
    pub(crate) _dir: tempfile::TempDir,
    pub(crate) root: PathBuf,
    pub(crate) kernel: Kernel,
}

impl Workspace {
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let kernel = Kernel::builder(dir.path()).build().unwrap();
        let root = kernel.root().to_path_buf();
        for folder in ["src", "docs", "tests", ".git/hooks"] {
            std::fs::create_dir_all(root.join(folder)).unwrap();
        }
        let files = [
            (
                "src/main.rs",
                "fn main() {\n    // TODO: greet\n    println!(\"hi\");\n}\n",
            ),
            ("src/lib.rs", "pub fn answer() -> u32 {\n    42\n}\n"),
            ("src/shadow.rs", "// not a secret\n"),
            ("src/caf\u{e9}.rs", "// TODO caf\u{e9}\n"),
            ("README.md", "# demo\nline two\nline three\n"),
            ("docs/guide.md", "guide TODO\n"),
            ("Cargo.toml", "[package]\nname = \"demo\"\n"),
            ("Cargo.lock", "# lock\n"),
            (".gitignore", "target\n"),
            (".env.example", "KEY=\n"),
        ];
        for (name, text) in files {
            std::fs::write(root.join(name), text).unwrap();
        }
        std::os::unix::fs::symlink("/", root.join("symlink_to_root")).unwrap();
        let options = jig_kernel::RunOptions::new(kernel.limits())
            .with_access(jig_kernel::Access::WriteWorkspace);
        let made = kernel.run_with(&["mkfifo", "fifo"], &options).unwrap();
        assert_eq!(made.exit_code(), Some(0), "mkfifo: {}", made.render());
        Self {
            _dir: dir,
            root,
            kernel,
        }
    }
}

/// Builds a code-form tool, panicking on a bad specification.
pub(crate) fn build(spec: CommandSpec) -> CommandTool {
    CommandTool::build(spec, &DenyList::default(), ToolForm::Command).unwrap()
}

/// Checks `arguments` with `tool` and runs the invocation on `kernel`, as
/// the registry (the one caller of the kernel) does.
pub(crate) fn run_tool(
    tool: &dyn jig_lineage::Tool,
    kernel: &Kernel,
    arguments: &serde_json::Value,
) -> jig_lineage::ToolResult {
    let context = jig_lineage::CheckContext::new(kernel.root(), kernel.search_path());
    match tool.check(arguments, &context) {
        Ok(invocation) => {
            let outcome =
                kernel.run_with(&invocation.argv, &invocation.run_options(kernel.limits()));
            jig_lineage::ToolResult::from_run(invocation, outcome)
        }
        Err(refusal) => jig_lineage::ToolResult::Refused(refusal),
    }
}
