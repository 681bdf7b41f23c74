//! Links the `jig` binary at a fixed address (see ARCHITECTURE.md, "The
//! binary's start-up").

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let static_crt = features.split(',').any(|feature| feature == "crt-static");
    if os == "linux" && !static_crt {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
