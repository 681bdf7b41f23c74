//! The repair measured against the test vectors of two reference libraries
//! (`../shared/corpus/jsonrepair.jsonl`, see its README).

use jig_toolcall::{RepairError, repair_value};
use serde_json::Value;

const CORPUS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/corpus/jsonrepair.jsonl"
);

/// The share of cases where both references agree that must come out equal.
const AGREED_TARGET: f64 = 0.98;

/// One corpus line, as far as the measure needs it.
struct Case {
    input: String,
    /// `None`: the reference raised an error; `Some(None)`: no JSON here;
    /// `Some(Some(v))`: the repaired value.
    expected: Option<Option<Value>>,
    source: String,
    /// `None` for cases that only hold under an option of the reference
    /// (schema, strict mode), which this crate does not have.
    agreed: Option<bool>,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(CORPUS)
        .unwrap_or_else(|error| panic!("cannot read the corpus at {CORPUS}: {error}"));
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let row: Value = serde_json::from_str(line).unwrap();
            let expected = match &row["expected"] {
                Value::Null => None,
                Value::String(json) if json.is_empty() => Some(None),
                Value::String(json) => {
                    Some(Some(serde_json::from_str(json).unwrap_or_else(|error| {
                        panic!("expected value of {line} does not parse: {error}")
                    })))
                }
                other => panic!("unexpected `expected` {other}"),
            };
            Case {
                input: row["input"].as_str().unwrap().to_owned(),
                expected,
                source: row["source"].as_str().unwrap().to_owned(),
                agreed: row["other_reference_agrees"].as_bool(),
            }
        })
        .collect()
}

/// Whether the repair of `case` matches its expectation. Numbers compare by
/// value (`1` equals `1.0`), as the references' own languages compare them.
fn passes(case: &Case) -> bool {
    match (&case.expected, repair_value(&case.input)) {
        (None, Err(_)) => true,
        (Some(None), Err(RepairError::NoJson)) => true,
        (Some(Some(expected)), Ok(actual)) => same(expected, &actual),
        _ => false,
    }
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

struct Rate {
    passed: usize,
    total: usize,
}

impl Rate {
    fn of<'c>(cases: impl Iterator<Item = &'c Case>) -> Rate {
        let (mut passed, mut total) = (0, 0);
        for case in cases {
            total += 1;
            passed += usize::from(passes(case));
        }
        Rate { passed, total }
    }

    fn share(&self) -> f64 {
        self.passed as f64 / self.total.max(1) as f64
    }
}

impl std::fmt::Display for Rate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}/{} = {:.1}%",
            self.passed,
            self.total,
            100.0 * self.share()
        )
    }
}

#[test]
fn agreed_cases_repair_to_the_expected_value() {
    let cases = cases();
    let agreed = Rate::of(cases.iter().filter(|c| c.agreed == Some(true)));
    let json_repair = Rate::of(
        cases
            .iter()
            .filter(|c| c.source == "json_repair" && c.agreed.is_some()),
    );
    let jsonrepair = Rate::of(
        cases
            .iter()
            .filter(|c| c.source == "jsonrepair" && c.agreed.is_some()),
    );
    println!("corpus: cases where both references agree: {agreed}");
    println!("corpus: json_repair's own cases (default options): {json_repair}");
    println!("corpus: jsonrepair's own cases: {jsonrepair}");
    if std::env::var_os("CORPUS_FAILURES").is_some() {
        for case in cases.iter().filter(|c| c.agreed.is_some() && !passes(c)) {
            println!(
                "FAIL [{} agreed={:?}] {:?}\n  expected {:?}\n  got      {:?}",
                case.source,
                case.agreed,
                case.input,
                case.expected,
                jig_toolcall::repair(&case.input)
            );
        }
    }
    assert!(
        agreed.share() >= AGREED_TARGET,
        "agreed cases: {agreed}, below {:.0}%",
        100.0 * AGREED_TARGET
    );
}
