//! Gemma's literal syntax: `<start_function_call>call:name{key:value}
//! <end_function_call>` (FunctionGemma) and `<|tool_call>call:name{...}
//! <tool_call|>` (Gemma 4); strings between `<escape>` or `<|"|>`.

use serde_json::Value;

use super::literal::Literals;
use super::make_call;
use super::marks::{Marker, Marks};
use super::scan::{Scan, name_end};
use crate::call::{CallError, ToolCall};

const SHAPE: &str = "gemma-call";
const OPENINGS: [Marker; 2] = [Marker::StartFunctionCallCall, Marker::GemmaToolCall];

pub(super) fn read(text: &str, marks: &Marks, scan: &mut Scan) -> Result<Vec<ToolCall>, CallError> {
    let mut calls = Vec::new();
    let mut from = 0;
    loop {
        let next = OPENINGS
            .iter()
            .filter_map(|open| {
                marks
                    .find(scan, *open, from)
                    .map(|at| at + open.text().len())
            })
            .min();
        let Some(start) = next else {
            return Ok(calls);
        };
        let end = name_end(text, start);
        scan.count(end - start);
        let name = &text[start..end];
        if end >= text.len() {
            return Err(CallError::IncompleteName {
                partial: name.to_owned(),
            });
        }
        let mut lit = Literals::new(text, end);
        let arguments = match lit.dict(0, scan) {
            Some(Value::Object(arguments)) if text[end..].starts_with('{') => arguments,
            _ => {
                return Err(CallError::Malformed {
                    shape: SHAPE,
                    detail: format!("the arguments of `{name}` are not a {{key:value}} object"),
                });
            }
        };
        calls.push(make_call(SHAPE, name, arguments)?);
        from = lit.pos.max(start + 1);
    }
}
