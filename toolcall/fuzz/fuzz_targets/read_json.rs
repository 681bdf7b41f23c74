//! The json reader: any input after one of its markers reads as calls,
//! no call or a typed error, never a panic; with a tool list, no call
//! names an unlisted tool. The checks are the integration tests' own, so
//! proptest runs the same logic on stable.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/toolcall/reading.rs"]
mod reading;

fuzz_target!(|data: &[u8]| {
    if let Some(text) = reading::reply("json", data) {
        reading::check(&text);
    }
});
