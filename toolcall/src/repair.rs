//! Finding the JSON in a model's text, and the public repair functions.

use serde_json::Value;

use crate::error::RepairError;
use crate::parser::Parser;

/// Finds the first JSON value in `text` and repairs it into valid JSON text.
///
/// Text that is already valid JSON is returned unchanged (less surrounding
/// whitespace). Otherwise the first object or array in the text is repaired
/// (chatter before it and anything after it is ignored); a text without any
/// bracket may still be a lone string, number or literal that spans it.
/// See the crate documentation for what is repaired.
///
/// The result is checked with `serde_json` before it is returned: it
/// parses as a [`serde_json::Value`] (so numbers are finite, and escapes are
/// whole characters).
///
/// # Errors
///
/// [`RepairError::NoJson`] when there is no JSON value in the text,
/// [`RepairError::TooDeep`] when it nests deeper than
/// [`MAX_DEPTH`](crate::MAX_DEPTH).
pub fn repair(text: &str) -> Result<String, RepairError> {
    if serde_json::from_str::<Value>(text).is_ok() {
        return Ok(text.trim_matches(is_json_space).to_owned());
    }
    let json = first_value(text)?;
    match serde_json::from_str::<Value>(&json) {
        Ok(_) => Ok(json),
        Err(source) => Err(RepairError::Invalid { source }),
    }
}

/// Like [`repair`], but returns the parsed value.
///
/// # Errors
///
/// As [`repair`].
pub fn repair_value(text: &str) -> Result<Value, RepairError> {
    if let Ok(value) = serde_json::from_str(text) {
        return Ok(value);
    }
    let json = first_value(text)?;
    serde_json::from_str(&json).map_err(|source| RepairError::Invalid { source })
}

/// The objects in a text, in order, each repaired.
pub(crate) struct Objects<'t> {
    /// One parser for all: what it learnt about the text keeps the whole
    /// walk linear.
    parser: Parser<'t>,
    from: usize,
}

impl<'t> Objects<'t> {
    pub(crate) fn new(text: &'t str) -> Self {
        Objects {
            parser: Parser::new(text, 0),
            from: 0,
        }
    }

    /// The next object, repaired; `None` when there is no `{` left.
    pub(crate) fn next_object(&mut self) -> Result<Option<Value>, RepairError> {
        let Some(start) = find_start(self.parser.text, self.from, Brackets::Objects) else {
            return Ok(None);
        };
        self.parser.restart(start);
        let read = self.parser.value();
        self.from = self.parser.pos.max(start + 1);
        read?;
        serde_json::from_str(&self.parser.out)
            .map(Some)
            .map_err(|source| RepairError::Invalid { source })
    }
}

/// The top-level JSON values (objects and arrays) in a text, in order, each
/// repaired, with where each starts and ends; values inside a value are
/// part of it, never read on their own.
pub(crate) struct Values<'t> {
    text: &'t str,
    /// The repairing parser, made when a value is not valid JSON: one for
    /// all such values, so that what it learnt about the text keeps the
    /// walk linear.
    parser: Option<Parser<'t>>,
    from: usize,
    /// Bytes read by serde_json (counted in tests only).
    #[cfg(test)]
    valid_steps: usize,
}

impl<'t> Values<'t> {
    pub(crate) fn new(text: &'t str, from: usize) -> Self {
        Values {
            text,
            parser: None,
            from,
            #[cfg(test)]
            valid_steps: 0,
        }
    }

    /// The work done so far (characters visited; counted in tests only).
    pub(crate) fn steps(&self) -> usize {
        #[cfg(test)]
        {
            self.valid_steps + self.parser.as_ref().map_or(0, |parser| parser.steps)
        }
        #[cfg(not(test))]
        {
            0
        }
    }

