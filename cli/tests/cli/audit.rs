//! `jig audit`: the reviewer's view of every visible tool.

use crate::snapshot;
use crate::support::run_example;

#[test]
fn text_audit_of_the_example() {
    let run = run_example(&["audit"]);
    assert_eq!(run.code, 0, "{run:?}");
    // This machine kind has every mechanism: the audit says so.
    assert!(
        run.stdout.starts_with(
            "containment: landlock abi 6, seccomp, user+pid+mount namespaces, private /proc"
        ),
        "{}",
        run.stdout
    );
    snapshot!("text", run.stdout);
}

#[test]
fn json_audit_names_form_binaries_skeleton_slots_and_variability() {
    let run = run_example(&["audit", "--format", "json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let json = run.json();
    let tools = json["tools"].as_array().unwrap();
    let search = tools.iter().find(|t| t["name"] == "search_text").unwrap();
    assert_eq!(search["form"], "descriptor");
    assert_eq!(search["binaries"], serde_json::json!(["grep"]));
    assert_eq!(search["skeleton"], "grep -rn {pattern} {path}");
    assert_eq!(search["slots"].as_array().unwrap().len(), 2);
    assert!(search["variability"].as_str().unwrap().len() > 10);
    // The example's tools say they only read: their calls write nothing.
    assert_eq!(search["writes"], "nothing");
    let grep = tools.iter().find(|t| t["name"] == "grep").unwrap();
    assert_eq!(grep["form"], "command");
    assert!(
        json["containment"]
            .as_str()
            .unwrap()
            .starts_with("landlock abi"),
        "{json}"
    );
    snapshot!("json", run.stdout);
}
