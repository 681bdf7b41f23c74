//! The integration tests of jig-programs.

mod gtfobins;
