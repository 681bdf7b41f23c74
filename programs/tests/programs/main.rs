//! The integration tests of jig-programs (the tables' own examples run
//! through the exec tool in jig-exec-tool's tests).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod gtfobins;
mod help;
