//! The containment suite: every hostile effect is tried on real processes,
//! in temporary folders, loopback only, twice: with containment off (the
//! effect must happen, so the case can fail) and on (it must not).
//!
//! The kernel judges no argv, so hostile programs (`python3`, `sh`, `find
//! -exec`) run here directly: no deny list stands in the way.
//!
//! This is its own binary (`harness = false`) because some cases need the
//! integrator to be a separate process: one is killed with SIGKILL, one runs
//! as an unprivileged user. Such a process is this binary again, started
//! with `integrator` as its first argument. A mechanism that is missing
//! fails the suite and says which: nothing is skipped.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::disallowed_methods,
    missing_docs
)]

mod cases;
mod integrator;
mod support;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("integrator") {
        return integrator::main(&args[2..]);
    }
    let filter: Vec<&String> = args[1..].iter().filter(|a| !a.starts_with('-')).collect();
    let mut passed = 0;
    let mut failed = Vec::new();
    for (name, case) in cases::ALL {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        let result = std::panic::catch_unwind(case);
        match result {
            Ok(()) => {
                println!("test contain::{name} ... ok");
                passed += 1;
            }
            Err(_) => {
                println!("test contain::{name} ... FAILED");
                failed.push(*name);
            }
        }
    }
    println!();
    if !failed.is_empty() {
        println!("failures: {}", failed.join(", "));
    }
    println!("{passed} passed, {} failed", failed.len());
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
