//! Cross-check with the public GTFOBins list of programs that can start a
//! shell: every one is refused by default (the deny list, by name or
//! family) or judged by a table of its own, whose examples show that the
//! shell-starting forms are refused.

use jig_lineage::DenyList;
use jig_programs::{Lookup, lookup, table_examples};

fn listed() -> Vec<String> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/programs/data/gtfobins-shell.txt"
    );
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_program_that_starts_a_shell_is_denied_or_tabled() {
    let deny = DenyList::default();
    let names = listed();
    assert!(names.len() > 200, "{} names", names.len());
    let uncovered: Vec<&str> = names
        .iter()
        .map(String::as_str)
        .filter(|name| !deny.is_denied(name))
        .filter(|name| matches!(lookup(name), Lookup::Generic))
        .collect();
    assert!(
        uncovered.is_empty(),
        "neither denied nor judged by a table: {uncovered:?}"
    );
}

#[test]
fn every_tabled_one_refuses_something() {
    // A table that let everything through would make the check above
    // hollow: each GTFOBins program with a table (and not denied) has at
    // least one must-refuse example.
    let deny = DenyList::default();
    let examples = table_examples();
    for name in listed() {
        if deny.is_denied(&name) {
            continue;
        }
        if let Lookup::Spec(spec) = lookup(&name) {
            let first = spec.names().first().copied();
            let refuses = examples
                .iter()
                .any(|e| !e.allowed && Some(e.program) == first);
            assert!(refuses, "{name}: its table has no must-refuse example");
        }
    }
}
