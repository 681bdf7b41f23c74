//! Reading every model's tool calls: `jig_toolcall::read_calls` over the
//! replies of the format sample (`../shared/corpus/toolcall_formats.jsonl`,
//! 35 families), its throughput, and its speedup over the PyPI multi-format
//! parser `agent-tool-parser` on the same replies, in the same run.
//!
//! `agent-tool-parser` is installed into a temporary virtual environment
//! for the run (as the MCP bench installs `mcp-shell-server`) and timed
//! in-process with its default engine (its compiled one when the wheel has
//! it): one Python process is started once, and only its passes over the
//! replies are timed (`time.perf_counter` around a loop of
//! `try_parse_tool_calls`), so interpreter start-up and imports are not
//! counted. The samples of both sides are interleaved (a Rust sample, then
//! a Python one, seven times) so that load on the machine weighs on both
//! alike; each side's median is used. It does not read every family: a family counts as one it handles
//! when it gets the names of the calls right, in order, in at least half of
//! the family's replies. The speedup figure is measured on the replies of
//! the families both parsers handle; the speedup over every reply, the
//! families left out and the inputs on which it failed (an exception, or a
//! panic of its compiled engine) are printed beside it.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

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

/// Reads the replies (one JSON line on stdin: texts, families, expected
/// names), decides which families `agent-tool-parser` handles and prints
/// them (one JSON line); warms up, then for each line `every` or
/// `handled` on stdin times one pass over those replies and prints the
/// seconds.
const PYTHON_TIMER: &str = r#"
import json, sys, time
from collections import defaultdict
from importlib.metadata import version
import agent_tool_parser

rows = json.loads(sys.stdin.readline())
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
print(json.dumps({
    "version": version("agent-tool-parser"),
    "accelerated": bool(getattr(agent_tool_parser, "ACCELERATED", False)),
    "families": handled, "failed": failed,
}), flush=True)

sets = {
    "every": [row["text"] for row in rows],
    "handled": [row["text"] for row in rows if row["family"] in handled],
}
def one_pass(texts):
    for text in texts:
        try:
            parse(text)
        except BaseException:
            pass
for texts in sets.values():
    one_pass(texts)
