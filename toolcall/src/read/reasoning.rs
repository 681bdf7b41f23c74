//! Reasoning blocks, skipped before any call is read: a call the model
//! only thought about is not a call.

use super::scan::Scan;

/// The blocks, as (opening, closing) markers.
const BLOCKS: &[(&str, &str)] = &[
    ("<think>", "</think>"),
    ("<seed:think>", "</seed:think>"),
    ("[THINK]", "[/THINK]"),
    ("<|START_THINKING|>", "<|END_THINKING|>"),
    ("<|channel>thought", "<channel|>"),
];

/// Markers that only a model's answer holds (single tokens of its
/// vocabulary): an unclosed reasoning block ends at the first of them.
const ANSWER_MARKERS: &[&str] = &[
    "<|tool_call",
    "<\u{ff5c}tool",
    "<|tool\u{2581}",
    "<|python_",
    "[TOOL_CALLS]",
    "<\u{ff5c}DSML\u{ff5c}",
    "<|START_ACTION|>",
    "<start_function_call>",
];

/// The text without its reasoning blocks: a closing marker with no opening
/// one before it ends reasoning the reply started in; an opening marker
/// never closed runs to the first answer marker, or to the end.
pub(crate) fn strip(text: &str, scan: &mut Scan) -> String {
    let mut text = text.to_owned();
    for (open, close) in BLOCKS {
        text = strip_block(&text, open, close, scan);
    }
    text
}

fn strip_block(text: &str, open: &str, close: &str, scan: &mut Scan) -> String {
    let first_close = scan.find(text, 0, close);
    let first_open = scan.find(text, 0, open);
    let mut from = match (first_open, first_close) {
        (None, None) => return text.to_owned(),
        (open_at, Some(close_at)) if open_at.is_none_or(|o| close_at < o) => close_at + close.len(),
        _ => 0,
    };
    let mut out = String::with_capacity(text.len());
    // once a search fails, it fails from every later offset too: remember
    // it, so that the walk stays linear
    let mut closes = true;
    let mut answers: Vec<Option<usize>> = ANSWER_MARKERS
        .iter()
        .map(|marker| scan.find(text, 0, marker))
        .collect();
    while let Some(at) = scan.find(text, from, open) {
        out.push_str(&text[from..at]);
        let body = at + open.len();
        let end = if closes {
            scan.find(text, body, close)
        } else {
            None
        };
        match end {
            Some(end) => from = end + close.len(),
            None => {
                closes = false;
                for (found, marker) in answers.iter_mut().zip(ANSWER_MARKERS) {
                    if found.is_some_and(|f| f < body) {
                        *found = scan.find(text, body, marker);
                    }
                }
                match answers.iter().flatten().min() {
                    Some(answer) => from = *answer,
                    None => return out,
                }
            }
        }
    }
    out.push_str(&text[from..]);
    out
}
