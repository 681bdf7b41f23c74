//! Tool-call figures: repair throughput over the inputs of the repair
//! corpus, and the speedup over Python's `json-repair` (PyPI) timed
//! in-process on the same inputs, in the same run.
//!
//! The Python comes from `<workspace>/.venv`, created (with `json-repair`
//! installed from PyPI) when it is missing.
//!
//! The reading of every model's formats has its own figures: see
//! [`formats`].

mod formats;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::Figures;

const CORPUS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/corpus/jsonrepair.jsonl"
);
/// Passes over all inputs in one timed Rust sample.
const RUST_PASSES: usize = 100;
/// Timed samples on each side; the median is reported.
const SAMPLES: usize = 7;

/// Times `json_repair.repair_json` over the inputs (a JSON list on stdin):
/// one warm-up pass, then one timed pass per sample; prints the median
/// seconds per pass and the package's version.
const PYTHON_TIMER: &str = r#"
import json, statistics, sys, time
from importlib.metadata import version
import json_repair

inputs = json.load(sys.stdin)
samples = int(sys.argv[1])

def one_pass():
    for text in inputs:
        try:
            json_repair.repair_json(text)
        except Exception:
            pass

one_pass()
times = []
for _ in range(samples):
    start = time.perf_counter()
    one_pass()
    times.append(time.perf_counter() - start)
print(statistics.median(times), version("json-repair"))
"#;

pub(crate) fn run(figures: &mut Figures) -> Result<(), String> {
    let inputs = corpus_inputs()?;
    let bytes: usize = inputs.iter().map(String::len).sum();

    let rust = rust_seconds_per_pass(&inputs);
    figures.add(
        "toolcall.repair_mb_per_s",
        bytes as f64 / rust / 1e6,
        "MB/s",
    );

    let (python, version) = python_seconds_per_pass(&inputs)?;
    eprintln!(
        "bench: toolcall: {} inputs, {bytes} bytes; one pass: jig-toolcall {:.1} us, json-repair {version} {:.1} us",
        inputs.len(),
        rust * 1e6,
        python * 1e6
    );
    figures.add("toolcall.speedup_vs_json_repair", python / rust, "x");
    formats::run(figures)
}

/// The `input` of every corpus case.
fn corpus_inputs() -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(CORPUS)
        .map_err(|e| format!("toolcall bench: cannot read {CORPUS}: {e}"))?;
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let row: serde_json::Value =
                serde_json::from_str(line).map_err(|e| format!("toolcall bench: {e}"))?;
            row["input"]
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("toolcall bench: a case without input: {line}"))
        })
        .collect()
}

/// Median seconds for one pass of `jig_toolcall::repair` over the inputs.
fn rust_seconds_per_pass(inputs: &[String]) -> f64 {
    let one_pass = || {
        for text in inputs {
            let _ = std::hint::black_box(jig_toolcall::repair(std::hint::black_box(text)));
        }
    };
    one_pass();
    let mut times: Vec<Duration> = (0..SAMPLES)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..RUST_PASSES {
                one_pass();
            }
            start.elapsed()
        })
        .collect();
    times.sort();
    times[SAMPLES / 2].as_secs_f64() / RUST_PASSES as f64
}

/// Median seconds for one pass of Python's `json_repair.repair_json` over
/// the inputs, and the package's version.
fn python_seconds_per_pass(inputs: &[String]) -> Result<(f64, String), String> {
    let python = python_with_json_repair()?;
    let mut child = Command::new(&python)
        .args(["-c", PYTHON_TIMER, &SAMPLES.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("toolcall bench: cannot run {}: {e}", python.display()))?;
    let list = serde_json::to_string(inputs).map_err(|e| e.to_string())?;
    child
        .stdin
        .take()
        .ok_or("toolcall bench: no stdin for python")?
        .write_all(list.as_bytes())
        .map_err(|e| format!("toolcall bench: writing to python: {e}"))?;
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(format!(
            "toolcall bench: the json-repair timer failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut words = stdout.split_whitespace();
    let seconds = words
        .next()
        .and_then(|s| s.parse::<f64>().ok())
        .ok_or_else(|| format!("toolcall bench: unexpected timer output {stdout:?}"))?;
    Ok((seconds, words.next().unwrap_or("?").to_owned()))
}

/// `<workspace>/.venv/bin/python3`, with `json-repair` installed; the
/// virtual environment is created and the package installed if needed.
fn python_with_json_repair() -> Result<PathBuf, String> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let venv = workspace.join(".venv");
    let python = venv.join("bin").join("python3");
    if !python.exists() {
        eprintln!("bench: toolcall: creating {}", venv.display());
        super::python::run_quiet(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
    }
    let has_package = Command::new(&python)
        .args(["-c", "import json_repair"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !has_package {
        eprintln!("bench: toolcall: installing json-repair from PyPI");
        super::python::run_quiet(Command::new(&python).args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "json-repair",
        ]))?;
    }
    Ok(python)
}
