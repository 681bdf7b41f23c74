//! Reading every model's tool calls: `jig_toolcall::read_calls` over the
//! replies of the format sample (`../shared/corpus/toolcall_formats.jsonl`,
//! 35 families), its throughput, and its speedup over the PyPI multi-format
//! parser `agent-tool-parser` on the same replies, in the same run.
//!
//! `agent-tool-parser` is installed into a temporary virtual environment
//! for the run (as the MCP bench installs `mcp-shell-server`) and timed
//! in-process with its default engine (its compiled one when the wheel has
//! it). It does not read every family: a family counts as one it handles
//! when it gets the names of the calls right, in order, in at least half of
//! the family's replies. The speedup figure is measured on the replies of
//! the families both parsers handle; the speedup over every reply, the
//! families left out and the inputs on which it failed (an exception, or a
//! panic of its compiled engine) are printed beside it.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use jig_toolcall::{Reading, read_calls};
use serde_json::{Value, json};

use super::super::Figures;

/// The release measured against.
const AGENT_TOOL_PARSER: &str = "agent-tool-parser==0.1.3";
const SAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/corpus/toolcall_formats.jsonl"
);
/// Passes over the replies in one timed Rust sample.
const RUST_PASSES: usize = 50;
/// Timed samples on each side; the median is reported.
const SAMPLES: usize = 7;

/// Reads the replies (JSON on stdin: texts, families, expected names),
/// decides which families `agent-tool-parser` handles, then times one pass
/// over every reply and one over the handled families' replies (one
/// warm-up, then the median of the samples). Prints one JSON object.
const PYTHON_TIMER: &str = r#"
import json, statistics, sys, time
from collections import defaultdict
from importlib.metadata import version
import agent_tool_parser

rows = json.load(sys.stdin)
samples = int(sys.argv[1])
parse = agent_tool_parser.try_parse_tool_calls

failed = []
def names(row):
    try:
        return [call.name for call in parse(row["text"]) or []]
    except BaseException as error:  # the compiled engine panics on some input
        failed.append(row["id"])
        return None

right = defaultdict(lambda: [0, 0])
for row in rows:
    right[row["family"]][0] += names(row) == row["names"]
    right[row["family"]][1] += 1
handled = sorted(f for f, (ok, n) in right.items() if 2 * ok >= n)

def median_pass(texts):
    def one_pass():
        for text in texts:
            try:
                parse(text)
            except BaseException:
                pass
    one_pass()
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        one_pass()
        times.append(time.perf_counter() - start)
    return statistics.median(times)

every = median_pass([row["text"] for row in rows])
both = median_pass([row["text"] for row in rows if row["family"] in handled])
print(json.dumps({
    "version": version("agent-tool-parser"),
    "accelerated": bool(getattr(agent_tool_parser, "ACCELERATED", False)),
    "every": every, "handled": both, "families": handled, "failed": failed,
}))
"#;

/// One reply of the sample.
struct Row {
    id: String,
    family: String,
    text: String,
    names: Vec<String>,
}

