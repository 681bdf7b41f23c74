//! The integration tests of jig-exec-tool, one module per source module
//! (plus `corpus`, the shared payload corpus as a dry run, `props`, the
//! property tests, and `invariants`, shared with the fuzz target).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout
)]

mod allow;
mod class;
mod contained;
mod corpus;
mod find;
mod gitenv;
mod granted;
mod invariants;
mod props;
mod rules;
mod scan;
mod sed;
mod support;
mod tables;
mod tool;
