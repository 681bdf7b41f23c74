//! The name outside the JSON, the arguments as JSON: DeepSeek V3/R1
//! (`<｜tool▁call▁begin｜>name<｜tool▁sep｜>{...}`), Kimi K2
//! (`<|tool_call_begin|>functions.name:0<|tool_call_argument_begin|>{...}`),
//! Mistral v11 (`[TOOL_CALLS]name[ARGS]{...}`), gpt-oss harmony
//! (`to=functions.name<|channel|>commentary<|message|>{...}`) and the ReAct
//! lines that models prompted in that style write
//! (`Action: name` then `Action Input: {...}`, up to an `Observation:`).

use super::json::arguments;
use super::make_call;
use super::marks::{Marker, Marks};
use super::scan::{Scan, is_name_start, name_end, skip_space};
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
        react(text, marks, scan, &mut found)?;
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
        let end = marks
            .find(scan, Marker::ToolCallEndToken, body_start)
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
        let Some(message) = marks.find(scan, Marker::HarmonyMessage, stop) else {
            return Err(incomplete(name));
        };
        let body_start = message + Marker::HarmonyMessage.text().len();
        let end = [
            Marker::HarmonyCall,
            Marker::HarmonyEnd,
            Marker::HarmonyStart,
        ]
        .iter()
        .filter_map(|marker| marks.find(scan, *marker, body_start))
        .min()
        .unwrap_or(text.len());
        let call = make_call(SHAPE, name, arguments(name, &text[body_start..end], scan)?)?;
        found.push((at, call));
        from = end.max(at + 1);
    }
    Ok(())
}

/// `Action: name` then `Action Input: {...}`: the name is what stands
/// between the two markers (on the `Action:` line or the next), the
/// arguments what follows, up to the next `Action:` or `Observation:`.
/// What comes after an `Observation:` is the model imagining the tool's
/// answer and acting on it: not read.
fn react(
    text: &str,
    marks: &Marks,
    scan: &mut Scan,
    found: &mut Vec<(usize, ToolCall)>,
) -> Result<(), CallError> {
    const ACTION: &str = Marker::ActionLine.text();
    const INPUT: &str = Marker::ActionInput.text();
    let mut from = 0;
    // only lines: an `Action Input:` inside another format's value is text
    while let Some(input) = line_start(text, marks, scan, Marker::ActionInput, from) {
        scan.count(1);
        let Some(action) = marks
            .last_before(Marker::ActionLine, input)
            .filter(|action| *action >= from)
        else {
            return Err(CallError::Malformed {
                shape: SHAPE,
                detail: "an `Action Input:` line has no `Action:` line naming the tool before \
                         it"
                .to_owned(),
            });
        };
        let between = &text[action + ACTION.len()..input];
        scan.count(between.len());
        let name = between.trim().trim_matches(['`', '"', '\'']).trim();
        let body_start = input + INPUT.len();
        let observation = line_start(text, marks, scan, Marker::Observation, body_start);
        let end = line_start(text, marks, scan, Marker::ActionLine, body_start)
            .into_iter()
            .chain(observation)
            .min()
            .unwrap_or(text.len());
        let call = make_call(SHAPE, name, arguments(name, &text[body_start..end], scan)?)?;
        found.push((action, call));
        if observation == Some(end) {
            break;
        }
        from = end.max(input + 1);
    }
    Ok(())
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
