//! JSON calls, in markers (`<tool_call>`, `<|python_tag|>`, `[TOOL_CALLS]`,
//! `functools[...]`, code fences...) or in chatter, one or a list; and the
//! JSON arguments of the other shapes.

use serde_json::{Map, Value};

use super::make_call;
use super::marks::{Marker, Marks};
use super::scan::{Scan, is_tool_name, shorten};
use crate::call::{CallError, ToolCall};
use crate::candidate::Candidate;
use crate::repair::Values;

/// Bracketed markers that would read as JSON arrays: blanked before the
/// values are read.
const BRACKET_MARKERS: [Marker; 5] = [
    Marker::ToolCalls,
    Marker::ToolCallsEnd,
    Marker::Args,
    Marker::CallId,
    Marker::ToolResults,
];

pub(super) fn read(text: &str, marks: &Marks, scan: &mut Scan) -> Result<Vec<ToolCall>, CallError> {
    // the text is copied only when it holds a marker to blank; blanking
    // keeps every offset, so `marks` stays true of the copy
    let original = text;
    let blanked;
    let text = if marks.any(&BRACKET_MARKERS) {
        blanked = blank(text, marks);
        blanked.as_str()
    } else {
        text
    };
    // the markers inside which a `{"name": {arguments}}` object (one key)
    // is a call (Apertus)
    let name_keyed = marks.has(Marker::ToolsPrefix);
    // whether the reply puts its calls in markers
    let marked = marks.any(&[Marker::ToolCall, Marker::ToolCalls, Marker::PythonTag]);
    // `<tool_call>name</tool_call>` calls, merged by offset with the JSON
    // ones (which come in order) when there are any
    let bare: Vec<(usize, ToolCall)> = bare_names(text, marks, scan)?;
    let mut found: Vec<ToolCall> = Vec::new();
    let mut starts: Vec<usize> = Vec::new();
    let mut soft_problem = None;
    let mut values = Values::new(text, 0);
    let counted = scan.steps;
    while let Some((mut read, range)) = values.next_value::<Candidate>() {
        // a marker blanked inside the value was in one of its strings (the
        // blanking only keeps markers from reading as JSON between values):
        // the value is read again as written
        if text.len() == original.len() && text[range.clone()] != original[range.clone()] {
            let mut again = Values::new(&original[range.clone()], 0);
            if let Some((read_again, span)) = again.next_value::<Candidate>()
                && span == (0..range.len())
            {
                read = read_again;
            }
            scan.count(again.steps());
        }
        // a value right after `(` or `=` is argument data in code, never a call
        let before = text[..range.start].trim_end().chars().next_back();
        if matches!(before, Some('(' | '=')) {
            continue;
        }
        // inside call markers every value must be a call: one that is not
        // makes the reply unreadable (all or nothing), where in chatter it
        // is only data beside the calls
        let in_markers = in_call_markers(marks, range.start);
        let value = match read {
            Ok(value) => value,
            Err(problem) if in_markers => return Err(CallError::Repair(problem)),
            Err(problem) => {
                soft_problem.get_or_insert(CallError::Repair(problem));
                continue;
            }
        };
        // in a reply whose calls are in markers, a call outside them is an
        // example in prose or a call that lost its markers: neither is
        // taken (nor invented, nor lost unsaid)
        if marked && !in_markers {
            if calls_of(value, name_keyed).is_ok_and(|calls| !calls.is_empty()) {
                return Err(beside_the_markers());
            }
            continue;
        }
        let reaches_end = text[range.end..].trim().is_empty();
        let raw = &text[range.clone()];
        // a list of calls is every element; anything else is one item
        let (list, one) = match value {
            Candidate::Array(items)
                if items.iter().all(Candidate::is_object) && !items.is_empty() =>
            {
                (items, None)
            }
            other => (Vec::new(), Some(other)),
        };
        let in_list = one.is_none();
        let (mut list_calls, mut list_problem) = (0, None);
        // worked out once per value, for its first call with no arguments
        let mut lost: Option<bool> = None;
        for item in list.into_iter().chain(one) {
            match calls_of(item, name_keyed) {
                Ok(calls) => {
                    for call in calls {
                        if reaches_end && name_cut_off(raw, call.name()) {
                            return Err(CallError::IncompleteName {
                                partial: call.name().to_owned(),
                            });
                        }
                        if call.arguments().is_empty()
                            && *lost.get_or_insert_with(|| lost_arguments(raw, scan))
                        {
                            return Err(CallError::BadArguments {
                                name: call.name().to_owned(),
                                found: Value::String(shorten(raw).to_owned()),
                            });
                        }
                        if !bare.is_empty() {
                            starts.push(range.start);
                        }
                        found.push(call);
                        list_calls += 1;
                    }
                }
                Err(problem @ (CallError::MissingName { .. } | CallError::NotAnObject { .. })) => {
                    if in_markers {
                        return Err(problem);
                    }
                    list_problem.get_or_insert(problem);
                }
                Err(problem) => return Err(problem),
            }
        }
        if let Some(problem) = list_problem {
            // a list of calls with an item that is not one
            if in_list && list_calls > 0 {
                return Err(problem);
            }
            soft_problem.get_or_insert(problem);
        }
    }
    scan.steps = counted + values.steps();
    if found.is_empty() && bare.is_empty() {
        return match soft_problem {
            Some(problem) => Err(problem),
            None => Ok(Vec::new()),
        };
    }
    if bare.is_empty() {
        return Ok(found);
    }
    let mut all: Vec<(usize, ToolCall)> = bare;
    all.extend(starts.into_iter().zip(found));
    all.sort_by_key(|(at, _)| *at);
    Ok(all.into_iter().map(|(_, call)| call).collect())
}

