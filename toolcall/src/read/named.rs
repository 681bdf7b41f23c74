//! The name outside the JSON, the arguments as JSON: DeepSeek V3/R1
//! (`<｜tool▁call▁begin｜>name<｜tool▁sep｜>{...}`), Kimi K2
//! (`<|tool_call_begin|>functions.name:0<|tool_call_argument_begin|>{...}`),
//! Mistral v11 (`[TOOL_CALLS]name[ARGS]{...}`), gpt-oss harmony
//! (`to=functions.name<|channel|>commentary<|message|>{...}`) and the ReAct
//! lines that models prompted in that style write
//! (`Action: name` then `Action Input: {...}`, up to an `Observation:`),
//! and Qwen-Agent's (`✿FUNCTION✿: name` then `✿ARGS✿: {...}`);
//! and Functionary v3.2's and GLM-4's messages (`>>>name` or
//! `<|assistant|>name` then a line break and the arguments: see
//! [`functionary`]).

use serde_json::{Map, Value};

use super::json::arguments;
use super::make_call;
use super::marks::{Marker, Marks};
use super::scan::{Scan, is_name_start, is_tool_name, name_end, skip_space};
use crate::call::{CallError, ToolCall};

const SHAPE: &str = "name-outside-json-args";

pub(super) fn read(text: &str, marks: &Marks, scan: &mut Scan) -> Result<Vec<ToolCall>, CallError> {
    let mut found: Vec<(usize, ToolCall)> = Vec::new();
    if marks.has(Marker::DeepseekBegin) {
        deepseek(text, marks, scan, &mut found)?;
    }
    if marks.has(Marker::KimiBegin) {
        kimi(text, marks, scan, &mut found)?;
    }
    if marks.has(Marker::ToolCalls) {
        mistral(text, marks, scan, &mut found)?;
    }
    if marks.has(Marker::HarmonyTo) {
        harmony(text, marks, scan, &mut found)?;
    }
    if marks.has(Marker::ActionInput) {
        labelled(text, marks, scan, &REACT, &mut found)?;
    }
    if marks.has(Marker::QwenArgs) {
        labelled(text, marks, scan, &QWEN_AGENT, &mut found)?;
    }
    found.sort_by_key(|(at, _)| *at);
    Ok(found.into_iter().map(|(_, call)| call).collect())
}

/// The end of the special token that starts with `prefix` at `at`: its
/// closing `｜>` or `|>`.
fn token_end(text: &str, at: usize, scan: &mut Scan) -> usize {
    scan.find_byte(text, at, b'>')
        .map_or(text.len(), |end| end + 1)
}

fn incomplete(name: &str) -> CallError {
    CallError::IncompleteName {
        partial: name.to_owned(),
    }
}

fn deepseek(
    text: &str,
    marks: &Marks,
    scan: &mut Scan,
    found: &mut Vec<(usize, ToolCall)>,
) -> Result<(), CallError> {
    let mut from = 0;
    while let Some(at) = marks.find(scan, Marker::DeepseekBegin, from) {
        let head = token_end(text, at, scan);
        let Some(sep) = marks.find(scan, Marker::DeepseekSep, head) else {
            let name = text[head..].trim();
            return Err(incomplete(name));
        };
        let before = text[head..sep]
            .trim_end_matches(['<', '|', '\u{ff5c}'])
            .trim();
        let after = token_end(text, sep, scan);
        let end = marks
            .find(scan, Marker::DeepseekEnd, after)
            .unwrap_or(text.len());
        let body = text[after..end].trim_end_matches(['<', '|', '\u{ff5c}']);
        let (name, args) = if before.is_empty() || before == "function" {
            // `function<sep>name\n```json {...}```
            let start = skip_space(body, 0);
            let stop = name_end(body, start);
            if stop >= body.len() && end >= text.len() {
                return Err(incomplete(&body[start..]));
            }
            (&body[start..stop], &body[stop..])
        } else {
            (before, body)
        };
        let call = make_call(SHAPE, name, arguments(name, args, scan)?)?;
        found.push((at, call));
        from = end.max(at + 1);
    }
    Ok(())
}

