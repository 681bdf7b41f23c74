//! Pythonic calls: `[get_weather(city="SF"), get_time()]` (Llama 3.2 and 4,
//! LFM2, OLMo), in markers or bare; Gemma 3's `tool_code` fence is a marker
//! too, wherever it is in the reply, and what it holds may be written as
//! Gemma writes it after Gemini (`print(default_api.name(key=value))`).
//! A call may take its arguments as one object (`name({"key": value})`, as
//! small models write them) and name its tool through OpenAI's or Gemini's
//! namespace (`functions.name`, `default_api.name`).
//!
//! Code in prose looks the same (`print(len(x))`), so bare calls are read
//! only when the whole reply (after reasoning) is calls, when they form a
//! bracketed list of keyword calls (`[name(key=value, ...)]`, the
//! documented shape), or when the name is one of the given tools.

use serde_json::{Map, Value};

use super::ToolSpec;
use super::literal::Literals;
use super::marks::{Marker, Marks};
use super::scan::{Scan, is_name_start};
use crate::call::{CallError, ToolCall};

const SHAPE: &str = "pythonic-call";

/// Markers around pythonic calls, as (opening, closing): the last is the
/// fence around a reply's calls that Gemma 3 is taught
/// (```` ```tool_code ````), closed by a bare ```` ``` ```` (or the end of
/// the reply, where a model stopped at the fence).
const MARKERS: &[(Marker, Marker)] = &[
    (Marker::LfmStart, Marker::ToolCallEndToken),
    (Marker::FunctionCalls, Marker::FunctionCallsEnd),
    (Marker::PythonStart, Marker::PythonEnd),
    (Marker::ToolCodeFence, Marker::Fence),
];

/// The calls inside every marked region, from `at` on.
pub(super) fn read_marked(
    text: &str,
    at: usize,
    marks: &Marks,
    scan: &mut Scan,
) -> Result<Vec<ToolCall>, CallError> {
    let mut calls = Vec::new();
    let mut from = at;
    // the `tool_code` fences that open a fence, found once
    let fences: Vec<usize> = first_fences(text, marks, scan);
    loop {
        let next = MARKERS
            .iter()
            .filter_map(|(open, close)| {
                let at = if *open == Marker::ToolCodeFence {
                    let i = fences.partition_point(|fence| *fence < from);
                    fences.get(i).copied()
                } else {
                    marks.find(scan, *open, from)
                };
                at.map(|at| (at, *open, *close))
            })
            .min_by_key(|(at, _, _)| *at);
        let Some((start, open, close)) = next else {
            break;
        };
        let body_start = start + open.text().len();
        let end = marks.find(scan, close, body_start).unwrap_or(text.len());
        let body = &text[body_start..end];
        if !body.trim().is_empty() {
            match call_list(body, 0, scan) {
                Ok(Some((list, stop))) if body[stop..].trim().is_empty() => calls.extend(list),
                _ if open == Marker::ToolCodeFence => calls.extend(statements(body, scan)?),
                _ => return Err(malformed()),
            }
        }
        from = (end + close.text().len()).min(text.len());
        if end >= text.len() {
            break;
        }
    }
    Ok(calls)
}

/// Where `text` opens a `tool_code` fence: the marker on a line of its own
/// (spaces around it), as a Markdown fence is; prose that names the fence
/// (``use ```tool_code fences``) opens none.
fn first_fences(text: &str, marks: &Marks, scan: &mut Scan) -> Vec<usize> {
    marks
        .all(Marker::ToolCodeFence)
        .filter(|at| {
            // only the blanks around the marker are read: linear
            let before = text[..*at].trim_end_matches([' ', '\t']);
            let after = &text[at + Marker::ToolCodeFence.text().len()..];
            let rest = after.trim_start_matches([' ', '\t', '\r']);
            scan.count(text[..*at].len() - before.len() + after.len() - rest.len());
            (before.is_empty() || before.ends_with('\n'))
                && (rest.is_empty() || rest.starts_with('\n'))
        })
        .collect()
}

/// Where the first `tool_code` fence of `text` opens, if one does.
pub(super) fn first_fence(text: &str, marks: &Marks, scan: &mut Scan) -> Option<usize> {
    first_fences(text, marks, scan).first().copied()
}