/// Every call of one value (a wrapper may hold several).
fn calls_of(value: Candidate, name_keyed: bool) -> Result<Vec<ToolCall>, CallError> {
    match ToolCall::all_from_candidate(value) {
        Err(CallError::MissingName {
            found: Value::Object(map),
        }) if name_keyed && map.len() == 1 => {
            let Some((name, Value::Object(arguments))) = map.clone().into_iter().next() else {
                return Err(CallError::MissingName {
                    found: Value::Object(map),
                });
            };
            make_call("json-call-in-markers", &name, arguments).map(|call| vec![call])
        }
        other => other,
    }
}

/// Whether a call read from `raw` with no arguments lost them to the
/// repair: `raw` is not JSON as written, and an argument key there opens an
/// object that is not empty as written (`"parameters": {invalid json}`,
/// which the repair could not keep, or `"arguments": {` and the end of the
/// text). Looked for only in calls read with no arguments.
fn lost_arguments(raw: &str, scan: &mut Scan) -> bool {
    const KEYS: [&str; 5] = ["arguments", "parameters", "args", "params", "input"];
    scan.count(raw.len());
    if serde_json::from_str::<serde::de::IgnoredAny>(raw).is_ok() {
        return false;
    }
    KEYS.iter().any(|key| {
        memchr::memmem::find_iter(raw.as_bytes(), key.as_bytes()).any(|at| {
            let after = raw[at + key.len()..].trim_start_matches(['"', '\'', ' ']);
            let Some(value) = after.strip_prefix(':') else {
                return false;
            };
            value
                .trim_start()
                .strip_prefix('{')
                .is_some_and(written_inside)
        })
    })
}

/// Whether an object that the repair read as empty was not empty as
/// written: `after_brace` is the text after its `{`, and anything but
/// blanks and `}` there is what the repair dropped (`{invalid json}`), as
/// is nothing at all (`{` and the end of the text: the arguments were cut
/// off).
fn written_inside(after_brace: &str) -> bool {
    !after_brace.trim_start().starts_with('}')
}

/// Whether the name's closing quote is missing from the raw text: the text
/// ended inside the name, which must not be completed.
fn name_cut_off(raw: &str, name: &str) -> bool {
    // the last occurrence of the name followed by nothing but whitespace:
    // the text ends with the name (which does not end with whitespace)
    raw.trim_end_matches(char::is_whitespace).ends_with(name)
}

