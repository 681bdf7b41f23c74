//! Integration tests of jig-descriptor. Modules mirror `src/`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod error;
mod fixed;
mod format;
mod load;
mod props;

use std::path::{Path, PathBuf};

/// A temporary tools folder.
pub(crate) struct Tools {
    pub(crate) dir: tempfile::TempDir,
}

impl Tools {
    pub(crate) fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes `name` with `text` and returns its path.
    pub(crate) fn write(&self, name: &str, text: impl AsRef<[u8]>) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    /// An insta filter replacing this folder with `tools`.
    pub(crate) fn filter(&self) -> (String, &'static str) {
        let dir = self.dir.path().to_string_lossy();
        let escaped: String = dir
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_string()
                } else {
                    format!("\\{c}")
                }
            })
            .collect();
        (escaped, "tools")
    }
}

/// The descriptor of SPEC §5, with a path slot.
pub(crate) const SEARCH_TEXT: &str = r#"{
  "name": "search_text",
  "description": "Search text in workspace files",
  "command": "grep -rn {pattern} {path}",
  "arguments": {
    "pattern": {"type": "string", "description": "Text pattern to search", "required": true},
    "path": {"type": "path", "description": "Directory or file to search", "default": "."}
  },
  "read_only": true
}
"#;

/// Checks `arguments` with `tool` and runs the invocation on `kernel`, as
/// the registry (the one caller of the kernel) does.
pub(crate) fn run_tool(
    tool: &dyn jig_lineage::Tool,
    kernel: &jig_kernel::Kernel,
    arguments: &serde_json::Value,
) -> jig_lineage::ToolResult {
    let context = jig_lineage::CheckContext::new(kernel.root(), kernel.search_path());
    match tool.check(arguments, &context) {
        Ok(invocation) => {
            let options = invocation.run_options(kernel.limits());
            let outcome = kernel.run_with(&invocation.argv, &options);
            jig_lineage::ToolResult::from_run(invocation, outcome)
        }
        Err(refusal) => jig_lineage::ToolResult::Refused(refusal),
    }
}
