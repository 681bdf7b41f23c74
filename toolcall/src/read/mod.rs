//! Every tool call in a reply, whatever the model's format: the shape is
//! chosen from the markers in the text, never from a model's name.

mod gemma;
mod json;
mod literal;
mod marks;
mod named;
mod pythonic;
mod reasoning;
mod scan;
mod typing;
mod xml;

use serde_json::{Map, Value};

use crate::call::{CallError, ToolCall};
use marks::{Marker, Marks};
use scan::Scan;

/// A tool the reader may be told about: its name and the JSON Schema of
/// its arguments.
///
/// With a tool list, text values of formats that carry no types (XML
/// parameters) are typed by the schema (`"42"` becomes `42` for a number
/// slot), pythonic calls are recognised in prose when they name a listed
/// tool, so is a JSON object that names no tool right after a listed
/// tool's name (`ls {"path": "src"}`, and Kimi K2's and DeepSeek V3.1's
/// calls read without their special tokens, `functions.ls:0{...}`), and a
/// call to a tool that is not listed is an error naming the tools there
/// are.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolSpec {
    name: String,
    schema: Value,
}

impl ToolSpec {
    /// A tool and the schema of its arguments (an object schema).
    pub fn new(name: impl Into<String>, schema: Value) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            schema,
        }
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The schema of its arguments.
    pub fn schema(&self) -> &Value {
        &self.schema
    }
}

/// What a model's reply holds, read whole.
#[derive(Debug)]
#[non_exhaustive]
pub enum Reading {
    /// Every call of the reply, in the order written (at least one).
    Calls(Vec<ToolCall>),
    /// No call: the model is talking, or done.
    NoCall,
    /// The reply holds a call that cannot be read: run nothing, ask again
    /// with `reason` (written for the model) as guidance.
    Unreadable {
        /// What is wrong, and what to send instead.
        reason: CallError,
    },
}

/// The shapes of tool call the reader knows, for reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    Named,
    Xml,
    Pythonic,
    Gemma,
}

/// Reads every tool call of a reply, with no tool list (see
/// [`read_calls_with`]).
pub fn read_calls(text: &str) -> Reading {
    read_calls_with(text, &[])
}

/// Reads every tool call of a reply, in order, typing values and checking
/// names against `tools` when the list is not empty.
pub fn read_calls_with(text: &str, tools: &[ToolSpec]) -> Reading {
    let mut scan = Scan::new();
    read_counting(text, tools, &mut scan)
}

/// The reading, with its work counted in `scan` (tests check that the work
/// is linear in the size of the text).
pub(crate) fn read_counting(text: &str, tools: &[ToolSpec], scan: &mut Scan) -> Reading {
    // one pass finds every marker; a second one only when reasoning was cut
    // out of the text
    // markers inside valid JSON values are data (see `json_spans`)
    let marks = Marks::of(text, scan);
    let spans = data_spans(text, &marks, scan);
    let marks = marks.outside(&spans);
    let stripped = reasoning::strip(text, &marks, scan);
    let stripped_parts;
    let (body, marks, spans) = match stripped {
        Some((body, stripped_marks)) => {
            let spans = data_spans(&body, &stripped_marks, scan);
            stripped_parts = (body, stripped_marks.outside(&spans), spans);
            (
                stripped_parts.0.as_str(),
                &stripped_parts.1,
                &stripped_parts.2,
            )
        }
        None => (text, &marks, &spans),
    };
    let whole = read_body(body, marks, spans, tools, scan);
    // A tool's result in the reply is the model imagining it: the calls
    // before it are read, not those it goes on to make on what it imagined.
    // A result marker inside a call's value (a text that quotes
    // `<tool_response>`) would cut that value short, so one counts where
    // the calls before it are the first calls of the whole reply,
    // unchanged. A reply whose calls all come after one is read whole, and
    // one that cannot be read whole is unreadable (nothing runs).
    let Reading::Calls(all) = &whole else {
        return whole;
    };
    let mut cuts: Vec<usize> = RESULTS
        .iter()
        .flat_map(|marker| marks.all(*marker))
        .collect();
    cuts.sort_unstable();
    for cut in cuts.into_iter().take(MAX_RESULT_CUTS) {
        let before = &body[..cut];
        // the values that end before the cut are whole in it
        let before_spans: Vec<_> = spans
            .iter()
            .filter(|span| span.end <= cut)
            .cloned()
            .collect();
        let before_marks = Marks::of(before, scan).outside(&before_spans);
        if let Reading::Calls(first) = read_body(before, &before_marks, &before_spans, tools, scan)
            && first.len() < all.len()
            && all.starts_with(&first)
        {
            return Reading::Calls(first);
        }
    }
    whole
}

