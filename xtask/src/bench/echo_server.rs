//! The smallest MCP server that still runs the command: `cargo xtask
//! bench-echo-server` answers `initialize` and `tools/list`, and answers
//! each `tools/call` by spawning `echo hello` with the standard library
//! (`posix_spawn`), reading its output and returning it. No checks, no
//! containment, no limits: it is not a tool, it is a yardstick.
//!
//! Driven by the same Python SDK client as jig and `mcp-shell-server`, in
//! the same alternating rounds, its median is what any server that runs
//! `echo` takes on this machine: the client's own share plus one process
//! start. `mcp.latency_ratio_ceiling` divides `mcp-shell-server`'s median
//! by it: the latency ratio a server with no cost of its own would reach,
//! so a reader can tell jig's share from the machine's (process starts are
//! much dearer on some virtual machines, which flattens every ratio).

use std::io::{BufRead, Write};
use std::process::Command;

use serde_json::{Value, json};

/// The one tool it lists, named as jig's benchmark tool.
const TOOL: &str = "echo_text";

/// Serves stdin until it closes.
pub(crate) fn run() -> Result<(), String> {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line.map_err(|e| format!("stdin: {e}"))?;
        let Ok(request) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let Some(id) = request.get("id").cloned() else {
            continue; // a notification
        };
        let result = match request["method"].as_str().unwrap_or_default() {
            "initialize" => json!({
                "protocolVersion": request["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "bench-echo-server", "version": "0"},
            }),
            "tools/list" => json!({"tools": [{
                "name": TOOL,
                "description": "Print hello",
                "inputSchema": {"type": "object"},
            }]}),
            "tools/call" => {
                let output = Command::new("echo")
                    .arg("hello")
                    .output()
                    .map_err(|e| format!("echo: {e}"))?;
                json!({
                    "content": [{"type": "text", "text": String::from_utf8_lossy(&output.stdout)}],
                    "isError": !output.status.success(),
                })
            }
            _ => json!({}),
        };
        let answer = json!({"jsonrpc": "2.0", "id": id, "result": result});
        writeln!(stdout, "{answer}")
            .and_then(|()| stdout.flush())
            .map_err(|e| format!("stdout: {e}"))?;
    }
    Ok(())
}