for line in sys.stdin:
    texts = sets[line.strip()]
    start = time.perf_counter()
    one_pass(texts)
    print(time.perf_counter() - start, flush=True)
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
    let scratch = std::env::temp_dir().join(format!("jig-bench-formats-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let timed = timed(&scratch, &rows);
    let _ = std::fs::remove_dir_all(&scratch);
    let Timed {
        info,
        rust_every,
        rust_both,
        python_every,
        python_both,
        both,
    } = timed?;
    let bytes: usize = rows.iter().map(|r| r.text.len()).sum();
    figures.add(
        "toolcall.formats_mb_per_s",
        bytes as f64 / rust_every / 1e6,
        "MB/s",
    );
    let handled: Vec<&str> = info["families"]
        .as_array()
        .map(|f| f.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
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
        info["version"].as_str().unwrap_or("?"),
        info["accelerated"],
        python_every * 1e6,
        python_every / rust_every,
    );
    eprintln!(
        "bench: toolcall formats: the speedup is measured on the {both} replies of the {} families \
         agent-tool-parser reads (call names right in half their replies): one pass \
         jig-toolcall {:.0} us, agent-tool-parser {:.0} us; left out: {}; \
         agent-tool-parser failed on: {}",
        handled.len(),
        rust_both * 1e6,
        python_both * 1e6,
        left_out.join(", "),
        info["failed"]
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

/// The median seconds per pass of each side, over every reply and over
/// the replies of the families `agent-tool-parser` handles.
struct Timed {
    /// The timer's first answer: version, engine, handled families, failures.
    info: Value,
    rust_every: f64,
    rust_both: f64,
    python_every: f64,
    python_both: f64,
    /// How many replies the handled families hold.
    both: usize,
}

/// Seconds for one pass of `read_calls` over `texts` (the mean of
/// [`RUST_PASSES`] passes).
fn rust_seconds_per_pass(texts: &[&str]) -> f64 {
    let start = Instant::now();
    for _ in 0..RUST_PASSES {
        for text in texts {
            let _ = std::hint::black_box(read_calls(std::hint::black_box(text)));
        }
    }
    start.elapsed().as_secs_f64() / RUST_PASSES as f64
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples.get(samples.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Installs `agent-tool-parser` into a virtual environment under `scratch`,
/// starts its timer there and times both sides, interleaved.
fn timed(scratch: &Path, rows: &[Row]) -> Result<Timed, String> {
    eprintln!("bench: toolcall formats: installing {AGENT_TOOL_PARSER} from PyPI");
    let venv =
        super::super::python::scratch_venv(scratch, "agent-tool-parser-venv", AGENT_TOOL_PARSER)?;
    let python = venv.join("bin/python3");
    let stderr_path = scratch.join("timer-stderr");
    let stderr = std::fs::File::create(&stderr_path).map_err(|e| e.to_string())?;
    let mut child = Command::new(&python)
        .args(["-c", PYTHON_TIMER])
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .map_err(|e| format!("formats bench: cannot run {}: {e}", python.display()))?;
    let result = drive(&mut child, rows);
    drop(child.stdin.take());
    let _ = child.wait();
    result.map_err(|e| {
        let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
        format!("{e}; the agent-tool-parser timer said: {stderr}")
    })
}

/// The interleaved samples: a Rust sample, then a Python one, for every
/// reply and for the handled families' replies.
fn drive(child: &mut std::process::Child, rows: &[Row]) -> Result<Timed, String> {
    let mut stdin = child
        .stdin
        .take()
        .ok_or("formats bench: no stdin for python")?;
    let stdout = child
        .stdout
        .take()
        .ok_or("formats bench: no stdout for python")?;
    let mut lines = BufReader::new(stdout).lines();
    let mut answer = move || -> Result<String, String> {
        lines
            .next()
            .ok_or("formats bench: the timer stopped")?
            .map_err(|e| e.to_string())
    };
    let input: Vec<Value> = rows
        .iter()
        .map(|r| json!({"id": r.id, "family": r.family, "text": r.text, "names": r.names}))
        .collect();
    writeln!(stdin, "{}", Value::Array(input)).map_err(|e| e.to_string())?;
    let info: Value = serde_json::from_str(&answer()?)
        .map_err(|e| format!("formats bench: unexpected timer output: {e}"))?;
    let handled: Vec<&str> = info["families"]
        .as_array()
        .map(|f| f.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let every: Vec<&str> = rows.iter().map(|r| r.text.as_str()).collect();
    let both: Vec<&str> = rows
        .iter()
        .filter(|r| handled.contains(&r.family.as_str()))
        .map(|r| r.text.as_str())
        .collect();
    // warm-up (the timer warmed itself up)
    rust_seconds_per_pass(&every);
    let mut python_pass = |set: &str| -> Result<f64, String> {
        writeln!(stdin, "{set}").map_err(|e| e.to_string())?;
        let line = answer()?;
        line.trim()
            .parse::<f64>()
            .map_err(|e| format!("formats bench: unexpected timer output {line:?}: {e}"))
    };
    let mut samples: [Vec<f64>; 4] = Default::default();
    for _ in 0..SAMPLES {
        samples[0].push(rust_seconds_per_pass(&every));
        samples[1].push(python_pass("every")?);
        samples[2].push(rust_seconds_per_pass(&both));
        samples[3].push(python_pass("handled")?);
    }
    let [rust_every, python_every, rust_both, python_both] = samples.map(median);
    Ok(Timed {
        info,
        rust_every,
        rust_both,
        python_every,
        python_both,
        both: both.len(),
    })
}