/// The byte ranges of the objects and arrays of `text` that are valid JSON
/// as written: a marker inside one is in a string of it (a call's text
/// that quotes `<think>` or `<function=x>`), data rather than structure.
/// Only serde_json reads here (nothing is repaired): where it fails, the
/// search goes on where it stopped reading.
fn json_spans(text: &str, scan: &mut Scan) -> Vec<std::ops::Range<usize>> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut from = 0;
    while let Some(found) = bytes
        .get(from..)
        .and_then(|rest| memchr::memchr2(b'{', b'[', rest))
    {
        let start = from + found;
        let rest = &text[start..];
        let mut values =
            serde_json::Deserializer::from_str(rest).into_iter::<serde::de::IgnoredAny>();
        match values.next() {
            Some(Ok(_)) => {
                let end = start + values.byte_offset();
                scan.count(end - start);
                spans.push(start..end);
                from = end;
            }
            Some(Err(error)) => {
                // what it read before failing holds no value of its own
                // that is tried again (linear; a valid value nested in a
                // broken one is passed over, its markers left as they are)
                let read = read_before(rest, &error).max(1);
                scan.count(read);
                from = start + read;
            }
            None => from = start + 1,
        }
    }
    spans
}

/// Where `text` (whose markers are `marks`) holds data rather than
/// structure: its valid JSON values ([`json_spans`]), its bracketed lists
/// of pythonic calls, and the values of XML parameters (`<parameter=k>...</parameter>`, `<arg_value>...</arg_value>`,
/// `<param ...>...</param>`), merged, sorted and disjoint.
fn data_spans(text: &str, marks: &Marks, scan: &mut Scan) -> Vec<std::ops::Range<usize>> {
    const VALUES: [(Marker, Marker); 3] = [
        (Marker::ParameterEq, Marker::ParameterEnd),
        (Marker::ArgValue, Marker::ArgValueEnd),
        (Marker::Param, Marker::ParamEnd),
    ];
    let mut spans = json_spans(text, scan);
    spans.extend(pythonic::list_spans(text, scan));
    for (open, close) in VALUES {
        let mut from = 0;
        while let Some(at) = marks.find(scan, open, from) {
            let start = at + open.text().len();
            let Some(first_close) = marks.find(scan, close, start) else {
                break;
            };
            // CDATA holds either marker as text. The value starts after the
            // opening tag's `>`, looked for before the next marker only (a
            // search to the end from every tag would be quadratic).
            let tag_end = if open.text().ends_with('>') {
                start
            } else {
                let window = marks
                    .find(scan, open, start)
                    .map_or(first_close, |next| next.min(first_close));
                scan.count(window - start);
                memchr::memchr(b'>', &text.as_bytes()[start..window])
                    .map_or(start, |gt| start + gt + 1)
            };
            let value = scan::skip_space(text, tag_end);
            let search = if text[value..].starts_with("<![CDATA[") {
                marks
                    .find(scan, Marker::CdataEnd, value)
                    .map_or(start, |end| end + Marker::CdataEnd.text().len())
            } else {
                start
            };
            let closed = if search == start {
                first_close
            } else {
                let Some(closed) = marks.find(scan, close, search) else {
                    break;
                };
                closed
            };
            // a value left unclosed ends where the next one opens (see
            // `xml::value_end`)
            let end = marks
                .find(scan, open, search)
                .filter(|next| *next < closed)
                .unwrap_or(closed);
            // from the opening marker's last byte: a marker that starts
            // the value is strictly inside the span
            spans.push(start - 1..end);
            from = end;
        }
    }
    spans.sort_unstable_by_key(|span| span.start);
    let mut merged: Vec<std::ops::Range<usize>> = Vec::with_capacity(spans.len());
    for span in spans {
        match merged.last_mut() {
            Some(last) if span.start < last.end => last.end = last.end.max(span.end),
            _ => merged.push(span),
        }
    }
    merged
}