/// Bare pythonic calls (see the module's documentation).
pub(super) fn read_unmarked(
    text: &str,
    tools: &[ToolSpec],
    json: &[std::ops::Range<usize>],
    scan: &mut Scan,
) -> Result<Vec<ToolCall>, CallError> {
    // a call written inside a JSON value (a text that quotes
    // `[rm(path='/')]`) is data: the searches below jump over such values
    let past_json = |at: usize| {
        let i = json.partition_point(|span| span.end <= at);
        json.get(i)
            .filter(|span| span.start < at)
            .map(|span| span.end)
    };
    // every call has a `(`: a reply without one (most JSON replies) is
    // passed over in one memchr
    if scan.find_byte(text, 0, b'(').is_none() {
        return Ok(Vec::new());
    }
    let mut trimmed = text.trim();
    for (_, close) in MARKERS {
        trimmed = trimmed
            .strip_suffix(close.text())
            .unwrap_or(trimmed)
            .trim_end();
    }
    let offset = trimmed.as_ptr() as usize - text.as_ptr() as usize;
    if let Some((calls, stop)) = call_list(text, offset, scan)?
        && stop >= offset + trimmed.len()
    {
        return Ok(calls);
    }
    // bracketed lists of keyword calls, anywhere
    let mut calls = Vec::new();
    let mut from = 0;
    while let Some(at) = scan.find_byte(text, from, b'[') {
        if let Some(end) = past_json(at) {
            from = end;
            continue;
        }
        match call_list(text, at, scan)? {
            Some((list, stop)) if !list.is_empty() => {
                calls.extend(list);
                from = stop;
            }
            _ => from = at + 1,
        }
    }
    if !calls.is_empty() || tools.is_empty() {
        return Ok(calls);
    }
    // calls of the given tools, in prose; once the reply calls one, a call
    // of a given tool that cannot be read makes the reply unreadable, not
    // a reply with one call fewer
    let mut broken = false;
    let mut from = 0;
    while let Some(at) = scan.find_byte(text, from, b'(') {
        if let Some(end) = past_json(at) {
            from = end;
            continue;
        }
        let start = text[..at].trim_end_matches(super::scan::is_name_char).len();
        let name = &text[start..at];
        let boundary = text[..start]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric() && c != '.');
        if boundary && tools.iter().any(|tool| tool.name() == name) {
            match one_call(text, start, scan) {
                Some((call, stop)) => {
                    calls.push(call);
                    from = stop.max(at + 1);
                    continue;
                }
                None => broken = true,
            }
        }
        from = at + 1;
    }
    if broken && !calls.is_empty() {
        return Err(malformed());
    }
    Ok(calls)
}

/// The bracketed lists of keyword calls in `text` (`[name(key=value)]`),
/// as byte ranges: what their strings hold is data, not markers.
pub(super) fn list_spans(text: &str, scan: &mut Scan) -> Vec<std::ops::Range<usize>> {
    let mut spans = Vec::new();
    // every call has a `(`
    if scan.find_byte(text, 0, b'(').is_none() {
        return spans;
    }
    let mut from = 0;
    while let Some(at) = scan.find_byte(text, from, b'[') {
        match call_list(text, at, scan) {
            Ok(Some((list, stop))) if !list.is_empty() => {
                spans.push(at..stop);
                from = stop;
            }
            _ => from = at + 1,
        }
    }
    spans
}

fn malformed() -> CallError {
    CallError::Malformed {
        shape: SHAPE,
        detail: "write calls as name(key=value, ...)".to_owned(),
    }
}

/// Whether a call starts at `at`: a name, then `(`.
fn starts_call(text: &str, at: usize) -> bool {
    let end = super::scan::name_end(text, at);
    end > at && text[end..].trim_start().starts_with('(')
}

