//! Integration tests of jig-agent; modules mirror `src/`, plus a scripted
//! chat-completions server on 127.0.0.1 for the loop.
// test helpers outside `#[test]` functions assert by panicking
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod agent;
mod prompt;
mod server;
mod support;
