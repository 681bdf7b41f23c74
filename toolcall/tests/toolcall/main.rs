//! Integration tests of jig-toolcall; modules mirror `src/`, plus the
//! corpus measure, the invariants shared with the fuzz target, and a
//! scripted chat-completions server on 127.0.0.1 for the loop.
// test helpers outside `#[test]` functions assert by panicking, and the
// corpus measure prints its figures
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout
)]

mod agent;
mod call;
mod corpus;
mod invariants;
mod prompt;
mod repair;
mod server;
mod support;