fn kimi(
    text: &str,
    marks: &Marks,
    scan: &mut Scan,
    found: &mut Vec<(usize, ToolCall)>,
) -> Result<(), CallError> {
    const ARGS: &str = Marker::KimiArguments.text();
    let mut from = 0;
    while let Some(at) = marks.find(scan, Marker::KimiBegin, from) {
        let head = at + Marker::KimiBegin.text().len();
        let Some(args) = marks.find(scan, Marker::KimiArguments, head) else {
            return Err(incomplete(text[head..].trim()));
        };
        let id = text[head..args].trim();
        let id = id.strip_prefix("functions.").unwrap_or(id);
        let name = id.rsplit_once(':').map_or(id, |(name, _)| name).trim();
        let body_start = args + ARGS.len();
        // a call whose end token is missing ends where the next begins
        let end = marks
            .first_of(
                scan,
                &[Marker::ToolCallEndToken, Marker::KimiBegin],
                body_start,
            )
            .unwrap_or(text.len());
        let call = make_call(SHAPE, name, arguments(name, &text[body_start..end], scan)?)?;
        found.push((at, call));
        from = end.max(at + 1);
    }
    Ok(())
}

fn mistral(
    text: &str,
    marks: &Marks,
    scan: &mut Scan,
    found: &mut Vec<(usize, ToolCall)>,
) -> Result<(), CallError> {
    const CALLS: &str = Marker::ToolCalls.text();
    let mut from = 0;
    while let Some(at) = marks.find(scan, Marker::ToolCalls, from) {
        let start = at + CALLS.len();
        if !text[start..].starts_with(is_name_start) {
            from = start;
            continue;
        }
        let stop = name_end(text, start);
        scan.count(stop - start);
        let name = &text[start..stop];
        if stop >= text.len() {
            return Err(incomplete(name));
        }
        // (a `[TOOL_CALLS]` inside the arguments' JSON is no marker: see
        // `super::data_spans`)
        let next = marks
            .find(scan, Marker::ToolCalls, stop)
            .unwrap_or(text.len());
        // `[CALL_ID]id[ARGS]{...}` or `[ARGS]{...}` or `{...}`
        let args_from = marks
            .find(scan, Marker::Args, stop)
            .filter(|a| *a < next)
            .map_or(stop, |args| args + Marker::Args.text().len());
        let body = &text[args_from..next];
        let call = make_call(SHAPE, name, arguments(name, body, scan)?)?;
        found.push((at, call));
        from = next;
    }
    Ok(())
}

fn harmony(
    text: &str,
    marks: &Marks,
    scan: &mut Scan,
    found: &mut Vec<(usize, ToolCall)>,
) -> Result<(), CallError> {
    let mut from = 0;
    while let Some(at) = marks.find(scan, Marker::HarmonyTo, from) {
        let start = at + Marker::HarmonyTo.text().len();
        let stop = name_end(text, start);
        scan.count(stop - start);
        let name = &text[start..stop];
        // the message of this call, not of a later one
        let next_call = marks.find(scan, Marker::HarmonyTo, stop);
        let message = marks
            .find(scan, Marker::HarmonyMessage, stop)
            .filter(|message| next_call.is_none_or(|next| *message < next));
        let (body_start, ends): (usize, &[Marker]) = match message {
            Some(message) => (
                message + Marker::HarmonyMessage.text().len(),
                &[
                    Marker::HarmonyCall,
                    Marker::HarmonyEnd,
                    Marker::HarmonyStart,
                ],
            ),
            // the special tokens left out (a server that decodes without
            // them): `to=functions.name json{...}`, up to the next call
            None => match stripped_body(text, stop) {
                Some(body_start) => (body_start, &[Marker::HarmonyTo]),
                None => return Err(incomplete(name)),
            },
        };
        let end = marks.first_of(scan, ends, body_start).unwrap_or(text.len());
        let call = make_call(SHAPE, name, arguments(name, &text[body_start..end], scan)?)?;
        found.push((at, call));
        from = end.max(at + 1);
    }
    Ok(())
}

/// Where the arguments of a harmony call whose special tokens were left
/// out begin: after its name, blanks and the constraint (`json`), an
/// object's `{`.
fn stripped_body(text: &str, name_end: usize) -> Option<usize> {
    let at = skip_space(text, name_end);
    let at = if text[at..].starts_with("json") {
        skip_space(text, at + "json".len())
    } else {
        at
    };
    text[at..].starts_with('{').then_some(at)
}

