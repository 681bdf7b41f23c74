//! A descriptor's fixed tokens are judged by its program's table when it
//! loads (613): the same tables the exec tool and the run point use.

use std::path::Path;

use jig_descriptor::{Problem, parse_str};
use jig_lineage::DenyList;

fn descriptor(command: &str, arguments: &str) -> String {
    format!(
        r#"{{"name": "t", "description": "d", "command": "{command}",
            "arguments": {arguments}}}"#
    )
}

fn load(command: &str, arguments: &str) -> Result<(), String> {
    parse_str(
        &descriptor(command, arguments),
        Path::new("t.tool.json"),
        &DenyList::default(),
    )
    .map(|_| ())
    .map_err(|error| {
        assert!(
            matches!(*error.problem, Problem::ProgramRefused { .. }),
            "{command}: {error}"
        );
        error.to_string()
    })
}

const PATH: &str = r#"{"path": {"type": "path", "required": true}}"#;
const RANGE_PATH: &str = r#"{"range": {"type": "string", "pattern": "^[0-9]+,[0-9]+$", "required": true},
                            "path": {"type": "path", "required": true}}"#;

#[test]
fn fixed_tokens_a_table_refuses_are_613() {
    for command in [
        // an option that writes
        "sed -i -n 1p {path}",
        "sed -ni 1p {path}",
        // a fixed script that writes, reads or runs
        "sed -n 1w/tmp/x {path}",
        "sed 1e {path}",
        // a find action that runs or deletes
        "find {path} -delete",
        "find {path} -exec cat {{}} +",
        // git's configuration on the command line
        "git -c core.pager=cat log {path}",
        // an option that runs a program
        "rg --pre cat x {path}",
        "sort --compress-program=gzip {path}",
        "tar --to-command=cat -xf {path}",
    ] {
        let message = load(command, PATH).expect_err(command);
        assert!(
            message.contains("refuses the command's fixed part"),
            "{message}"
        );
    }
}

#[test]
fn templates_whose_fixed_part_reads_load() {
    for (command, arguments) in [
        ("sed -n {range}p {path}", RANGE_PATH),
        ("grep -rn TODO {path}", PATH),
        ("git log --oneline -n 5 -- {path}", PATH),
        ("find {path} -name *.rs -type f", PATH),
        ("head -n 20 {path}", PATH),
        ("wc -l {path}", PATH),
    ] {
        load(command, arguments).unwrap_or_else(|m| panic!("{command}: {m}"));
    }
}

#[test]
fn a_refusal_that_names_a_slot_is_left_to_the_run() {
    // Without a pattern the range slot may hold a sed command: the probe
    // does not, so the file loads; `jig check` reports the slot and the run
    // point refuses such a value (tested in jig-presets).
    let free = r#"{"range": {"type": "string", "required": true},
                   "path": {"type": "path", "required": true}}"#;
    load("sed -n {range}p {path}", free).unwrap();
}

#[test]
fn a_text_slot_where_the_program_reads_a_language_is_613() {
    let text = r#"{"script": {"type": "text", "required": true},
                   "path": {"type": "path", "required": true}}"#;
    let error = parse_str(
        &descriptor("sed -n {script} {path}", text),
        Path::new("t.tool.json"),
        &DenyList::default(),
    )
    .unwrap_err();
    assert!(
        matches!(*error.problem, Problem::TextInLanguage { ref slot } if slot == "script"),
        "{error}"
    );
    // With a pattern it loads; a text slot where grep reads a pattern loads.
    let constrained = r#"{"script": {"type": "text", "required": true, "pattern": "^[0-9]+p$"},
                          "path": {"type": "path", "required": true}}"#;
    parse_str(
        &descriptor("sed -n {script} {path}", constrained),
        Path::new("t.tool.json"),
        &DenyList::default(),
    )
    .unwrap();
    let phrase = r#"{"phrase": {"type": "text", "required": true},
                     "path": {"type": "path", "default": "."}}"#;
    parse_str(
        &descriptor("grep -rnF -e {phrase} -- {path}", phrase),
        Path::new("t.tool.json"),
        &DenyList::default(),
    )
    .unwrap();
}
