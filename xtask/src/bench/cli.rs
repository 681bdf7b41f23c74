//! Command-line figures: what a harness that shells out once per call pays
//! for jig's start-up.
//!
//! - `cli.call_overhead_ratio`: `jig call` of a descriptor `grep` tool
//!   against the same `grep` run directly in the same folder: whole
//!   processes, wall clock, median of [`RUNS`] each, measured in alternation
//!   in the same run, containment on (the default). Target: at most 2.5.
//! - `cli.version_ratio`: `jig --version` against `/bin/true`, the floor of
//!   starting the binary at all.
//!
//! The release binary is built first (`cargo build --release -p jig-cli`),
//! unless `JIG_BENCH_BINARY` names another one (to measure an older build
//! in the same conditions).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::Figures;
use super::kernel::median;

/// Runs of each command measured.
const RUNS: usize = 60;
/// Runs of each command before measuring.
const WARMUP: usize = 5;

/// The descriptor tool: the example's `search_text`.
const SEARCH_TOOL: &str = r#"{
  "name": "search_text",
  "description": "Search text in workspace files",
  "command": "grep -rn {pattern} {path}",
  "read_only": true,
  "arguments": {
    "pattern": {"type": "string", "description": "Text pattern to search", "required": true},
    "path": {"type": "path", "description": "Directory or file to search", "default": "."}
  }
}"#;

pub(crate) fn run(figures: &mut Figures) -> Result<(), String> {
    let scratch = std::env::temp_dir().join(format!("jig-bench-cli-{}", std::process::id()));
    let result = run_in(&scratch, figures);
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

fn run_in(scratch: &Path, figures: &mut Figures) -> Result<(), String> {
    let jig = build_jig()?;
    let workspace = scratch.join("workspace");
    let tools = scratch.join("tools");
    for dir in [workspace.join("src"), tools.clone()] {
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    // A small workspace like the example's: a few files, a few matches.
    for (file, text) in [
        ("README.md", "# demo\nTODO: describe the flags.\n"),
        (
            "src/main.rs",
            "fn main() {\n    // TODO: report errors\n}\n",
        ),
        ("src/count.rs", "pub fn count() -> usize {\n    0\n}\n"),
        ("notes.txt", "nothing to do here\n"),
    ] {
        std::fs::write(workspace.join(file), text).map_err(|e| e.to_string())?;
    }
    std::fs::write(tools.join("search_text.tool.json"), SEARCH_TOOL).map_err(|e| e.to_string())?;

    let mut through_jig = Command::new(&jig);
    through_jig
        .arg("--root")
        .arg(&workspace)
        .arg("--tools")
        .arg(&tools)
        .args(["call", "search_text", r#"{"pattern":"TODO"}"#]);
    let mut direct = Command::new("grep");
    direct.args(["-rn", "TODO", "."]).current_dir(&workspace);
    let mut version = Command::new(&jig);
    version.arg("--version");
    let mut floor = Command::new("/bin/true");

    // Check once that the call runs and finds what grep finds.
    let output = through_jig
        .output()
        .map_err(|e| format!("{}: {e}", jig.display()))?;
    let text = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() || !text.contains("TODO: report errors") {
        return Err(format!(
            "jig call did not run the search: {text}{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }

    let mut commands = [&mut through_jig, &mut direct, &mut version, &mut floor];
    let mut times: [Vec<Duration>; 4] = Default::default();
    for round in 0..WARMUP + RUNS {
        // One of each per round, so a change in the machine's load weighs
        // on all four alike.
        for (command, times) in commands.iter_mut().zip(times.iter_mut()) {
            let elapsed = time(command)?;
            if round >= WARMUP {
                times.push(elapsed);
            }
        }
    }
    let [call, grep, version, floor] = times.map(|mut t| median(&mut t));
    figures.add("cli.call_ms", millis(call), "ms");
    figures.add("cli.grep_ms", millis(grep), "ms");
    figures.add(
        "cli.call_overhead_ratio",
        call.as_secs_f64() / grep.as_secs_f64().max(1e-9),
        "x",
    );
    figures.add("cli.version_ms", millis(version), "ms");
    figures.add(
        "cli.version_ratio",
        version.as_secs_f64() / floor.as_secs_f64().max(1e-9),
        "x",
    );
    Ok(())
}

/// One whole run of `command`: start, output read and thrown away, exit.
fn time(command: &mut Command) -> Result<Duration, String> {
    let start = Instant::now();
    let status = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("{command:?}: {e}"))?;
    let elapsed = start.elapsed();
    if !status.success() {
        return Err(format!("{command:?} failed: {status}"));
    }
    Ok(elapsed)
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Builds the release binary and returns its path.
fn build_jig() -> Result<PathBuf, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("xtask has no parent folder")?;
    super::mcp::build_jig(root)
}
