//! Not built yet: see the open issue that owns this crate and ARCHITECTURE.md.
#![forbid(unsafe_code)]
