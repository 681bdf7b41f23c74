//! `jig --help` and each subcommand's help read well (snapshots).

use crate::snapshot;
use crate::support::run_jig;

#[test]
fn main_help() {
    let run = run_jig(&["--help"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    snapshot!("main", run.stdout);
}

#[test]
fn subcommand_help() {
    for command in ["tools", "call", "check", "audit", "mcp"] {
        let run = run_jig(&[command, "--help"]);
        assert_eq!(run.code, 0, "{command}: {}", run.stderr);
        snapshot!(command, run.stdout);
    }
}

#[test]
fn version_names_the_binary() {
    let run = run_jig(&["--version"]);
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stdout.trim(),
        format!("jig {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn a_usage_error_is_a_configuration_error_not_a_refusal() {
    let run = run_jig(&["call"]);
    assert_eq!(run.code, 1, "a bad command line exits 1; 2 means refused");
    assert!(run.stderr.contains("<NAME>"), "{}", run.stderr);
    let run = run_bad_timeout();
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("timeout"), "{}", run.stderr);
}

fn run_bad_timeout() -> crate::support::Run {
    run_jig(&["--timeout", "0", "tools"])
}