/// Calls written as two labels, the tool's name after the first and its
/// arguments after the second, up to the next call or a stop.
struct Labels {
    /// The label before the name (`Action:`).
    name: Marker,
    /// The label before the arguments (`Action Input:`).
    arguments: Marker,
    /// What the model writes after its calls: what follows is not read.
    stops: &'static [Marker],
    /// Whether the labels count only at a line's start (then a label
    /// inside another format's value is text).
    lines: bool,
}

/// The ReAct lines: `Action: name` then `Action Input: {...}` (the name on
/// the `Action:` line or the next), up to the next `Action:`; what comes
/// after an `Observation:` is the model imagining the tool's answer and
/// acting on it.
const REACT: Labels = Labels {
    name: Marker::ActionLine,
    arguments: Marker::ActionInput,
    stops: &[Marker::Observation],
    lines: true,
};

/// Qwen-Agent's function calls, as Qwen2 and Qwen2.5 write them when
/// Qwen-Agent prompts them: `✿FUNCTION✿: name`, then `✿ARGS✿: {...}`. A
/// `✿RESULT✿` is the model imagining the tool's answer, a `✿RETURN✿` its
/// answer to the user.
const QWEN_AGENT: Labels = Labels {
    name: Marker::QwenFunction,
    arguments: Marker::QwenArgs,
    stops: &[Marker::QwenResult, Marker::QwenReturn],
    lines: false,
};

/// The calls written with `labels` (see [`Labels`]).
fn labelled(
    text: &str,
    marks: &Marks,
    scan: &mut Scan,
    labels: &Labels,
    found: &mut Vec<(usize, ToolCall)>,
) -> Result<(), CallError> {
    let find = |scan: &mut Scan, marker: Marker, from: usize| {
        if labels.lines {
            line_start(text, marks, scan, marker, from)
        } else {
            marks.find(scan, marker, from)
        }
    };
    let mut from = 0;
    while let Some(input) = find(scan, labels.arguments, from) {
        scan.count(1);
        let Some(label) = marks
            .last_before(labels.name, input)
            .filter(|label| *label >= from)
        else {
            return Err(CallError::Malformed {
                shape: SHAPE,
                detail: format!(
                    "`{}` comes with no `{}` naming the tool before it",
                    labels.arguments.text(),
                    labels.name.text()
                ),
            });
        };
        let between = &text[label + labels.name.text().len()..input];
        scan.count(between.len());
        let name = between
            .trim()
            .trim_start_matches(':')
            .trim()
            .trim_matches(['`', '"', '\''])
            .trim();
        let body_start = input + labels.arguments.text().len();
        let stop = labels
            .stops
            .iter()
            .filter_map(|stop| find(scan, *stop, body_start))
            .min();
        let end = find(scan, labels.name, body_start)
            .into_iter()
            .chain(stop)
            .min()
            .unwrap_or(text.len());
        let body = text[body_start..end].trim_start().trim_start_matches(':');
        let call = make_call(SHAPE, name, arguments(name, body, scan)?)?;
        found.push((label, call));
        if stop == Some(end) {
            break;
        }
        from = end.max(input + 1);
    }
    Ok(())
}