    /// The next value, read as a `T` (a [`Value`], or a
    /// [`Candidate`](crate::candidate::Candidate)), and its byte range;
    /// `None` when no `{` or `[` is left.
    pub(crate) fn next_value<T: serde::de::DeserializeOwned>(
        &mut self,
    ) -> Option<(Result<T, RepairError>, std::ops::Range<usize>)> {
        let start = find_start(self.text, self.from, Brackets::Any)?;
        // valid JSON (what most replies hold) is read once, by serde_json,
        // instead of repaired into a copy that serde_json then reads again;
        // where it fails, it read no further than the repairing parser
        // will, so the work stays linear
        let rest = self.text.get(start..).unwrap_or("");
        let mut valid = serde_json::Deserializer::from_str(rest).into_iter::<T>();
        if let Some(Ok(value)) = valid.next() {
            let end = start + valid.byte_offset();
            #[cfg(test)]
            {
                self.valid_steps += end - start;
            }
            self.from = end;
            return Some((Ok(value), start..end));
        }
        let parser = self
            .parser
            .get_or_insert_with(|| Parser::new(self.text, start));
        parser.restart(start);
        let read = parser.value();
        let end = parser.pos.max(start + 1);
        self.from = end;
        let value = read.and_then(|_| {
            serde_json::from_str(&parser.out).map_err(|source| RepairError::Invalid { source })
        });
        Some((value, start..end))
    }
}

/// Repairs the first value in a text that is not valid JSON.
pub(crate) fn first_value(text: &str) -> Result<String, RepairError> {
    first_value_parser(text).map(|parser| parser.out)
}

/// The parser after it read the first value (its `steps` are what tests
/// look at).
pub(crate) fn first_value_parser(text: &str) -> Result<Parser<'_>, RepairError> {
    let mut parser = Parser::new(text, 0);
    parser.skip_trivia();
    let start = parser.pos;
    if !matches!(parser.byte(), Some(b'{' | b'[')) {
        // a lone scalar, if it is all there is: `"{"` is a string
        let found = if parser.at_string_start() {
            parser.string();
            true
        } else {
            parser.number() || parser.literal() || parser.wrapped_scalar()?
        };
        parser.skip_trivia();
        if found && parser.pos >= text.len() {
            return Ok(parser);
        }
        parser.out.clear();
    }
    let at = find_start(text, start, Brackets::Any).ok_or(RepairError::NoJson)?;
    parser.pos = at;
    parser.value()?;
    Ok(parser)
}

/// The offset of the first of `brackets` at or after `from`, skipping a
/// bracket that only wraps a code fence (`{```json {...} ```}`).
fn find_start(text: &str, from: usize, brackets: Brackets) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = from + brackets.find(bytes.get(from..)?)?;
    loop {
        let mut next = at + 1;
        while matches!(bytes.get(next), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            next += 1;
        }
        if !bytes
            .get(next..)
            .is_some_and(|rest| rest.starts_with(b"```"))
        {
            return Some(at);
        }
        match bytes.get(next..).and_then(|rest| brackets.find(rest)) {
            Some(found) => at = next + found,
            None => return Some(at),
        }
    }
}

/// The brackets a value may start with.
#[derive(Clone, Copy)]
enum Brackets {
    /// `{`
    Objects,
    /// `{` or `[`
    Any,
}

impl Brackets {
    /// The offset of the first bracket in `bytes` (memchr's search: the
    /// brackets are ASCII, so the offset is a character boundary).
    fn find(self, bytes: &[u8]) -> Option<usize> {
        match self {
            Brackets::Objects => memchr::memchr(b'{', bytes),
            Brackets::Any => memchr::memchr2(b'{', b'[', bytes),
        }
    }
}

fn is_json_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// Repairs with the parser alone (no fast path for valid JSON) and checks
/// the result; errors come back as `error: <message>`.
#[cfg(test)]
pub(crate) fn fixed(text: &str) -> String {
    match first_value(text) {
        Ok(json) => {
            if let Err(error) = serde_json::from_str::<Value>(&json) {
                panic!("invalid JSON {json:?} from {text:?}: {error}");
            }
            json
        }
        Err(error) => format!("error: {error}"),
    }
}

