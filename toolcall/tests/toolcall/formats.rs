//! The measure on real replies of 35 format families
//! (`../shared/corpus/toolcall_formats.jsonl`): every call, in order, read
//! exactly right in at least 95% of replies; no call whose name the reply
//! does not call; no panic. Run with `--nocapture` for the per-family
//! score.

use std::collections::BTreeMap;

use jig_toolcall::{Reading, read_calls};
use serde_json::Value;

const CORPUS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/corpus/toolcall_formats.jsonl"
);

/// Equal as JSON values, or as text where the format carries no types
/// (`"42"` read from an XML parameter against `42`).
fn same(got: &Value, expected: &Value) -> bool {
    match (got, expected) {
        (Value::String(text), Value::String(want)) => text == want,
        (Value::String(text), Value::Number(want)) => text
            .trim()
            .parse::<f64>()
            .is_ok_and(|n| want.as_f64() == Some(n)),
        (Value::String(text), want @ (Value::Bool(_) | Value::Null)) => {
            serde_json::from_str::<Value>(text.trim()).is_ok_and(|v| v == *want)
        }
        (Value::String(text), want @ (Value::Array(_) | Value::Object(_))) => {
            serde_json::from_str::<Value>(text).is_ok_and(|v| same(&v, want))
        }
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| same(v, w)))
        }
        (a, b) => a == b,
    }
}

#[test]
fn the_sample_of_real_replies_is_read_right() {
    let Ok(corpus) = std::fs::read_to_string(CORPUS) else {
        panic!("the corpus is missing: {CORPUS}");
    };
    let mut families: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let (mut right, mut total, mut invented) = (0, 0, Vec::new());
    let mut wrong = Vec::new();
    for line in corpus.lines().filter(|l| !l.trim().is_empty()) {
        let row: Value = serde_json::from_str(line).unwrap();
        let text = row["text"].as_str().unwrap();
        let expected = row["expected_calls"].as_array().unwrap();
        let got: Vec<Value> = match std::panic::catch_unwind(|| read_calls(text)) {
            Ok(Reading::Calls(calls)) => calls.iter().map(|c| c.to_json()).collect(),
            Ok(_) => Vec::new(),
            Err(_) => panic!("the reader panicked on {}", row["id"]),
        };
        let ok = got.len() == expected.len()
            && got
                .iter()
                .zip(expected)
                .all(|(g, e)| g["name"] == e["name"] && same(&g["arguments"], &e["arguments"]));
        for call in &got {
            if !expected.is_empty() && !expected.iter().any(|e| e["name"] == call["name"]) {
                invented.push(format!("{} -> {}", row["id"], call["name"]));
            }
        }
        let family = families
            .entry(row["family"].as_str().unwrap().to_owned())
            .or_default();
        family.1 += 1;
        total += 1;
        if ok {
            family.0 += 1;
            right += 1;
        } else {
            wrong.push(format!("{}: got {}", row["id"], Value::Array(got)));
        }
    }
    for (family, (ok, n)) in &families {
        println!("{family:<18} {ok:>3}/{n:<3}");
    }
    println!(
        "total {right}/{total} ({:.1}%)",
        100.0 * right as f64 / total as f64
    );
    println!("not read right:\n  {}", wrong.join("\n  "));
    assert!(invented.is_empty(), "invented names: {invented:?}");
    assert!(
        right * 100 >= total * 95,
        "{right}/{total} read right:\n{}",
        wrong.join("\n")
    );
}