/// Functionary v3.2 (MeetKai): the assistant's turn is a run of messages,
/// each a recipient, a line break and the content, the messages after the
/// first opened by `>>>` (the generation prompt ends with the first one, so
/// a reply starts with its recipient). The recipient `all` is the user:
/// text. Any other names a tool, and the content is its arguments, a JSON
/// object (`python` takes code as it stands: `{"code": ...}`).
///
/// `None` when the reply does not have this shape throughout: a `>>>`
/// outside the JSON values at `spans` that is not followed by a name and a
/// line break (a Python prompt `>>> x`, a quotation) leaves the reply to
/// the other readers, as does a reply without `>>>` that is not a single
/// message to a tool (a name alone on its first line, then one JSON object
/// that is not a call by itself and nothing else, or `python` and code).
/// `json` on a line of its own before an object is a code fence's language,
/// not a tool.
///
/// GLM-4 writes its turns the same way, each opened by `<|assistant|>`
/// (its metadata, the recipient, right after the token: `<|assistant|>ls`
/// then a line break and the JSON arguments) where its special tokens are
/// kept; ChatGLM3's content is a Python fence holding
/// `tool_call(key=value, ...)`. A turn of text (`<|assistant|>` and a line
/// break) leaves the reply to the other readers, as a `>>>` without a name
/// does.
pub(super) fn functionary(
    text: &str,
    spans: &[std::ops::Range<usize>],
    scan: &mut Scan,
) -> Option<Result<Vec<ToolCall>, CallError>> {
    /// What opens a message: Functionary's, GLM-4's.
    const OPENS: [&str; 2] = [">>>", "<|assistant|>"];
    scan.count(text.len());
    // `spans` are sorted and disjoint: the one that may hold an opening is
    // found by bisection
    let mut opens: Vec<(usize, usize)> = Vec::new();
    for open in OPENS {
        for at in memchr::memmem::find_iter(text.as_bytes(), open) {
            scan.count(1 + spans.len().checked_ilog2().unwrap_or(0) as usize);
            let i = spans.partition_point(|span| span.end <= at);
            if spans.get(i).is_none_or(|span| span.start >= at) {
                opens.push((at, at + open.len()));
            }
        }
    }
    opens.sort_unstable();
    let mut messages: Vec<(&str, &str)> = Vec::with_capacity(opens.len() + 1);
    let first = &text[..opens.first().map_or(text.len(), |(at, _)| *at)];
    // text before the first `>>>` that names no recipient is the user's
    if let Some(message) = recipient(first.trim_start()) {
        messages.push(message);
    }
    if opens.is_empty() {
        let (name, content) = messages.first().copied()?;
        // an object that is a call by itself (`Sure\n{"name": "ls", ...}`)
        // is the JSON reader's
        let single = match name {
            "all" => false,
            "python" => !content.trim().is_empty(),
            _ if name.eq_ignore_ascii_case("json") => false,
            _ => match serde_json::from_str(content.trim()) {
                Ok(object @ Value::Object(_)) => ToolCall::from_json(object).is_err(),
                _ => super::pythonic::fenced_tool_call(content.trim(), scan).is_some(),
            },
        };
        if !single {
            return None;
        }
    }
    for (i, (_, start)) in opens.iter().enumerate() {
        let end = opens.get(i + 1).map_or(text.len(), |(at, _)| *at);
        messages.push(recipient(text.get(*start..end)?)?);
    }
    let mut calls = Vec::new();
    for (name, content) in messages {
        if name == "all" {
            continue;
        }
        let trimmed = content.trim();
        scan.count(trimmed.len());
        let arguments = match serde_json::from_str(trimmed) {
            Ok(Value::Object(map)) => map,
            _ if name == "python" => {
                let mut code = Map::new();
                code.insert("code".to_owned(), Value::String(trimmed.to_owned()));
                code
            }
            _ if trimmed.is_empty() => Map::new(),
            _ if let Some(map) = super::pythonic::fenced_tool_call(trimmed, scan) => map,
            _ => match arguments(name, content, scan) {
                Ok(map) => map,
                Err(problem) => return Some(Err(problem)),
            },
        };
        match make_call(SHAPE, name, arguments) {
            Ok(call) => calls.push(call),
            Err(problem) => return Some(Err(problem)),
        }
    }
    Some(Ok(calls))
}

/// A Functionary message: its recipient (a name right at its start, alone
/// before the first line break, spaces after it allowed) and its content.
/// A space before the name is a Python prompt's (`>>> x`), not this shape.
fn recipient(message: &str) -> Option<(&str, &str)> {
    let (head, content) = message.split_once('\n')?;
    let name = head.trim_end();
    is_tool_name(name).then_some((name, content))
}

/// The first `marker` from `from` on that starts a line (after spaces at
/// most): one inside a value (`{"text": "Observation: none"}`) is no line
/// of the format.
pub(super) fn line_start(
    text: &str,
    marks: &Marks,
    scan: &mut Scan,
    marker: Marker,
    from: usize,
) -> Option<usize> {
    /// Spaces looked back over before a marker.
    const INDENT: usize = 16;
    let mut at = from;
    while let Some(found) = marks.find(scan, marker, at) {
        let line = text[..found].trim_end_matches([' ', '\t']);
        let indent = found - line.len();
        if indent <= INDENT && (line.is_empty() || line.ends_with('\n')) {
            return Some(found);
        }
        at = found + 1;
    }
    None
}