/// The text with every bracketed marker (`[TOOL_CALLS]`...) replaced by
/// spaces.
fn blank(text: &str, marks: &Marks) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for marker in BRACKET_MARKERS {
        for at in marks.all(marker) {
            if let Some(span) = bytes.get_mut(at..at + marker.text().len()) {
                span.fill(b' ');
            }
        }
    }
    // the markers are ASCII: the text stays UTF-8
    String::from_utf8(bytes).unwrap_or_else(|_| text.to_owned())
}

/// Whether a value at `at` is inside call markers: in a `<tool_call>`
/// block, or after `[TOOL_CALLS]` or `<|python_tag|>` (which only calls
/// follow) with no tool result between (see [`super::RESULTS`]).
fn in_call_markers(marks: &Marks, at: usize) -> bool {
    let open = marks.last_before(Marker::ToolCall, at);
    let close = marks.last_before(Marker::ToolCallEnd, at);
    let tagged = open.filter(|open| close.is_none_or(|close| close < *open));
    let start = [
        tagged,
        marks.last_before(Marker::ToolCalls, at),
        marks.last_before(Marker::PythonTag, at),
    ]
    .into_iter()
    .flatten()
    .max();
    // a tool's result the model wrote after the marker ends the calls
    start.is_some_and(|start| {
        !super::RESULTS
            .iter()
            .any(|result| marks.last_before(*result, at).is_some_and(|r| r > start))
    })
}

/// `<tool_call>name</tool_call>`: a call with no arguments (GLM). A block
/// that holds neither JSON nor a tool name is a call that cannot be read.
fn bare_names(
    text: &str,
    marks: &Marks,
    scan: &mut Scan,
) -> Result<Vec<(usize, ToolCall)>, CallError> {
    const OPEN: &str = Marker::ToolCall.text();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = marks.find(scan, Marker::ToolCall, from) {
        let start = at + OPEN.len();
        let Some(end) = marks.find(scan, Marker::ToolCallEnd, start) else {
            break;
        };
        let name = text[start..end].trim();
        if let Some(call) = ToolCall::new(name, Map::new()).filter(|_| is_tool_name(name)) {
            found.push((at, call));
        } else if !name.is_empty() && !name.contains(['{', '[']) {
            return Err(CallError::Malformed {
                shape: "json-call-in-markers",
                detail: format!(
                    "`<tool_call>` holds `{}`, neither a JSON call nor a tool name",
                    shorten(name)
                ),
            });
        }
        from = end;
    }
    Ok(found)
}

/// The JSON arguments of a call whose name is outside them: empty text is
/// no arguments; anything else must hold an object (repaired, fences and
/// all).
pub(super) fn arguments(
    name: &str,
    text: &str,
    scan: &mut Scan,
) -> Result<Map<String, Value>, CallError> {
    let trimmed = text.trim().trim_matches('`').trim();
    if trimmed.is_empty() || trimmed == "json" {
        return Ok(Map::new());
    }
    if let Ok(Value::Object(map)) = serde_json::from_str(trimmed) {
        scan.count(trimmed.len());
        return Ok(map);
    }
    let mut values = Values::new(text, 0);
    let read = values.next_value::<Value>();
    scan.count(values.steps());
    match read {
        // a repair that kept nothing of what was written between the
        // braces (`{invalid json}`) read no arguments: not "none"
        Some((Ok(Value::Object(map)), span))
            if map.is_empty() && text.get(span.start + 1..).is_some_and(written_inside) =>
        {
            Err(CallError::BadArguments {
                name: name.to_owned(),
                found: Value::String(text.trim().chars().take(80).collect()),
            })
        }
        Some((Ok(Value::Object(map)), _)) => Ok(map),
        Some((Ok(found), _)) => Err(CallError::BadArguments {
            name: name.to_owned(),
            found,
        }),
        Some((Err(problem), _)) => Err(CallError::Repair(problem)),
        None => Err(CallError::BadArguments {
            name: name.to_owned(),
            found: Value::String(text.trim().chars().take(80).collect()),
        }),
    }
}

/// The reason a reply with a call outside the markers its other calls are
/// in is unreadable.
pub(super) fn beside_the_markers() -> CallError {
    CallError::Malformed {
        shape: "json-call-in-markers",
        detail: "a call outside the markers the reply's other calls are in; put each call in its \
                 own markers, and no example call beside them"
            .to_owned(),
    }
}