/// How far serde_json read into `text` before `error`.
fn read_before(text: &str, error: &serde_json::Error) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(error.line().saturating_sub(1))
        .map(str::len)
        .sum();
    line_start + error.column()
}

/// How many result markers are tried as the reply's end (each costs a
/// reading of the text before it).
const MAX_RESULT_CUTS: usize = 4;

/// The markers of a tool's result, in each format that has one.
pub(super) const RESULTS: [Marker; 12] = [
    Marker::ToolResponse,
    Marker::QwenResult,
    Marker::ToolResults,
    Marker::GlmObservation,
    Marker::DeepseekOutput,
    Marker::IpythonHeader,
    Marker::IpythonHeader4,
    Marker::ChatmlTool,
    Marker::CohereToolResult,
    Marker::GemmaFunctionResponse,
    Marker::HarmonyToolMessage,
    Marker::ToolOutputFence,
];

/// The calls of a reply's body (reasoning cut out, its valid JSON values
/// at `spans`), typed by `tools`.
fn read_body(
    body: &str,
    marks: &Marks,
    spans: &[std::ops::Range<usize>],
    tools: &[ToolSpec],
    scan: &mut Scan,
) -> Reading {
    let found = match shape_of(body, marks, scan) {
        Some((Shape::Named, _)) => named::read(body, marks, scan),
        Some((Shape::Xml, _)) => xml::read(body, marks, scan),
        Some((Shape::Gemma, _)) => gemma::read(body, marks, scan),
        Some((Shape::Pythonic, at)) => pythonic::read_marked(body, at, marks, scan),
        None => match named::functionary(body, spans, scan) {
            Some(found) => found,
            None => match pythonic::read_unmarked(body, tools, spans, scan) {
                // in a reply whose calls are JSON in markers, pythonic calls
                // in the prose beside them are an example or calls that lost
                // their markers: neither taken instead of the marked calls
                // nor beside them
                Ok(calls)
                    if !calls.is_empty()
                        && marks.any(&[Marker::ToolCall, Marker::ToolCalls, Marker::PythonTag])
                        && json::read(body, marks, scan).is_ok_and(|json| !json.is_empty()) =>
                {
                    Err(json::beside_the_markers())
                }
                Ok(calls) if !calls.is_empty() => Ok(calls),
                Err(problem) => Err(problem),
                Ok(_) => match json::read(body, marks, scan) {
                    Err(CallError::MissingName { .. })
                        if let Some(calls) = named_before(body, spans, tools, scan) =>
                    {
                        Ok(calls)
                    }
                    read => read,
                },
            },
        },
    };
    let calls = match found {
        Ok(calls) => calls,
        Err(reason) => return Reading::Unreadable { reason },
    };
    if calls.is_empty() {
        return match unread_xml_call(body, marks, tools, scan) {
            Some(reason) => Reading::Unreadable { reason },
            None => Reading::NoCall,
        };
    }
    if tools.is_empty() {
        return Reading::Calls(calls);
    }
    let mut typed = Vec::with_capacity(calls.len());
    for call in calls {
        let (name, arguments) = call.into_parts();
        let Some(tool) = tools.iter().find(|tool| tool.name == name) else {
            return Reading::Unreadable {
                reason: CallError::UnknownTool {
                    name,
                    known: tools.iter().map(|tool| tool.name.clone()).collect(),
                },
            };
        };
        let arguments = typing::type_arguments(arguments, &tool.schema);
        match ToolCall::new(name, arguments) {
            Some(call) => typed.push(call),
            None => return Reading::NoCall,
        }
    }
    Reading::Calls(typed)
}

/// A call in an XML form no reader takes, in a reply that has no other
/// call: the older Anthropic form (`<invoke><tool_name>ls</tool_name>
/// <parameters><path>src</path></parameters></invoke>`), or, with a tool
/// list, an element named after a listed tool (`<ls><path>src</path></ls>`,
/// as agents prompted in Cline's style write calls). Read as no call, the
/// model's call would be taken for its answer; the reply is unreadable
/// instead, saying which form to use.
fn unread_xml_call(
    body: &str,
    marks: &Marks,
    tools: &[ToolSpec],
    scan: &mut Scan,
) -> Option<CallError> {
    const USE: &str = "write it as <invoke name=\"TOOL\"><parameter name=\"KEY\">VALUE</parameter></invoke>, or as JSON: {\"name\": \"TOOL\", \"arguments\": {...}}";
    if marks.has(Marker::ToolNameTag) {
        return Some(CallError::Malformed {
            shape: xml::SHAPE,
            detail: format!("`<tool_name>` names the tool in a form that is not read; {USE}"),
        });
    }
    tools.iter().find_map(|tool| {
        scan.count(body.len());
        let open = format!("<{}>", tool.name());
        let at = memchr::memmem::find(body.as_bytes(), open.as_bytes())?;
        let close = format!("</{}>", tool.name());
        memchr::memmem::find(&body.as_bytes()[at..], close.as_bytes())?;
        Some(CallError::Malformed {
            shape: xml::SHAPE,
            detail: format!("`{open}` calls the tool in a form that is not read; {USE}"),
        })
    })
}

