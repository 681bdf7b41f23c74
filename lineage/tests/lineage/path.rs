//! Path confinement inside a real workspace: links inside and out, special
//! files, values that do not exist yet.

use jig_lineage::{PathRefusal, confine_path};

use crate::Workspace;

#[test]
fn confinement_table() {
    let ws = Workspace::new();
    let root = &ws.root;
    std::os::unix::fs::symlink("src", root.join("src_link")).unwrap();
    std::os::unix::fs::symlink(root.join("README.md"), root.join("readme_abs")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", root.join("passwd_link")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", root.join("zero_link")).unwrap();
    std::os::unix::fs::symlink("missing_target", root.join("dangling")).unwrap();
    // (value, Ok(path relative to root) or Err(variant name))
    let cases: &[(&str, Result<&str, &str>)] = &[
        ("src_link/main.rs", Ok("src/main.rs")),
        ("readme_abs", Ok("README.md")),
        ("dangling", Ok("missing_target")),
        ("src/../README.md", Ok("README.md")),
        ("src/caf\u{e9}.rs", Ok("src/caf\u{e9}.rs")),
        ("...", Ok("...")),
        ("passwd_link", Err("Escapes")),
        ("symlink_to_root/etc/shadow", Err("Escapes")),
        ("symlink_to_root", Err("Escapes")),
        ("zero_link", Err("SystemPath")),
        ("fifo", Err("SpecialFile")),
        ("/dev/stdin", Err("SystemPath")),
        ("/proc/self/fd/0", Err("SystemPath")),
        ("~", Err("Home")),
    ];
    for (value, expected) in cases {
        let got = confine_path(root, value);
        match (expected, &got) {
            (Ok(relative), Ok(path)) => assert_eq!(path, &root.join(relative), "{value}"),
            (Err(variant), Err(refusal)) => {
                assert!(
                    format!("{refusal:?}").starts_with(variant),
                    "{value}: {refusal:?}"
                );
                assert_eq!(refusal.value(), *value);
            }
            _ => panic!("{value}: {got:?}"),
        }
    }
    // Absolute values inside the root are fine, even through links, as long
    // as both the text and the resolved path stay inside.
    let aliased = format!("{}/src_link/../src_link/main.rs", root.display());
    assert_eq!(confine_path(root, &aliased), Ok(root.join("src/main.rs")));
    let round_trip = format!("{}/symlink_to_root{}", root.display(), root.display());
    assert_eq!(confine_path(root, &round_trip), Ok(root.clone()));
    // `..` after a link applies where the link leads.
    assert!(matches!(
        confine_path(root, "symlink_to_root/.."),
        Err(PathRefusal::Escapes { .. })
    ));
}

#[test]
fn refusal_messages() {
    let ws = Workspace::new();
    let mut report = String::new();
    for value in [
        "",
        "../x",
        "/etc/passwd",
        "/proc/self/environ",
        "fifo",
        "~/.ssh/id_rsa",
        "a\\b",
        "file:///x",
        "a\0b",
    ] {
        let refusal = confine_path(&ws.root, value).unwrap_err();
        report.push_str(&format!("{value:?}\n  {refusal}\n"));
    }
    insta::assert_snapshot!("path_refusals", report);
}
