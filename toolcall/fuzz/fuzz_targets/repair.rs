//! Any input: `repair` yields valid JSON or a typed error, never a panic;
//! `repair_value` agrees; valid JSON keeps its value; `extract_call` yields
//! a well-formed outcome. The checks are the integration tests' own, so
//! proptest runs the same logic on stable.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/toolcall/invariants.rs"]
mod invariants;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        invariants::check(text);
    }
});
