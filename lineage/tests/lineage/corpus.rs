//! The `slot` and `path` cases of the shared corpus
//! (`../shared/corpus/payloads.jsonl`), as a dry run: nothing runs.
//!
//! Built-in templates use the built-in tools; the others are written as
//! descriptors (the descriptor JSON form, built by the same function) with
//! the declarations a careful author would give. Path cases go through the
//! `path` slot of the built-in `grep`, with the corpus's assumed root
//! `/home/user/project` replaced by the real one.
//!
//! Every benign case must pass. Every other case that is not borderline
//! must be refused, or be provably neutralised: accepted only as one
//! literal argv element that no program reads as anything but text or a
//! path inside the workspace (an encoded `%3B`, a look-alike `;`, a glob
//! no shell expands). The neutralised cases are listed in a snapshot so
//! that a change of verdict is reviewed.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::Workspace;
use jig_lineage::{CommandSpec, CommandTool, DenyList, Refusal, ToolForm, builtin_tools};

const CORPUS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/corpus/payloads.jsonl"
);

/// The corpus's templates that are not built-ins, as descriptor files.
fn descriptor_tools() -> Vec<CommandTool> {
    let rev = json!({"type": "string", "description": "A revision such as HEAD~3 or main", "required": true});
    let descriptors = [
        json!({"name": "rg", "description": "Search with ripgrep", "command": "rg -n {pattern} {path}",
               "arguments": {"pattern": {"type": "string", "required": true},
                             "path": {"type": "path", "default": "."}}}),
        json!({"name": "git_log", "description": "Show the log", "command": "git log {rev}", "arguments": {"rev": rev}}),
        json!({"name": "git_diff", "description": "Show a diff", "command": "git diff {rev}", "arguments": {"rev": rev}}),
        json!({"name": "git_archive", "description": "Archive a revision", "command": "git archive {rev}", "arguments": {"rev": rev}}),
        json!({"name": "git_grep", "description": "Search tracked files", "command": "git grep {pattern}",
               "arguments": {"pattern": {"type": "string", "required": true}}}),
        json!({"name": "git_tag", "description": "Tag a revision", "command": "git tag {name} {rev}",
               "arguments": {"name": {"type": "string", "required": true, "pattern": "[A-Za-z0-9._/-]+"}, "rev": rev}}),
        // A careful author restricts a URL slot to the transports meant.
        json!({"name": "git_clone", "description": "Clone a repository", "command": "git clone {url} {dir}",
               "arguments": {"url": {"type": "string", "required": true, "pattern": "https://[^:@]+"},
                             "dir": {"type": "path", "required": true}}}),
    ];
    descriptors
        .into_iter()
        .map(|d| {
            let spec: CommandSpec = serde_json::from_value(d).unwrap();
            CommandTool::build(spec, &DenyList::default(), ToolForm::Descriptor).unwrap()
        })
        .collect()
}

/// Filler values for the slots a case does not target.
fn filler(slot: &str) -> Value {
    match slot {
        "path" => json!("."),
        "dir" => json!("clone"),
        "range" => json!("1"),
        "url" => json!("https://example.org/repo.git"),
        "rev" => json!("HEAD"),
        _ => json!("x"),
    }
}

#[derive(Default)]
struct Tally {
    allowed: usize,
    refused: usize,
}

#[test]
fn corpus_slot_and_path_cases() {
    let ws = Workspace::new();
    let root = ws.root.to_string_lossy().into_owned();
    let mut tools = builtin_tools(&DenyList::default());
    tools.extend(descriptor_tools());
    let grep = tools.iter().find(|t| t.spec().name == "grep").unwrap();
    let text = std::fs::read_to_string(CORPUS).unwrap();
    let mut tallies: BTreeMap<(String, String), Tally> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut neutralised = String::new();
    let mut borderline = String::new();
    let mut skipped = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).unwrap();
        let layer = case["layer"].as_str().unwrap_or_default();
        let input = case["input"].as_str().unwrap_or_default();
        let category = case["category"].as_str().unwrap_or_default();
        let benign = case["benign"].as_bool().unwrap_or(false);
        let is_borderline = case["borderline"].as_bool().unwrap_or(false);
        let (tool, slot, input) = match layer {
            "slot" => {
                let template = case["template"].as_str().unwrap_or_default();
                let Some(tool) = tools.iter().find(|t| t.template().as_str() == template) else {
                    skipped += 1;
                    continue;
                };
                (
                    tool,
                    case["slot"].as_str().unwrap_or_default().to_owned(),
                    input.to_owned(),
                )
            }
            "path" => (
                grep,
                "path".to_owned(),
                input.replace("/home/user/project", &root),
            ),
            _ => continue,
        };
        let mut arguments = serde_json::Map::new();
        for (name, _) in &tool.spec().slots {
            arguments.insert(
                name.clone(),
                if *name == slot {
                    json!(input)
                } else {
                    filler(name)
                },
            );
        }
        let verdict: Result<Vec<String>, Refusal> = tool
            .check_in(&Value::Object(arguments), &ws.root)
            .map(|i| i.argv);
        let kind = if benign { "benign" } else { "attack" };
        let tally = tallies
            .entry((format!("{layer}/{category}"), kind.to_owned()))
            .or_default();
        match &verdict {
            Ok(_) => tally.allowed += 1,
            Err(_) => tally.refused += 1,
        }
        let shown = format!("{layer} {} {slot}={input:?}", tool.spec().name);
        match (&verdict, benign, is_borderline) {
            (_, _, true) => borderline.push_str(&format!(
                "{shown}: {}\n",
                verdict.as_ref().map_or_else(
                    |r| format!("refused: {}", r.message),
                    |_| "allowed".to_owned()
                )
            )),
            (Err(refusal), true, false) => {
                failures.push(format!("benign refused: {shown}: {refusal}"))
            }
            (Ok(argv), false, false) => {
                // Accepted attacks must be one literal element, unchanged.
                let element_is_literal = argv
                    .iter()
                    .any(|e| e == &input || e == &format!("{input}p"));
                if !element_is_literal {
                    failures.push(format!("attack changed in argv: {shown}: {argv:?}"));
                }
                neutralised.push_str(&format!("{category}: {shown}\n"));
            }
            _ => {}
        }
    }
    println!("corpus slot/path cases, dry run ({skipped} skipped):");
    println!(
        "{:<34} {:<7} {:>7} {:>7}",
        "layer/category", "kind", "allowed", "refused"
    );
    let (mut allowed, mut refused) = (0, 0);
    for ((category, kind), tally) in &tallies {
        println!(
            "{category:<34} {kind:<7} {:>7} {:>7}",
            tally.allowed, tally.refused
        );
        allowed += tally.allowed;
        refused += tally.refused;
    }
    println!("{:<34} {:<7} {allowed:>7} {refused:>7}", "total", "");
    println!("neutralised (accepted as one literal element):\n{neutralised}");
    println!("borderline:\n{borderline}");
    assert!(failures.is_empty(), "{failures:#?}");
    assert_eq!(skipped, 0);
    insta::assert_snapshot!("corpus_neutralised", neutralised);
    insta::assert_snapshot!("corpus_borderline", borderline);
}