/// Calls from `at`: `[call, call]` or `call, call` (commas, semicolons or
/// line breaks between); the calls and where the list ends. A list that
/// starts with calls and goes on with one that cannot be read is an error:
/// a reply with an unreadable call runs nothing.
fn call_list(
    text: &str,
    at: usize,
    scan: &mut Scan,
) -> Result<Option<(Vec<ToolCall>, usize)>, CallError> {
    let mut lit = Literals::new(text, at);
    let bracketed = lit.eat('[', scan);
    let mut calls = Vec::new();
    loop {
        lit.skip_space(scan);
        if bracketed && lit.eat(']', scan) {
            break;
        }
        if !lit.peek().is_some_and(is_name_start) {
            if bracketed || calls.is_empty() {
                return Ok(None);
            }
            break;
        }
        let Some((call, stop)) = one_call(text, lit.pos, scan) else {
            if !calls.is_empty() && starts_call(text, lit.pos) {
                return Err(malformed());
            }
            return Ok(None);
        };
        calls.push(call);
        lit.pos = stop;
        if !lit.eat(',', scan) {
            lit.eat(';', scan);
        }
    }
    if calls.is_empty() {
        return Ok(None);
    }
    Ok(Some((calls, lit.pos)))
}

/// The calls of a `tool_code` fence written as statements, one a line (or
/// after `;`): each a call, bare or printed (`print(name(key=value))`), its
/// name bare or in Gemini's module (`default_api.name`). Anything else in
/// the fence makes it unreadable: a fence is the model saying "these are
/// my calls".
fn statements(body: &str, scan: &mut Scan) -> Result<Vec<ToolCall>, CallError> {
    let mut calls = Vec::new();
    let mut lit = Literals::new(body, 0);
    loop {
        lit.skip_space(scan);
        while lit.eat(';', scan) || lit.eat(',', scan) {
            lit.skip_space(scan);
        }
        if lit.pos >= body.len() {
            return Ok(calls);
        }
        let printed = body
            .get(lit.pos..)
            .is_some_and(|rest| rest.starts_with("print("));
        if printed {
            lit.pos += "print(".len();
            lit.skip_space(scan);
        }
        let (call, stop) = one_call(body, lit.pos, scan).ok_or_else(malformed)?;
        lit.pos = stop;
        if printed && !lit.eat(')', scan) {
            return Err(malformed());
        }
        let (name, arguments) = call.into_parts();
        calls.push(super::make_call(SHAPE, &name, arguments)?);
    }
}

/// ChatGLM3's arguments: a Python fence holding one
/// `tool_call(key=value, ...)` and nothing else; `None` for anything else.
pub(super) fn fenced_tool_call(content: &str, scan: &mut Scan) -> Option<Map<String, Value>> {
    let body = content
        .strip_prefix("```")?
        .strip_suffix("```")?
        .trim_start_matches("python")
        .trim();
    let (call, stop) = one_call(body, 0, scan)?;
    let (name, arguments) = call.into_parts();
    let alone = body.get(stop..).is_some_and(|rest| rest.trim().is_empty());
    (name == "tool_call" && alone).then_some(arguments)
}

/// One call, `name(key=value, ...)`, at `at`, or with its arguments as one
/// object, `name({"key": value})`; other positional arguments make it no
/// call. A name in a tools' module (`functions.ls`) is the tool's own.
fn one_call(text: &str, at: usize, scan: &mut Scan) -> Option<(ToolCall, usize)> {
    let mut lit = Literals::new(text, at);
    let name = lit.name(scan)?;
    let name = super::scan::without_module(name);
    if !lit.eat('(', scan) {
        return None;
    }
    lit.skip_space(scan);
    if lit.peek() == Some('{') {
        let Value::Object(arguments) = lit.value(0, scan)? else {
            return None;
        };
        if !lit.eat(')', scan) {
            return None;
        }
        let call = ToolCall::new(name, arguments)?;
        return Some((call, lit.pos));
    }
    let mut arguments = Map::new();
    loop {
        if lit.eat(')', scan) {
            break;
        }
        let key = lit.name(scan)?;
        if !lit.eat('=', scan) {
            return None;
        }
        let value: Value = lit.value(0, scan)?;
        arguments.insert(key.to_owned(), value);
        if !lit.eat(',', scan) {
            if lit.eat(')', scan) {
                break;
            }
            return None;
        }
    }
    let call = ToolCall::new(name, arguments)?;
    Some((call, lit.pos))
}