/// Checks each `(input, repaired)` pair of a table.
#[cfg(test)]
pub(crate) fn check_table(cases: &[(&str, &str)]) {
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|&(input, expected)| {
            let actual = fixed(input);
            (actual != expected)
                .then(|| format!("{input:?}\n  expected {expected}\n  actual   {actual}"))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::Value;

    use super::{check_table, first_value, first_value_parser, repair, repair_value};
    use crate::RepairError;

    #[test]
    fn finds_the_json_in_the_text() {
        check_table(&[
            ("Sure! Here it is: {\"a\": 1} Hope it helps.", r#"{"a":1}"#),
            ("Here's your JSON:\n[1, 2]", "[1,2]"),
            ("```json\n{\"a\": 1}\n```", r#"{"a":1}"#),
            ("```\n{\"a\": 1}\n```\nmore text", r#"{"a":1}"#),
            ("````{ \"key\": \"value\" }```", r#"{"key":"value"}"#),
            ("{```json\n{\"a\":\"b\"}\n```}", r#"{"a":"b"}"#),
            ("[```\n{\"a\":\"b\"}\n```]", r#"{"a":"b"}"#),
            ("/* note */ {} // done", "{}"),
            ("callback_123({\"a\": 1});", r#"{"a":1}"#),
            ("callback(true);", "true"),
            // the first value wins; what follows is ignored
            ("{\"a\": 1}\n{\"b\": 2}", r#"{"a":1}"#),
            ("{\"a\": 1}, [2]", r#"{"a":1}"#),
            ("{\"a\": 1}}]}", r#"{"a":1}"#),
        ]);
    }

    #[test]
    fn a_lone_scalar_must_span_the_text() {
        check_table(&[
            ("'abc", r#""abc""#),
            ("“foo”", r#""foo""#),
            ("  -.5  ", "-0.5"),
            ("True", "true"),
            ("None // nothing", "null"),
            ("I am done.", "error: no JSON value in the text"),
            (
                "\"quoted\", and then prose",
                "error: no JSON value in the text",
            ),
            ("\"[not an array\"", r#""[not an array""#),
            ("\"the call:\" {\"a\": 1}", r#"{"a":1}"#),
            ("True, I finished", "error: no JSON value in the text"),
            ("", "error: no JSON value in the text"),
            (" \n\t", "error: no JSON value in the text"),
            ("// only a comment", "error: no JSON value in the text"),
        ]);
    }

    #[test]
    fn valid_json_is_returned_as_it_is() {
        let text = "  {\"a\": [1, 2.50, \"x\"], \"b\": {}}\n";
        assert_eq!(repair(text).unwrap(), text.trim());
        assert_eq!(
            repair_value(text).unwrap(),
            serde_json::json!({"a": [1, 2.5, "x"], "b": {}})
        );
    }

    #[test]
    fn no_json_is_a_typed_error() {
        assert!(matches!(repair("nothing to see"), Err(RepairError::NoJson)));
        assert!(matches!(repair_value(""), Err(RepairError::NoJson)));
    }

    /// Text made mostly of the characters the repair treats specially.
    fn jsonish() -> impl Strategy<Value = String> {
        proptest::string::string_regex(
            r#"([{}\[\]"'`,:\\/*#+. \n\t-]|[aeflnrstu]|[0-9]|True|None|\\u|```|“|’|\u{a0}|é){0,120}"#,
        )
        .unwrap()
    }

    /// Any JSON value: nested arrays and objects over every kind of leaf.
    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            any::<String>().prop_map(Value::String),
            "[\"'\\\\/ ,:{}\\[\\]a-z]{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(6, 64, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                prop::collection::vec((any::<String>(), inner), 0..8)
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    /// The most characters the parser may visit per input byte.
    const STEPS_PER_BYTE: usize = 16;

    proptest! {
        #[test]
        fn arbitrary_text_never_yields_invalid_json(text in any::<String>()) {
            if let Ok(json) = first_value(&text) {
                prop_assert!(serde_json::from_str::<Value>(&json).is_ok(), "{json:?}");
            }
        }

        #[test]
        fn jsonish_text_never_yields_invalid_json_and_stays_linear(text in jsonish()) {
            if let Ok(parser) = first_value_parser(&text) {
                prop_assert!(serde_json::from_str::<Value>(&parser.out).is_ok(), "{:?}", parser.out);
                prop_assert!(parser.steps <= STEPS_PER_BYTE * (text.len() + 1), "{} steps", parser.steps);
            }
        }

        #[test]
        fn valid_json_keeps_its_value_through_the_parser(value in json_value(), pretty in any::<bool>()) {
            let text = if pretty {
                serde_json::to_string_pretty(&value).unwrap()
            } else {
                serde_json::to_string(&value).unwrap()
            };
            // compare with what serde_json reads from the same text, so that
            // float parsing is the same on both sides
            let expected: Value = serde_json::from_str(&text).unwrap();
            let repaired = first_value(&text).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(serde_json::from_str::<Value>(&repaired).unwrap(), expected);
        }
    }
}
