//! The rendered outcome a model reads (snapshots).

use std::time::Duration;

use jig_kernel::Limits;

use crate::Workspace;

#[test]
fn rendered_outcomes() {
    let ws = Workspace::with_limits(
        Limits::default()
            .with_timeout(Duration::from_millis(300))
            .with_max_output(64),
    );
    let cases: [(&str, &[&str]); 6] = [
        ("success", &["sh", "-c", "echo hello; echo world >&2"]),
        ("exit_42", &["sh", "-c", "echo failing >&2; exit 42"]),
        ("signal", &["sh", "-c", "echo dying; kill -TERM $$"]),
        (
            "timeout",
            &["sh", "-c", "echo waiting; while :; do :; done"],
        ),
        ("truncated", &["seq", "1", "1000"]),
        ("empty", &["true"]),
    ];
    for (name, argv) in cases {
        let outcome = ws.kernel.run(argv).unwrap();
        insta::assert_snapshot!(name, outcome.render());
    }
}