/// With a tool list, the JSON objects of `body` (its valid values at
/// `spans`) that name no tool but follow the name of a listed tool
/// (`grep {"pattern": "x"}`, and Kimi K2's and DeepSeek V3.1's calls read
/// without their special tokens, `functions.grep:0{...}`, `grep{...}`):
/// calls of that tool. `None` unless every object of the reply is one.
fn named_before(
    body: &str,
    spans: &[std::ops::Range<usize>],
    tools: &[ToolSpec],
    scan: &mut Scan,
) -> Option<Vec<ToolCall>> {
    if tools.is_empty() {
        return None;
    }
    let mut calls = Vec::new();
    for span in spans {
        let (Some(value), Some(before)) = (body.get(span.clone()), body.get(..span.start)) else {
            return None;
        };
        if !value.starts_with('{') {
            continue;
        }
        scan.count(value.len());
        let Ok(Value::Object(arguments)) = serde_json::from_str(value) else {
            return None;
        };
        // blanks, then a call's index (`:0`), then the name (only the text
        // right before the object is read: linear)
        let all = before.len();
        let before = before.trim_end();
        let digits = before.trim_end_matches(|c: char| c.is_ascii_digit());
        scan.count(all - digits.len());
        let before = match digits.strip_suffix(':') {
            Some(name) if digits.len() < before.len() => name,
            _ => before,
        };
        let start = before.trim_end_matches(scan::is_name_char).len();
        scan.count(before.len() - start);
        let name = &before[start..];
        let name = scan::without_module(name);
        let named = tools.iter().any(|tool| tool.name() == name);
        let boundary = before[..start]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric());
        if !named || !boundary {
            return None;
        }
        calls.push(ToolCall::new(name, arguments)?);
    }
    (!calls.is_empty()).then_some(calls)
}

/// The shape announced by the first decisive marker in the text, and where
/// it is; `None` when no marker decides (JSON in chatter, or bare pythonic
/// calls).
fn shape_of(text: &str, marks: &Marks, scan: &mut Scan) -> Option<(Shape, usize)> {
    const MARKERS: &[(Marker, Shape)] = &[
        // name outside the JSON
        (Marker::DeepseekBegin, Shape::Named),
        (Marker::KimiArguments, Shape::Named),
        (Marker::HarmonyTo, Shape::Named),
        (Marker::Args, Shape::Named),
        (Marker::ActionInput, Shape::Named),
        (Marker::QwenArgs, Shape::Named),
        // XML parameters
        (Marker::FunctionEq, Shape::Xml),
        (Marker::InvokeName, Shape::Xml),
        (Marker::ArgKey, Shape::Xml),
        (Marker::FunctionName, Shape::Xml),
        // Gemma
        (Marker::StartFunctionCallCall, Shape::Gemma),
        (Marker::GemmaToolCall, Shape::Gemma),
        // pythonic calls in markers
        (Marker::LfmStart, Shape::Pythonic),
        (Marker::FunctionCalls, Shape::Pythonic),
        (Marker::PythonStart, Shape::Pythonic),
        (Marker::ToolCodeFence, Shape::Pythonic),
    ];
    let mut best: Option<(Shape, usize)> = None;
    for (marker, shape) in MARKERS {
        let at = if *marker == Marker::ActionInput {
            // a ReAct line, not text that quotes one
            named::line_start(text, marks, scan, *marker, 0)
        } else if *marker == Marker::ToolCodeFence {
            // a fence, not prose that names one
            pythonic::first_fence(text, marks, scan)
        } else {
            marks.next(*marker, 0)
        };
        if let Some(at) = at
            && best.is_none_or(|(_, b)| at < b)
            && !wraps_markup(text, *marker, at)
        {
            best = Some((*shape, at));
        }
    }
    // JSON in markers that come first decides: another format's marker
    // after it is inside the JSON's values (a text that quotes
    // `<function=x>` or `to=functions.y`), read by the JSON reader
    let json_first = [Marker::ToolCall, Marker::PythonTag, Marker::ToolCalls]
        .iter()
        .filter_map(|marker| {
            let at = marks.next(*marker, 0)?;
            let after = text[at + marker.text().len()..].trim_start();
            after.starts_with(['{', '[']).then_some(at)
        })
        .min();
    if let (Some(json), Some((_, other))) = (json_first, best)
        && json < other
    {
        return None;
    }
    // Mistral v11: `[TOOL_CALLS]name{...}` (a list after it is JSON)
    for at in marks.all(Marker::ToolCalls) {
        if best.is_some_and(|(_, b)| b < at) {
            break;
        }
        let after = at + Marker::ToolCalls.text().len();
        if text[after..].starts_with(scan::is_name_start) {
            best = Some((Shape::Named, at));
            break;
        }
    }
    best
}

