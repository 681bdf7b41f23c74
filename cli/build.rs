//! Links the `jig` binary at a fixed address (see ARCHITECTURE.md, "The
//! binary's start-up").

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
