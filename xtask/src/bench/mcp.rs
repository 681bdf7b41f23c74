//! MCP figures: per-call latency of `jig mcp` and of the Python
//! `mcp-shell-server`, driven by the same Python MCP SDK client
//! (`cli/tests/python/mcp_client.py`) running the same cheap command
//! (`echo hello`), and the peak memory of both servers. The 500 measured
//! calls per server are made in rounds that alternate between the servers.
//! A third server takes part in the rounds as a yardstick: `cargo xtask
//! bench-echo-server` ([`mod@super::echo_server`]), which only spawns `echo`
//! for each call; `mcp.latency_ratio_ceiling` is `mcp-shell-server`'s
//! median over its median, the most any server that runs the command can
//! score on the machine. jig without containment
//! (`--dangerous-no-containment`) takes part too, for what containment
//! adds (`mcp.jig_uncontained_median_ms`).
//!
//! Then the same servers driven by a minimal Rust client (`mcp_raw`), which
//! costs next to nothing per call, so that the figures are the servers':
//! the latency again (`raw_client_*`), the throughput of both with
//! [`CONCURRENCY`] calls in flight (alternating rounds), and jig's resident
//! memory after a soak of [`SOAK_CALLS`] mixed calls (a word, a long output
//! cut to the budget, a refused value) at that concurrency.
//!
//! The release binary is built first, unless `JIG_BENCH_BINARY` names
//! another one (to measure an older build in the same conditions).
//!
//! Needs the workspace's `.venv` (created by `.ci/run`, with the `mcp`
//! package) for the client, and PyPI for `mcp-shell-server`, which is
//! installed into a temporary virtual environment for the run.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use super::Figures;
use super::mcp_raw::RawServer;

/// The `mcp-shell-server` release measured against.
const SHELL_SERVER: &str = "mcp-shell-server==1.1.14";
/// Calls before measuring, in each round.
const WARMUP: usize = 50;
/// Calls measured in all (per server).
const CALLS: usize = 500;
/// The calls are measured in this many rounds, alternating between the two
/// servers, so that a change in the machine's load (CI, other work) weighs
/// on both alike.
const ROUNDS: usize = 5;

/// Calls in flight for the throughput figure.
const CONCURRENCY: usize = 32;
/// Calls per server and round for the throughput figure.
const THROUGHPUT_CALLS: usize = 400;
/// Rounds of the throughput figure, alternating between the servers.
const THROUGHPUT_ROUNDS: usize = 3;
/// Calls of the soak after which jig's resident memory is read.
const SOAK_CALLS: usize = 6000;

/// A descriptor tool with a long output (cut to the output budget).
const COUNT_TOOL: &str = r#"{
  "name": "count_to",
  "description": "Print the numbers from 1 to N",
  "command": "seq {count}",
  "arguments": {"count": {"type": "number", "description": "The last number", "required": true}}
}"#;

/// The descriptor tool jig serves for the benchmark.
const ECHO_TOOL: &str = r#"{
  "name": "echo_text",
  "description": "Print one word",
  "command": "echo {text}",
  "arguments": {"text": {"type": "string", "description": "The word", "required": true}}
}"#;