/// Whether `marker`, at `at`, is `<function_calls>` around markup (the
/// `<invoke name=...>` elements of XML parameters) rather than around
/// pythonic calls, which start with `[` or a name: the markup decides.
fn wraps_markup(text: &str, marker: Marker, at: usize) -> bool {
    marker == Marker::FunctionCalls
        && text
            .get(at + marker.text().len()..)
            .is_some_and(|body| body.trim_start().starts_with('<'))
}

/// A call from a name and arguments read by a shape reader; a name that is
/// not a plain tool name is an error of that shape.
pub(crate) fn make_call(
    shape: &'static str,
    name: &str,
    arguments: Map<String, Value>,
) -> Result<ToolCall, CallError> {
    if !scan::is_tool_name(name) {
        return Err(CallError::Malformed {
            shape,
            detail: format!("`{}` is not a tool name", scan::shorten(name)),
        });
    }
    ToolCall::new(name, arguments).ok_or_else(|| CallError::Malformed {
        shape,
        detail: "the tool name is empty".to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{Reading, Scan, ToolSpec, read_counting};

    /// Most steps a reading may take per byte of input.
    const STEPS_PER_BYTE: usize = 200;

    fn steps(text: &str) -> usize {
        let tools = [ToolSpec::new("ls", serde_json::json!({"type": "object"}))];
        let mut scan = Scan::new();
        let _ = read_counting(text, &tools, &mut scan);
        scan.steps
    }

    #[test]
    fn pathological_inputs_take_linear_steps() {
        const N: usize = 2_000;
        let cases = [
            "<think>[TOOL_CALLS]".repeat(N),
            "[a(b=[a(b=".repeat(N),
            "<tool_call>".repeat(N),
            "<function=x>".repeat(N),
            "<function=x><parameter=a>".repeat(N),
            "invoke name=\"a\">".repeat(N),
            "<|tool_call>call:a{".repeat(N),
            "<|tool_call_begin|>".repeat(N),
            "to=functions.a".repeat(N),
            "[TOOL_CALLS]a".repeat(N),
            format!("[\"{}", "[1,".repeat(N)),
            format!("{{\"a\": \"{}", "{".repeat(N)),
            "[1,1,1,".repeat(N),
            "[\"[1,1,1,1,1,1\",".repeat(N),
            "{\"a\": [".repeat(N),
            "[TOOL_CALLS]a{".repeat(N),
            "[TOOL_CALLS]a[ARGS]{\"x\": \"".repeat(N),
            "[TOOL_CALLS]a{\"x\": \"[TOOL_CALLS]".repeat(N),
            "<tool_call>a<arg_key>".repeat(N),
            "ls(".repeat(N),
            "[ls(a=1)".repeat(N),
            "{\"name\": \"ls\"".repeat(N),
            "<|tool_call_start|>".repeat(N),
            "```tool_code x".repeat(N),
            "```tool_code\n".repeat(N),
            "<|python_start|>a()<|python_end|>```tool_code x".repeat(N),
            "```tool_code\nprint(a(".repeat(N),
            "````".repeat(N),
            "<tool_call>{\"name\": \"a\"}</tool_call><tool_response>".repeat(N),
            "<tool_response>".repeat(N),
            "Action: a\nAction Input: {".repeat(N),
            "Action Input: Action:".repeat(N),
            "<tool_name>".repeat(N),
            "<ls>".repeat(N),
            "\u{273f}FUNCTION\u{273f}: a\n\u{273f}ARGS\u{273f}: {".repeat(N),
            "\u{273f}ARGS\u{273f}\u{273f}FUNCTION\u{273f}".repeat(N),
            // objects after a listed tool's name, with blanks and indexes
            "ls {}      ".repeat(N),
            "functions.ls:0{}".repeat(N),
            format!("{}{{}}", "ls {} 0000000".repeat(N)),
            // text outside XML parameters
            "<invoke name=\"a\"> x".repeat(N),
            format!(
                "<function=a>{}</function>",
                "<parameter=b>c</parameter> <x> ".repeat(N)
            ),
            format!("<function=a>{}", "<p> <q> </r>".repeat(N)),
            format!("Action: a\n{}", "Action Input: {}\n".repeat(N)),
            "<function name=\"a\"><param name=\"b\">".repeat(N),
            "</think><think>".repeat(N),
            // calls with no arguments in a value that needs repair
            format!("[{}", "{'name': 'a', 'arguments': {x}},".repeat(N)),
            format!("[{}", "{'name': 'a'}, arguments: {".repeat(N)),
            // values never closed, tags never ended
            "<parameter=".repeat(N),
            format!("{}</parameter>", "<parameter=".repeat(N)),
            format!("{}</param>", "<param ".repeat(N)),
            format!("{}</parameter>", "<parameter=a>".repeat(N)),
            format!("{}</parameter>", "<parameter=a><![CDATA[".repeat(N)),
            // Functionary's messages, and `>>>` inside JSON values
            ">>>a\n{}".repeat(N),
            ">>>a\n".repeat(N),
            "{}>>>".repeat(N),
            format!("a\n{}", "{\"x\": \">>>a\n\"}".repeat(N)),
            // GLM-4's turns, ChatGLM3's fences
            "<|assistant|>a\n{}".repeat(N),
            "<|assistant|>a\n```python\ntool_call(b=1)\n```".repeat(N),
            format!("a\n```python\n{}```", "tool_call(b=1)".repeat(N)),
            // CDATA that is never closed, in each XML dialect
            "<function=x><parameter=a><![CDATA[".repeat(N),
            format!("<function=x>{}", "<parameter=a><![CDATA[".repeat(N)),
            format!(
                "<invoke name=\"x\">{}",
                "<parameter name=\"a\"><![CDATA[".repeat(N)
            ),
            format!(
                "<tool_call>x{}",
                "<arg_key>a</arg_key><arg_value><![CDATA[".repeat(N)
            ),
            format!(
                "<function name=\"x\">{}",
                "<param name=\"a\"><![CDATA[".repeat(N)
            ),
        ];
        let slow: Vec<String> = cases
            .iter()
            .filter_map(|text| {
                let taken = steps(text);
                (taken > STEPS_PER_BYTE * text.len()).then(|| {
                    format!(
                        "{taken} steps for {} bytes of {:?}",
                        text.len(),
                        &text[..40]
                    )
                })
            })
            .collect();
        assert!(slow.is_empty(), "{}", slow.join("\n"));
    }

    proptest! {
        #[test]
        fn any_text_is_calls_no_call_or_an_error(text in "(\\PC|>>>|>>>a\\n|<\\|assistant\\|>a\\n|```python\\ntool_call\\(|\\n|<tool_call>|</think>|<think>|\\[|\\]|\\(|\\)|=|'|\\{|\\}|<\\|tool_call>call:|```tool_code\\n|```|<function=|<parameter=|\\[TOOL_CALLS\\]|Action: |Action Input: |Observation:|✿FUNCTION✿: |✿ARGS✿: |✿RESULT✿|<function_calls>|<invoke name=|<tool_response>|\\[TOOL_RESULTS\\])*") {
            let tools = [ToolSpec::new("ls", serde_json::json!({"type": "object"}))];
            let mut scan = Scan::new();
            match read_counting(&text, &tools, &mut scan) {
                Reading::Calls(calls) => prop_assert!(!calls.is_empty()),
                Reading::NoCall | Reading::Unreadable { .. } => {}
            }
            prop_assert!(scan.steps <= STEPS_PER_BYTE * (text.len() + 1));
        }
    }
}
