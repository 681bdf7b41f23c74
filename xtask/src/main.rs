//! `cargo xtask`: the project's chores, one binary with subcommands.
//!
//! - `cargo xtask tidy`: architecture checks (dependency edges and their
//!   kinds, the order of the crate map, stale edges, only the kernel
//!   spawns) and README's error table.
//! - `cargo xtask bench [--json] [--only PREFIX]`: benchmark figures, one
//!   `name value unit` line each (or one JSON object with `--json`).
//! - `cargo xtask bench-echo-server`: the yardstick MCP server the `mcp`
//!   benchmark measures beside jig (see `bench/echo_server.rs`).
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod bench;
mod tidy;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("tidy") => tidy::run(),
        Some("bench") => bench::run(&args[1..]),
        Some("bench-echo-server") => bench::echo_server(),
        Some("-h" | "--help") | None => {
            println!("usage: cargo xtask <tidy | bench [--json] [--only PREFIX]>");
            Ok(())
        }
        Some(other) => Err(format!(
            "unknown xtask command `{other}`; try `cargo xtask --help`"
        )),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}
