//! Read-only classification.

use jig_exec_tool::{CommandClass, ExecTool, classify};

use crate::support::Workspace;

#[test]
fn classes() {
    use CommandClass::*;
    let cases: &[(&str, CommandClass)] = &[
        ("grep -rn TODO src", Search),
        ("rg --files", Search),
        ("find . -name x", Search),
        ("git grep x", Search),
        ("cat README.md", Read),
        ("head -n 5 README.md", Read),
        ("wc -l README.md", Read),
        ("sed -n 1p README.md", Read),
        ("git log -3", Read),
        ("git status", Read),
        ("ls -la", List),
        ("tree", List),
        ("du -sh .", List),
        ("git ls-files", List),
        ("echo hi", Neutral),
        ("true", Neutral),
        ("printf x", Neutral),
        ("pwd", Neutral),
        ("python3 --version", Neutral),
        ("git --version", Neutral),
        // Writers, refused commands, launchers and unknown programs.
        ("sort -o out.txt data.csv", Other),
        ("sed -i s/a/b/ README.md", Other),
        ("find . -delete", Other),
        ("git commit -m x", Other),
        ("zip out.zip README.md", Other),
        ("cp a b", Other),
        ("env ls", Other),
        ("/bin/cat x", Other),
        ("ls | wc", Other),
        ("", Other),
    ];
    for (command, class) in cases {
        assert_eq!(ExecTool::classify(command), *class, "{command:?}");
    }
    assert!(Search.is_read_only() && Read.is_read_only() && List.is_read_only());
    assert!(Neutral.is_read_only() && !Other.is_read_only());
    assert_eq!(classify::<&str>(&[]), Other);
}

#[test]
fn invocations_report_read_only() {
    let ws = Workspace::new();
    let tool = crate::support::allowing(&["cat", "zip", "git"]);
    assert!(ws.check(&tool, "cat README.md").unwrap().read_only);
    assert!(ws.check(&tool, "git log").unwrap().read_only);
    assert!(!ws.check(&tool, "zip out.zip README.md").unwrap().read_only);
}
