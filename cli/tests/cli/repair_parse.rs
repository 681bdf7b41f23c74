//! `jig repair` and `jig parse`: text on stdin, JSON on stdout, exit
//! statuses that tell a call from no call from an unusable one.

use crate::snapshot;
use crate::support::{run_jig, run_stdin};

#[test]
fn repair_prints_the_repaired_json() {
    let cases = [
        (
            "Sure! {'path': 'src', 'recursive': True, // the folder",
            r#"{"path":"src","recursive":true}"#,
        ),
        (
            "```json\n{\"a\": [1, 2,], \"b\": None}\n```",
            r#"{"a":[1,2],"b":null}"#,
        ),
        ("[1, 2", "[1,2]"),
    ];
    for (input, expected) in cases {
        let run = run_stdin(&["repair"], input);
        assert_eq!(run.code, 0, "{input}: {run:?}");
        assert_eq!(run.stdout, format!("{expected}\n"), "{input}");
        assert_eq!(run.stderr, "");
    }
    let run = run_stdin(&["repair", "--pretty"], "{'a': 1}");
    assert_eq!(run.stdout, "{\n  \"a\": 1\n}\n");
}

#[test]
fn repair_without_json_exits_1() {
    let run = run_stdin(&["repair"], "No JSON here, sorry.");
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr, "jig: no JSON in the input\n");
}

#[test]
fn parse_prints_the_normalized_call() {
    let cases = [
        "I'll look. {'tool': 'grep', 'args': {'pattern': 'TODO'}}",
        "{\"tool_name\": \"grep\", \"parameters\": {\"pattern\": \"TODO\"}}",
        "{\"function\": {\"name\": \"grep\", \"arguments\": \"{\\\"pattern\\\": \\\"TODO\\\"}\"}}",
        "```json\n{\"name\": \"grep\", \"arguments\": {\"pattern\": \"TODO\"",
    ];
    for input in cases {
        let run = run_stdin(&["parse"], input);
        assert_eq!(run.code, 0, "{input}: {run:?}");
        assert_eq!(
            run.stdout, "{\"name\":\"grep\",\"arguments\":{\"pattern\":\"TODO\"}}\n",
            "{input}"
        );
    }
}

#[test]
fn parse_tells_no_call_from_an_unusable_one() {
    let run = run_stdin(&["parse"], "The tests pass. I am done.");
    assert_eq!(run.code, 3, "{run:?}");
    assert_eq!(run.stdout, "");
    let no_call = run.stderr;

    let run = run_stdin(&["parse"], "{\"thought\": \"I should look first\"}");
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(run.stdout, "");
    snapshot!("parse_messages", format!("{no_call}{}", run.stderr));
}

#[test]
fn help_of_repair_parse_and_agent() {
    for command in ["repair", "parse", "agent"] {
        let run = run_jig(&[command, "--help"]);
        assert_eq!(run.code, 0, "{command}: {}", run.stderr);
        snapshot!(command, run.stdout);
    }
}

#[test]
fn parse_all_prints_every_call_in_order() {
    let run = run_stdin(
        &["parse", "--all"],
        "<tool_call>\n<function=grep>\n<parameter=pattern>\nTODO\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=ls>\n<parameter=path>\nsrc\n</parameter>\n</function>\n</tool_call>",
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.stdout,
        "[{\"name\":\"grep\",\"arguments\":{\"pattern\":\"TODO\"}},{\"name\":\"ls\",\"arguments\":{\"path\":\"src\"}}]\n"
    );
    // Without --all, the first, and stderr says there are more.
    let run = run_stdin(
        &["parse"],
        "[TOOL_CALLS][{\"name\": \"a\", \"arguments\": {}}, {\"name\": \"b\", \"arguments\": {}}]",
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stdout, "{\"name\":\"a\",\"arguments\":{}}\n");
    assert!(
        run.stderr.contains("holds 2 calls") && run.stderr.contains("--all"),
        "{run:?}"
    );
    let run = run_stdin(&["parse"], "[get_time()]");
    assert_eq!(run.stderr, "", "{run:?}");
    let run = run_stdin(&["parse", "--all"], "[get_time()]");
    assert_eq!(run.stdout, "[{\"name\":\"get_time\",\"arguments\":{}}]\n");
    let run = run_stdin(&["parse", "--all"], "{\"name\": \"say_hel");
    assert_eq!(run.code, 1, "{run:?}");
}

/// `--registry` reads against the tools of the global options: values of
/// XML and pythonic calls typed by schema, unknown names listed. Without it
/// the same values stay text and any name is read.
#[test]
fn parse_registry_types_values_and_reports_unknown_tools() {
    let tools = crate::support::tools_dir(&[("nap.tool.json", crate::support::NAP)]);
    let root = tempfile::tempdir().unwrap();
    let global = [
        "--root",
        root.path().to_str().unwrap(),
        "--tools",
        tools.path().to_str().unwrap(),
    ];
    let with = |args: &[&'static str]| -> Vec<&str> {
        global.iter().copied().chain(args.iter().copied()).collect()
    };
    let xml = "<function=nap><parameter=seconds>2</parameter></function>";
    let run = run_stdin(&with(&["parse", "--registry"]), xml);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.stdout,
        "{\"name\":\"nap\",\"arguments\":{\"seconds\":2}}\n"
    );
    let run = run_stdin(&["parse"], xml);
    assert_eq!(
        run.stdout,
        "{\"name\":\"nap\",\"arguments\":{\"seconds\":\"2\"}}\n"
    );

    let run = run_stdin(
        &with(&["parse", "--all", "--registry"]),
        "[nap(seconds=1), cat(path=\"a\")]",
    );
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .contains("there is no tool named `cat`: call one of"),
        "{run:?}"
    );
    assert!(run.stderr.contains("`nap`"), "{run:?}");
}
