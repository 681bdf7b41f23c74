//! The `exec` cases of the shared payload corpus, judged by dry run only
//! (nothing runs) in a temporary workspace holding `symlink_to_root` and a
//! FIFO, as the corpus README asks.
//!
//! (a) With the default allow list, every attack is refused.
//! (b) With an allow list holding each case's binary, every attack of the
//!     categories below is refused, and benign, non-borderline cases whose
//!     binary is allowed and not denied pass (target: 95%).
//!
//! Counts per category are printed (`cargo test -p jig-exec-tool corpus --
//! --nocapture`).

use std::collections::BTreeMap;

use jig_exec_tool::{AllowList, ExecTool};
use jig_lineage::DenyList;
use serde_json::Value;

use crate::support::Workspace;

const CORPUS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/corpus/payloads.jsonl"
);

/// The categories mode (b) must refuse entirely.
const MUST_REFUSE: &[&str] = &[
    "code-exec",
    "argument-injection",
    "wrapper-launch",
    "shell-operator",
    "shell-metachar",
    "file-write",
    "file-read",
    "env-injection",
    "path-escape",
    "special-file",
    "procfs",
];

struct Case {
    binary: String,
    input: String,
    category: String,
    benign: bool,
    borderline: bool,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(CORPUS).unwrap_or_else(|e| panic!("{CORPUS}: {e}"));
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|case| case["layer"] == "exec")
        .map(|case| Case {
            binary: case["binary"].as_str().unwrap_or_default().to_owned(),
            input: case["input"].as_str().unwrap_or_default().to_owned(),
            category: case["category"].as_str().unwrap_or_default().to_owned(),
            benign: case["benign"].as_bool().unwrap_or(false),
            borderline: case["borderline"].as_bool().unwrap_or(false),
        })
        .collect()
}

/// refused / total per category.
#[derive(Default)]
struct Counts(BTreeMap<String, (usize, usize)>);

impl Counts {
    fn add(&mut self, category: &str, refused: bool) {
        let entry = self.0.entry(category.to_owned()).or_default();
        entry.0 += usize::from(refused);
        entry.1 += 1;
    }

    fn print(&self, title: &str) {
        println!("{title}");
        for (category, (refused, total)) in &self.0 {
            println!("  {category:<16} refused {refused:>3} / {total:>3}");
        }
    }
}

#[test]
fn mode_a_default_allow_list_refuses_every_attack() {
    let ws = Workspace::new();
    let tool = ExecTool::builder().build();
    let mut counts = Counts::default();
    let mut allowed = Vec::new();
    for case in cases().iter().filter(|c| !c.benign) {
        let refused = ws.check(&tool, &case.input).is_err();
        counts.add(&case.category, refused);
        if !refused {
            allowed.push(format!("{} [{}]", case.input, case.category));
        }
    }
    counts.print("corpus (a), default allow list, attacks:");
    assert!(
        allowed.is_empty(),
        "attacks allowed:\n{}",
        allowed.join("\n")
    );
}

#[test]
fn mode_b_each_binary_allowed() {
    let ws = Workspace::new();
    let deny = DenyList::default();
    let mut attacks = Counts::default();
    let mut benign = Counts::default();
    let mut layers = Counts::default();
    let mut escaped = Vec::new();
    let mut blocked = Vec::new();
    for case in cases() {
        // The binary allowed: through its table, or the dangerous way for a
        // program without one.
        let allow = AllowList::new([case.binary.as_str()])
            .or_else(|_| {
                AllowList::new(Vec::<String>::new())?
                    .dangerous_allow_untabled([case.binary.as_str()])
            })
            .unwrap_or_else(|_| AllowList::new(Vec::<String>::new()).unwrap());
        let tool = ExecTool::builder().allow(allow).build();
        let result = ws.check(&tool, &case.input);
        if case.benign {
            let label = if case.borderline {
                "benign (borderline)"
            } else {
                "benign"
            };
            benign.add(label, result.is_err());
            let eligible = !case.borderline && !deny.is_denied(&case.binary);
            match &result {
                Err(refusal) if eligible => {
                    blocked.push(format!("{}: {}", case.input, refusal.render()));
                }
                _ => {}
            }
        } else {
            attacks.add(&case.category, result.is_err());
            if let Err(refusal) = &result {
                layers.add(refusal.layer.as_str(), true);
                if std::env::var_os("JIG_CORPUS_VERBOSE").is_some() {
                    println!(
                        "  {} [{}] -> {}",
                        case.input,
                        case.category,
                        refusal.render()
                    );
                }
            }
            if result.is_ok() && MUST_REFUSE.contains(&case.category.as_str()) {
                escaped.push(format!("{} [{}]", case.input, case.category));
            }
            if let Ok(invocation) = &result {
                println!(
                    "  allowed in (b): {} [{}] -> {:?}",
                    case.input, case.category, invocation.argv
                );
            }
        }
    }
    attacks.print("corpus (b), each case's binary allowed, attacks:");
    layers.print("corpus (b), attacks refused per layer:");
    benign.print("corpus (b), benign cases (refused / total):");
    let eligible = cases()
        .iter()
        .filter(|c| c.benign && !c.borderline && !deny.is_denied(&c.binary))
        .count();
    let passed = eligible - blocked.len();
    println!("  benign non-borderline passing: {passed} / {eligible}");
    assert!(
        escaped.is_empty(),
        "attacks allowed:\n{}",
        escaped.join("\n")
    );
    assert!(
        passed * 100 >= eligible * 95,
        "benign cases refused:\n{}",
        blocked.join("\n")
    );
}
