//! Integration tests of jig-toolcall; modules mirror `src/`, plus the
//! corpus measure and the invariants shared with the fuzz target.
// test helpers outside `#[test]` functions assert by panicking, and the
// corpus measure prints its figures
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout
)]

mod call;
mod corpus;
mod formats;
mod invariants;
mod read;
mod reading;
mod repair;
