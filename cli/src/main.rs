//! The `jig` command (not built yet: see the open issue that owns it).
fn main() {}
