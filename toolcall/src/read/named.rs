//! The name outside the JSON, the arguments as JSON: DeepSeek V3/R1
//! (`<｜tool▁call▁begin｜>name<｜tool▁sep｜>{...}`), Kimi K2
//! (`<|tool_call_begin|>functions.name:0<|tool_call_argument_begin|>{...}`),
//! Mistral v11 (`[TOOL_CALLS]name[ARGS]{...}`) and gpt-oss harmony
//! (`to=functions.name<|channel|>commentary<|message|>{...}`).

use super::json::arguments;
use super::make_call;
use super::scan::{Scan, is_name_start, name_end, skip_space};
use crate::call::{CallError, ToolCall};

const SHAPE: &str = "name-outside-json-args";

pub(super) fn read(text: &str, scan: &mut Scan) -> Result<Vec<ToolCall>, CallError> {
    let mut found: Vec<(usize, ToolCall)> = Vec::new();
    deepseek(text, scan, &mut found)?;
    kimi(text, scan, &mut found)?;
    mistral(text, scan, &mut found)?;
    harmony(text, scan, &mut found)?;
    found.sort_by_key(|(at, _)| *at);
    Ok(found.into_iter().map(|(_, call)| call).collect())
}

/// The end of the special token that starts with `prefix` at `at`: its
/// closing `｜>` or `|>`.
fn token_end(text: &str, at: usize, scan: &mut Scan) -> usize {
    scan.find(text, at, ">").map_or(text.len(), |end| end + 1)
}

fn incomplete(name: &str) -> CallError {
    CallError::IncompleteName {
        partial: name.to_owned(),
    }
}

fn deepseek(
    text: &str,
    scan: &mut Scan,
    found: &mut Vec<(usize, ToolCall)>,
) -> Result<(), CallError> {
    const BEGIN: &str = "tool\u{2581}call\u{2581}begin";
    const SEP: &str = "tool\u{2581}sep";
    const END: &str = "tool\u{2581}call\u{2581}end";
    let mut from = 0;
    while let Some(at) = scan.find(text, from, BEGIN) {
        let head = token_end(text, at, scan);
        let Some(sep) = scan.find(text, head, SEP) else {
            let name = text[head..].trim();
            return Err(incomplete(name));
        };
        let before = text[head..sep]
            .trim_end_matches(['<', '|', '\u{ff5c}'])
            .trim();
        let after = token_end(text, sep, scan);
        let end = scan.find(text, after, END).unwrap_or(text.len());
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

fn kimi(text: &str, scan: &mut Scan, found: &mut Vec<(usize, ToolCall)>) -> Result<(), CallError> {
    const BEGIN: &str = "<|tool_call_begin|>";
    const ARGS: &str = "<|tool_call_argument_begin|>";
    const END: &str = "<|tool_call_end|>";
    let mut from = 0;
    while let Some(at) = scan.find(text, from, BEGIN) {
        let head = at + BEGIN.len();
        let Some(args) = scan.find(text, head, ARGS) else {
            return Err(incomplete(text[head..].trim()));
        };
        let id = text[head..args].trim();
        let id = id.strip_prefix("functions.").unwrap_or(id);
        let name = id.rsplit_once(':').map_or(id, |(name, _)| name).trim();
        let body_start = args + ARGS.len();
        let end = scan.find(text, body_start, END).unwrap_or(text.len());
        let call = make_call(SHAPE, name, arguments(name, &text[body_start..end], scan)?)?;
        found.push((at, call));
        from = end.max(at + 1);
    }
    Ok(())
}

fn mistral(
    text: &str,
    scan: &mut Scan,
    found: &mut Vec<(usize, ToolCall)>,
) -> Result<(), CallError> {
    const CALLS: &str = "[TOOL_CALLS]";
    let mut from = 0;
    while let Some(at) = scan.find(text, from, CALLS) {
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
        let next = scan.find(text, stop, CALLS).unwrap_or(text.len());
        let mut body = &text[stop..next];
        // `[CALL_ID]id[ARGS]{...}` or `[ARGS]{...}` or `{...}`
        if let Some(args) = body.find("[ARGS]") {
            body = &body[args + "[ARGS]".len()..];
        }
        let call = make_call(SHAPE, name, arguments(name, body, scan)?)?;
        found.push((at, call));
        from = next;
    }
    Ok(())
}

fn harmony(
    text: &str,
    scan: &mut Scan,
    found: &mut Vec<(usize, ToolCall)>,
) -> Result<(), CallError> {
    const TO: &str = "to=functions.";
    const MESSAGE: &str = "<|message|>";
    let mut from = 0;
    while let Some(at) = scan.find(text, from, TO) {
        let start = at + TO.len();
        let stop = name_end(text, start);
        scan.count(stop - start);
        let name = &text[start..stop];
        let Some(message) = scan.find(text, stop, MESSAGE) else {
            return Err(incomplete(name));
        };
        let body_start = message + MESSAGE.len();
        let end = ["<|call|>", "<|end|>", "<|start|>"]
            .iter()
            .filter_map(|marker| scan.find(text, body_start, marker))
            .min()
            .unwrap_or(text.len());
        let call = make_call(SHAPE, name, arguments(name, &text[body_start..end], scan)?)?;
        found.push((at, call));
        from = end.max(at + 1);
    }
    Ok(())
}
