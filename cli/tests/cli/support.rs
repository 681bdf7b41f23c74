//! Running the binary, the example folders, temporary descriptor folders.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The binary under test.
pub(crate) const JIG: &str = env!("CARGO_BIN_EXE_jig");

/// The repository's `examples/` folder.
pub(crate) fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

/// `examples/workspace`.
pub(crate) fn example_root() -> PathBuf {
    examples().join("workspace")
}

/// `examples/tools`.
pub(crate) fn example_tools() -> PathBuf {
    examples().join("tools")
}

/// A `jig` command with a clean policy environment and a fixed help width.
pub(crate) fn jig() -> Command {
    let mut command = Command::new(JIG);
    for var in [
        "JIG_TOOL_ALLOWLIST",
        "JIG_TOOL_DENYLIST",
        "JIG_ENABLED_TOOLS",
        "JIG_LOG",
    ] {
        command.env_remove(var);
    }
    command.env("COLUMNS", "100");
    // No configuration file of the machine running the tests.
    command.env("XDG_CONFIG_HOME", "/nonexistent/jig-tests-config");
    command.stdin(Stdio::null());
    command
}

/// What one run of the binary came to.
#[derive(Debug)]
pub(crate) struct Run {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Run {
    fn from_output(output: Output) -> Self {
        Self {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// Stdout parsed as JSON.
    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }
}

/// Runs `jig ARGS`.
pub(crate) fn run_jig(args: &[&str]) -> Run {
    run_with(jig().args(args))
}

/// Runs a prepared command.
pub(crate) fn run_with(command: &mut Command) -> Run {
    Run::from_output(command.output().expect("the jig binary runs"))
}

/// Runs `jig ARGS` with `input` on stdin.
pub(crate) fn run_stdin(args: &[&str], input: &str) -> Run {
    let mut child = jig()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the jig binary starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    Run::from_output(child.wait_with_output().unwrap())
}

/// Runs `jig --root examples/workspace --tools examples/tools ARGS`.
pub(crate) fn run_example(args: &[&str]) -> Run {
    let root = example_root();
    let tools = example_tools();
    let mut all = vec![
        "--root",
        root.to_str().unwrap(),
        "--tools",
        tools.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    run_jig(&all)
}

/// A descriptor that sleeps: for timeouts, concurrency and cancellation.
pub(crate) const NAP: &str = r#"{
  "name": "nap",
  "description": "Sleep a while",
  "command": "sleep {seconds}",
  "arguments": {"seconds": {"type": "number", "description": "How long", "required": true}}
}"#;

/// A temporary folder of descriptor files.
pub(crate) fn tools_dir(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

/// Filters for snapshots: the example folders, temporary folders, durations.
pub(crate) fn filters() -> Vec<(String, &'static str)> {
    let mut filters = Vec::new();
    for (path, name) in [
        (example_root(), "[EXAMPLE_ROOT]"),
        (example_tools(), "[EXAMPLE_TOOLS]"),
    ] {
        if let Ok(canonical) = path.canonicalize() {
            filters.push((regex_escape(&canonical.display().to_string()), name));
        }
        filters.push((regex_escape(&path.display().to_string()), name));
    }
    filters.push((r"/tmp/\.tmp[A-Za-z0-9]+".to_owned(), "[TEMP]"));
    // What contains the commands depends on the machine; the audit tests
    // assert on it apart.
    filters.push((
        r#""containment": "[^"]*""#.to_owned(),
        r#""containment": "[CONTAINMENT]""#,
    ));
    filters.push((
        r"containment: [^\n]*".to_owned(),
        "containment: [CONTAINMENT]",
    ));
    filters.push((
        r#""duration_ms": [0-9.e+-]+"#.to_owned(),
        r#""duration_ms": "[DURATION]""#,
    ));
    filters
}

fn regex_escape(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            if "\\.+*?()|[]{}^$#&-~".contains(c) {
                vec!['\\', c]
            } else {
                vec![c]
            }
        })
        .collect()
}

/// Asserts a text snapshot with [`filters`] applied.
#[macro_export]
macro_rules! snapshot {
    ($name:expr, $value:expr) => {{
        let filters = $crate::support::filters();
        let filters: Vec<(&str, &str)> = filters.iter().map(|(a, b)| (a.as_str(), *b)).collect();
        insta::with_settings!({ filters => filters, prepend_module_to_snapshot => true }, {
            insta::assert_snapshot!($name, $value);
        });
    }};
}
