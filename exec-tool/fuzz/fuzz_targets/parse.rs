//! Fuzzes the tokenizer, the operator scan, classification and rule
//! matching with arbitrary text; the invariants are the ones the property
//! tests check (`tests/exec/invariants.rs`, included here).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/exec/invariants.rs"]
mod invariants;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        invariants::check_text(text);
    }
});
