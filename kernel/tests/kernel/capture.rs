//! Output capture through real pipes.

use jig_kernel::Limits;

use crate::Workspace;

#[test]
fn stdout_and_stderr_keep_their_order() {
    let ws = Workspace::new();
    let outcome = ws
        .kernel
        .run(&[
            "sh",
            "-c",
            "echo out1; echo err1 >&2; echo out2; echo err2 >&2; echo out3",
        ])
        .unwrap();
    assert_eq!(outcome.output.text(), "out1\nerr1\nout2\nerr2\nout3\n");
}

#[test]
fn a_gibibyte_is_drained_counted_and_capped() {
    let ws = Workspace::new();
    let outcome = ws
        .kernel
        .run(&["head", "-c", "1073741824", "/dev/zero"])
        .unwrap();
    assert_eq!(outcome.exit_code(), Some(0));
    assert!(!outcome.timed_out());
    assert_eq!(outcome.output.total_bytes(), 1 << 30);
    assert_eq!(outcome.output.kept_bytes().len(), 2048);
    assert_eq!(outcome.output.dropped_bytes(), (1 << 30) - 2048);
    assert!(
        outcome
            .render()
            .contains("[... 1073739776 bytes omitted ...]")
    );
}

#[test]
fn truncation_never_splits_a_utf8_character() {
    // 3000 two-byte characters and 1000 three-byte ones: every cut position
    // of a 2048-byte budget falls inside some character.
    for budget in [2048, 2047, 1001, 7] {
        let ws = Workspace::with_limits(Limits::default().with_max_output(budget));
        let outcome = ws
            .kernel
            .run(&[
                "python3",
                "-c",
                "import sys; sys.stdout.write('é' * 3000 + '€' * 1000)",
            ])
            .unwrap();
        let kept = outcome.output.kept_bytes();
        let text = outcome.output.text();
        assert!(!text.contains('\u{FFFD}'), "budget {budget}: {text}");
        assert!(
            kept.len() <= budget && kept.len() + 3 >= budget,
            "budget {budget}"
        );
        assert_eq!(outcome.output.dropped_bytes() + kept.len() as u64, 9000);
        assert!(text.starts_with('é') && text.ends_with('€'));
    }
}

#[test]
fn invalid_utf8_and_nul_bytes_render_safely() {
    let ws = Workspace::new();
    let outcome = ws.kernel.run(&["printf", "a\\000b\\377c\\033[1m"]).unwrap();
    assert_eq!(outcome.output.text(), "a\u{2400}b\u{FFFD}c\u{241B}[1m");
}

#[test]
fn a_flood_limit_ends_a_writer_without_end() {
    let ws = Workspace::with_limits(Limits::default().with_flood_limit(1 << 20));
    let outcome = ws.kernel.run(&["cat", "/dev/zero"]).unwrap();
    assert_eq!(
        outcome.ended_by_kernel,
        Some(jig_kernel::Ended::Flood(1 << 20))
    );
    assert!(outcome.output.total_bytes() > 1 << 20);
    assert!(outcome.render().starts_with("exit: output flood"));
}