pub(crate) fn run(figures: &mut Figures) -> Result<(), String> {
    let root = workspace_root()?;
    let python = root.join(".venv/bin/python3");
    if !python.exists() {
        return Err(format!(
            "{} is missing; create it as CI does: python3 -m venv .venv && \
             .venv/bin/pip install -r .ci/requirements.txt",
            python.display()
        ));
    }
    let scratch = std::env::temp_dir().join(format!("jig-bench-mcp-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let result = run_in(&root, &python, &scratch, figures);
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

fn run_in(root: &Path, python: &Path, scratch: &Path, figures: &mut Figures) -> Result<(), String> {
    let jig = build_jig(root)?;
    let workspace = scratch.join("workspace");
    let tools = scratch.join("tools");
    for dir in [&workspace, &tools] {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(tools.join("echo_text.tool.json"), ECHO_TOOL).map_err(|e| e.to_string())?;
    std::fs::write(tools.join("count_to.tool.json"), COUNT_TOOL).map_err(|e| e.to_string())?;
    let shell_server = install_shell_server(scratch)?;
    let script = root.join("cli/tests/python/mcp_client.py");
    let workspace_arg = workspace.display().to_string();

    let jig_command = |options: &[&str]| -> Vec<String> {
        [
            jig.display().to_string(),
            "--root".to_owned(),
            workspace_arg.clone(),
        ]
        .into_iter()
        .chain(["--tools".to_owned(), tools.display().to_string()])
        .chain(options.iter().map(|&option| option.to_owned()))
        .chain(["mcp".to_owned()])
        .collect()
    };
    let jig_server = jig_command(&[]);
    // The same server without containment: what containment adds, read
    // in the same rounds.
    let uncontained_server = jig_command(&["--dangerous-no-containment"]);
    let jig_arguments = serde_json::json!({"text": "hello"});
    let shell_arguments =
        serde_json::json!({"command": ["echo", "hello"], "directory": workspace_arg});
    let shell_command = [shell_server.display().to_string()];
    let yardstick_command = [
        std::env::current_exe()
            .map_err(|e| format!("xtask's own path: {e}"))?
            .display()
            .to_string(),
        "bench-echo-server".to_owned(),
    ];
    let mut ours = Measured::default();
    let mut theirs = Measured::default();
    let mut yardstick = Measured::default();
    let mut uncontained = Measured::default();
    for _ in 0..ROUNDS {
        ours.add(measure(
            python,
            &script,
            "echo_text",
            &jig_arguments,
            &[],
            &jig_server,
        )?);
        theirs.add(measure(
            python,
            &script,
            "shell_execute",
            &shell_arguments,
            &["ALLOW_COMMANDS=echo"],
            &shell_command,
        )?);
        yardstick.add(measure(
            python,
            &script,
            "echo_text",
            &serde_json::json!({}),
            &[],
            &yardstick_command,
        )?);
        uncontained.add(measure(
            python,
            &script,
            "echo_text",
            &jig_arguments,
            &[],
            &uncontained_server,
        )?);
    }
    for (name, run) in [
        ("jig", &ours),
        ("shell_server", &theirs),
        ("bench-echo-server", &yardstick),
        ("jig uncontained", &uncontained),
    ] {
        if !run.sample.contains("hello") {
            return Err(format!(
                "{name}: the call printed {:?}, not hello",
                run.sample
            ));
        }
    }

    let (ours_median, theirs_median) = (ours.percentile(0.5), theirs.percentile(0.5));
    figures.add("mcp.jig_median_ms", ours_median, "ms");
    figures.add("mcp.jig_p99_ms", ours.percentile(0.99), "ms");
    figures.add("mcp.shell_server_median_ms", theirs_median, "ms");
    figures.add("mcp.shell_server_p99_ms", theirs.percentile(0.99), "ms");
    figures.add(
        "mcp.latency_ratio_vs_mcp_shell_server",
        theirs_median / ours_median,
        "ratio",
    );
    figures.add(
        "mcp.jig_uncontained_median_ms",
        uncontained.percentile(0.5),
        "ms",
    );
    let yardstick_median = yardstick.percentile(0.5);
    figures.add("mcp.spawn_only_server_median_ms", yardstick_median, "ms");
    figures.add(
        "mcp.latency_ratio_ceiling",
        theirs_median / yardstick_median,
        "ratio",
    );
    figures.add("mcp.jig_peak_rss_mib", ours.peak_rss_mib, "MiB");
    figures.add("mcp.shell_server_peak_rss_mib", theirs.peak_rss_mib, "MiB");

    // The same servers, driven by a minimal client (`mcp_raw`): what the
    // servers themselves take.
    let jig_call = ("echo_text", jig_arguments.clone());
    let shell_call = ("shell_execute", shell_arguments.clone());
    let shell_env = [("ALLOW_COMMANDS", "echo")];
    let (mut ours, mut theirs) = (Measured::default(), Measured::default());
    for _ in 0..ROUNDS {
        ours.latencies_ms
            .extend(raw_latencies(&jig_server, &[], &jig_call)?);
        theirs
            .latencies_ms
            .extend(raw_latencies(&shell_command, &shell_env, &shell_call)?);
    }
    let (ours_median, theirs_median) = (ours.percentile(0.5), theirs.percentile(0.5));
    figures.add("mcp.raw_client_jig_median_ms", ours_median, "ms");
    figures.add("mcp.raw_client_shell_server_median_ms", theirs_median, "ms");
    figures.add(
        "mcp.raw_client_latency_ratio_vs_mcp_shell_server",
        theirs_median / ours_median,
        "ratio",
    );

    let (mut ours, mut theirs) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..THROUGHPUT_ROUNDS {
        ours += raw_batch(
            &jig_server,
            &[],
            std::slice::from_ref(&jig_call),
            THROUGHPUT_CALLS,
        )?
        .0;
        theirs += raw_batch(
            &shell_command,
            &shell_env,
            std::slice::from_ref(&shell_call),
            THROUGHPUT_CALLS,
        )?
        .0;
    }
    let calls = (THROUGHPUT_CALLS * THROUGHPUT_ROUNDS) as f64;
    let (ours_rate, theirs_rate) = (calls / ours.as_secs_f64(), calls / theirs.as_secs_f64());
    figures.add("mcp.jig_calls_per_s_32_in_flight", ours_rate, "calls/s");
    figures.add(
        "mcp.shell_server_calls_per_s_32_in_flight",
        theirs_rate,
        "calls/s",
    );
    figures.add(
        "mcp.throughput_ratio_vs_mcp_shell_server",
        ours_rate / theirs_rate,
        "ratio",
    );

    // The soak: a word, a long output cut to the budget, a refused value.
    let mixed = [
        jig_call,
        ("count_to", serde_json::json!({"count": 200_000})),
        ("echo_text", serde_json::json!({"text": "not;a;word"})),
    ];
    let (elapsed, rss_kib) = raw_batch(&jig_server, &[], &mixed, SOAK_CALLS)?;
    figures.add(
        "mcp.soak_calls_per_s",
        SOAK_CALLS as f64 / elapsed.as_secs_f64(),
        "calls/s",
    );
    figures.add("mcp.rss_after_soak_mib", rss_kib / 1024.0, "MiB");
    Ok(())
}

/// Starts `server`, makes [`WARMUP`] calls, then `CALLS / ROUNDS` timed
/// ones, one at a time, with the minimal client.
fn raw_latencies(
    server: &[String],
    env: &[(&str, &str)],
    call: &(&str, Value),
) -> Result<Vec<f64>, String> {
    let mut raw = RawServer::start(server, env)?;
    raw.latencies(call.0, &call.1, WARMUP)?;
    let (latencies, sample) = raw.latencies(call.0, &call.1, CALLS / ROUNDS)?;
    if !sample.contains("hello") {
        return Err(format!("{}: the call printed {sample:?}", call.0));
    }
    Ok(latencies)
}

/// Starts `server`, warms it up, then makes `total` calls cycling through
/// `calls` with [`CONCURRENCY`] in flight; the time they took and the
/// server's resident memory afterwards (KiB). Only the refused value of the
/// soak may fail: every third call of a three-call cycle.
fn raw_batch(
    server: &[String],
    env: &[(&str, &str)],
    calls: &[(&str, Value)],
    total: usize,
) -> Result<(Duration, f64), String> {
    let mut raw = RawServer::start(server, env)?;
    raw.batch(calls, WARMUP, 1)?;
    let batch = raw.batch(calls, total, CONCURRENCY)?;
    let refused = if calls.len() == 3 { total / 3 } else { 0 };
    if batch.errors != refused {
        return Err(format!(
            "{} of {total} calls failed, {refused} expected ({})",
            batch.errors, batch.sample
        ));
    }
    let rss = super::kernel::process_status_kib(&raw.pid().to_string(), "VmRSS")?;
    Ok((batch.elapsed, rss))
}

/// Runs the client and reads the JSON object it prints.
fn client_report(command: &mut Command, server: &[String]) -> Result<Value, String> {
    let output = command
        .output()
        .map_err(|e| format!("the MCP client: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "the MCP client failed against {}: {}",
            server.first().map_or("", String::as_str),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("the MCP client's report is not JSON: {e}"))
}

/// The workspace root (xtask's parent folder).
fn workspace_root() -> Result<PathBuf, String> {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| "xtask has no parent folder".to_owned())
}

/// Builds the release binary and returns its path, as cargo reports it
/// (the workspace builds for the host by name: `target/<triple>/release`).
pub(crate) fn build_jig(root: &Path) -> Result<PathBuf, String> {
    if let Some(binary) = std::env::var_os("JIG_BENCH_BINARY") {
        return Ok(PathBuf::from(binary));
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .current_dir(root)
        .args([
            "build",
            "--quiet",
            "--release",
            "-p",
            "jig-cli",
            "--bin",
            "jig",
            "--message-format=json",
        ])
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("cargo build: {e}"))?;
    if !output.status.success() {
        return Err("building the release jig binary failed".to_owned());
    }
    let jig = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|message| message["reason"] == "compiler-artifact")
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .ok_or("cargo built no jig executable")?;
    jig.exists()
        .then_some(jig.clone())
        .ok_or_else(|| format!("{} was not built", jig.display()))
}

/// Installs `mcp-shell-server` into a virtual environment under `scratch`
/// and returns its entry point.
fn install_shell_server(scratch: &Path) -> Result<PathBuf, String> {
    let venv = super::python::scratch_venv(scratch, "shell-server-venv", SHELL_SERVER)?;
    Ok(venv.join("bin/mcp-shell-server"))
}

/// One server's figures, gathered over the rounds.
#[derive(Default)]
struct Measured {
    latencies_ms: Vec<f64>,
    peak_rss_mib: f64,
    sample: String,
}

impl Measured {
    fn add(&mut self, round: Measured) {
        self.latencies_ms.extend(round.latencies_ms);
        self.peak_rss_mib = self.peak_rss_mib.max(round.peak_rss_mib);
        self.sample = round.sample;
    }

    /// The nearest-rank percentile of the latencies.
    fn percentile(&self, fraction: f64) -> f64 {
        let mut sorted = self.latencies_ms.clone();
        sorted.sort_by(f64::total_cmp);
        let rank = (fraction * sorted.len() as f64).ceil() as usize;
        sorted
            .get(rank.saturating_sub(1).min(sorted.len().saturating_sub(1)))
            .copied()
            .unwrap_or(f64::NAN)
    }
}

/// Runs the client's bench mode against `server` and reads its report.
fn measure(
    python: &Path,
    client: &Path,
    tool: &str,
    arguments: &Value,
    env: &[&str],
    server: &[String],
) -> Result<Measured, String> {
    let mut command = Command::new(python);
    command
        .arg(client)
        .arg("bench")
        .args(["--tool", tool])
        .arg("--args")
        .arg(arguments.to_string())
        .args([
            "--warmup",
            &WARMUP.to_string(),
            "--calls",
            &(CALLS / ROUNDS).to_string(),
        ])
        .arg("--quiet-server");
    for pair in env {
        command.args(["--env", pair]);
    }
    command.arg("--").args(server);
    let report = client_report(&mut command, server)?;
    let latencies_ms: Vec<f64> = report["latencies_ms"]
        .as_array()
        .ok_or("the report has no latencies")?
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    if latencies_ms.len() != CALLS / ROUNDS {
        return Err(format!(
            "{} latencies, not {}",
            latencies_ms.len(),
            CALLS / ROUNDS
        ));
    }
    let peak_kib = report["server_peak_rss_kib"]
        .as_f64()
        .ok_or("the report has no peak memory of the server")?;
    Ok(Measured {
        latencies_ms,
        peak_rss_mib: peak_kib / 1024.0,
        sample: report["sample"].as_str().unwrap_or_default().to_owned(),
    })
}
