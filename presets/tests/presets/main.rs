//! Integration tests of jig-presets: a real preset in a temporary workspace,
//! every call end to end through `dispatch`. Modules mirror `src/`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod builder;
mod exec;
mod registry;
mod runpoint;
mod schema;

use std::path::Path;

use jig_lineage::{CommandSpec, CommandTool, DenyList, SlotSpec, ToolForm};
use jig_presets::{FullPreset, Registry};

/// A workspace with a few files and a descriptor folder.
pub(crate) struct Fixture {
    pub(crate) dir: tempfile::TempDir,
}

impl Fixture {
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join("notes.txt"),
            "first line\nTODO: write tests\nlast line\n",
        )
        .unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        std::fs::write(
            root.join("src/main.rs"),
            "fn main() {\n    // TODO: more\n}\n",
        )
        .unwrap();
        let tools = root.join(".jig/tools");
        std::fs::create_dir_all(&tools).unwrap();
        std::fs::write(
            tools.join("count_lines.tool.json"),
            r#"{
  "name": "count_lines",
  "description": "Count the lines of a file",
  "command": "wc -l {path}",
  "arguments": {
    "path": {"type": "path", "description": "File to count", "required": true}
  }
}"#,
        )
        .unwrap();
        Self { dir }
    }

    pub(crate) fn root(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn preset(&self) -> FullPreset {
        FullPreset::new(self.root()).with_command_tools([sleep_tool(), seq_tool()])
    }

    pub(crate) fn registry(&self) -> Registry {
        let built = self.preset().build().unwrap();
        assert!(
            built.descriptor_errors.is_empty(),
            "{:?}",
            built.descriptor_errors
        );
        built.registry
    }
}

/// A code-form tool that sleeps (for timeouts).
pub(crate) fn sleep_tool() -> CommandTool {
    let spec = CommandSpec::new("sleep", "Wait a number of seconds", "sleep {seconds}")
        .slot("seconds", SlotSpec::number("Seconds to wait").required());
    CommandTool::build(spec, &DenyList::default(), ToolForm::Command).unwrap()
}

/// A code-form tool that prints many lines (for truncation).
pub(crate) fn seq_tool() -> CommandTool {
    let spec = CommandSpec::new("seq", "Print the numbers from 1 to n", "seq {n}")
        .slot("n", SlotSpec::number("Last number").required())
        .with_read_only(true);
    CommandTool::build(spec, &DenyList::default(), ToolForm::Command).unwrap()
}

/// Replaces the temporary root in `text` so snapshots are stable.
pub(crate) fn redact(text: &str, root: &Path) -> String {
    let canonical = std::fs::canonicalize(root).unwrap();
    text.replace(canonical.to_str().unwrap(), "[ROOT]")
        .replace(root.to_str().unwrap(), "[ROOT]")
}
