//! Reasoning blocks, skipped before any call is read: a call the model
//! only thought about is not a call.

use super::marks::{Marker, Marks};
use super::scan::Scan;

/// The blocks, as (opening, closing) markers, cut out in this order.
const BLOCKS: &[(Marker, Marker)] = &[
    (Marker::Think, Marker::ThinkEnd),
    (Marker::SeedThink, Marker::SeedThinkEnd),
    (Marker::ThinkBracket, Marker::ThinkBracketEnd),
    (Marker::StartThinking, Marker::EndThinking),
    (Marker::ChannelThought, Marker::ChannelEnd),
];

/// Markers that only a model's answer holds (single tokens of its
/// vocabulary): an unclosed reasoning block ends at the first of them.
const ANSWER_MARKERS: &[Marker] = &[
    Marker::AnswerToolCall,
    Marker::AnswerFullwidthTool,
    Marker::AnswerToolBlock,
    Marker::AnswerPython,
    Marker::ToolCalls,
    Marker::AnswerDsml,
    Marker::AnswerStartAction,
    Marker::StartFunctionCall,
];

/// The text without its reasoning blocks, and its markers: a closing
/// marker with no opening one before it ends reasoning the reply started
/// in; an opening marker never closed runs to the first answer marker, or
/// to the end. `None` when the text (whose markers are `marks`) holds no
/// reasoning marker: the text is read as it is, not copied.
pub(crate) fn strip(text: &str, marks: &Marks, scan: &mut Scan) -> Option<(String, Marks)> {
    let mut stripped: Option<(String, Marks)> = None;
    for (open, close) in BLOCKS {
        let (current, current_marks) = match &stripped {
            Some((text, marks)) => (text.as_str(), marks),
            None => (text, marks),
        };
        if let Some(next) = strip_block(current, current_marks, *open, *close) {
            // the markers of what is left: cutting a block out may join
            // two pieces into a marker
            let next_marks = Marks::of(&next, scan);
            stripped = Some((next, next_marks));
        }
    }
    stripped
}

/// The text without the blocks of one kind; `None` when it has none.
fn strip_block(text: &str, marks: &Marks, open: Marker, close: Marker) -> Option<String> {
    let first_close = marks.next(close, 0);
    let first_open = marks.next(open, 0);
    let mut from = match (first_open, first_close) {
        (None, None) => return None,
        (open_at, Some(close_at)) if open_at.is_none_or(|o| close_at < o) => {
            close_at + close.text().len()
        }
        _ => 0,
    };
    let mut out = String::with_capacity(text.len());
    while let Some(at) = marks.next(open, from) {
        out.push_str(&text[from..at]);
        let body = at + open.text().len();
        match marks.next(close, body) {
            Some(end) => from = end + close.text().len(),
            None => {
                let answer = ANSWER_MARKERS
                    .iter()
                    .filter_map(|marker| marks.next(*marker, body))
                    .min();
                match answer {
                    Some(answer) => from = answer,
                    None => return Some(out),
                }
            }
        }
    }
    out.push_str(&text[from..]);
    Some(out)
}