pub(crate) fn run(figures: &mut Figures) -> Result<(), String> {
    let rows = sample()?;
    let texts: Vec<&str> = rows.iter().map(|r| r.text.as_str()).collect();
    let bytes: usize = texts.iter().map(|t| t.len()).sum();
    let rust_every = rust_seconds_per_pass(&texts);
    figures.add(
        "toolcall.formats_mb_per_s",
        bytes as f64 / rust_every / 1e6,
        "MB/s",
    );

    let scratch = std::env::temp_dir().join(format!("jig-bench-formats-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let python = python_timer(&scratch, &rows);
    let _ = std::fs::remove_dir_all(&scratch);
    let python = python?;

    let handled: Vec<&str> = python["families"]
        .as_array()
        .map(|f| f.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let both: Vec<&str> = rows
        .iter()
        .filter(|r| handled.contains(&r.family.as_str()))
        .map(|r| r.text.as_str())
        .collect();
    let rust_both = rust_seconds_per_pass(&both);
    let seconds = |key: &str| {
        python[key]
            .as_f64()
            .ok_or_else(|| format!("formats bench: no `{key}` in {python}"))
    };
    let (python_every, python_both) = (seconds("every")?, seconds("handled")?);
    let mut left_out: Vec<&str> = rows
        .iter()
        .map(|r| r.family.as_str())
        .filter(|f| !handled.contains(f))
        .collect();
    left_out.dedup();
    eprintln!(
        "bench: toolcall formats: {} replies, {bytes} bytes; one pass: jig-toolcall {:.0} us, \
         agent-tool-parser {} (compiled engine: {}) {:.0} us; speedup over every reply {:.1}x",
        rows.len(),
        rust_every * 1e6,
        python["version"].as_str().unwrap_or("?"),
        python["accelerated"],
        python_every * 1e6,
        python_every / rust_every,
    );
    eprintln!(
        "bench: toolcall formats: the speedup is measured on the {} replies of the {} families \
         agent-tool-parser reads (call names right in half their replies); left out: {}; \
         agent-tool-parser failed on: {}",
        both.len(),
        handled.len(),
        left_out.join(", "),
        python["failed"]
    );
    figures.add(
        "toolcall.formats_speedup_vs_agent_tool_parser",
        python_both / rust_both,
        "x",
    );
    // jig's own reading of the sample, for the record
    let right = rows
        .iter()
        .filter(|r| match read_calls(&r.text) {
            Reading::Calls(calls) => calls.iter().map(|c| c.name()).eq(r.names.iter()),
            _ => r.names.is_empty(),
        })
        .count();
    eprintln!(
        "bench: toolcall formats: jig-toolcall gets the call names right in {right} of {} replies",
        rows.len(),
    );
    Ok(())
}

/// The sample's replies.
fn sample() -> Result<Vec<Row>, String> {
    let text = std::fs::read_to_string(SAMPLE)
        .map_err(|e| format!("formats bench: cannot read {SAMPLE}: {e}"))?;
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let row: Value =
                serde_json::from_str(line).map_err(|e| format!("formats bench: {e}"))?;
            let field = |key: &str| {
                row[key]
                    .as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| format!("formats bench: no `{key}` in {line}"))
            };
            let names = row["expected_calls"]
                .as_array()
                .map(|calls| {
                    calls
                        .iter()
                        .filter_map(|c| c["name"].as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            Ok(Row {
                id: field("id")?,
                family: field("family")?,
                text: field("text")?,
                names,
            })
        })
        .collect()
}

/// Median seconds for one pass of `read_calls` over `texts`.
fn rust_seconds_per_pass(texts: &[&str]) -> f64 {
    let one_pass = || {
        for text in texts {
            let _ = std::hint::black_box(read_calls(std::hint::black_box(text)));
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

/// Installs `agent-tool-parser` into a virtual environment under `scratch`
/// and runs the timer there; its JSON answer.
fn python_timer(scratch: &Path, rows: &[Row]) -> Result<Value, String> {
    eprintln!("bench: toolcall formats: installing {AGENT_TOOL_PARSER} from PyPI");
    let venv =
        super::super::python::scratch_venv(scratch, "agent-tool-parser-venv", AGENT_TOOL_PARSER)?;
    let python = venv.join("bin/python3");
    let mut child = Command::new(&python)
        .args(["-c", PYTHON_TIMER, &SAMPLES.to_string()])
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("formats bench: cannot run {}: {e}", python.display()))?;
    let input: Vec<Value> = rows
        .iter()
        .map(|r| json!({"id": r.id, "family": r.family, "text": r.text, "names": r.names}))
        .collect();
    child
        .stdin
        .take()
        .ok_or("formats bench: no stdin for python")?
        .write_all(Value::Array(input).to_string().as_bytes())
        .map_err(|e| format!("formats bench: writing to python: {e}"))?;
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(format!(
            "formats bench: the agent-tool-parser timer failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(stdout.trim())
        .map_err(|e| format!("formats bench: unexpected timer output {stdout:?}: {e}"))
}
