//! Integration tests of the `jig` binary: each test runs the real built
//! binary as a user, a script or an MCP client would.
// Tests drive the binary as a user would, so they start processes; tests
// may unwrap (clippy.toml allows it in tests, this says so for helpers too).
#![allow(clippy::disallowed_methods, clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::panic)]

mod agent;
mod audit;
mod call;
// The scripted chat-completions server is shared with jig-agent's tests
// (one file, two users) rather than copied.
#[path = "../../../agent/tests/agent/server.rs"]
mod chat_server;
mod check;
mod config;
mod help;
mod mcp;
mod python;
mod reliability;
mod repair_parse;
mod support;
mod tools;
