//! Every marker of every format, found in one pass over the text.
//!
//! The readers decide from markers: which shape a reply is, where a call
//! starts and ends. Searching for each marker on its own meant some sixty
//! passes over every reply, most of them finding nothing (and building a
//! searcher for each cost more than the search); instead one memchr pass
//! finds every place a marker may start, every marker that starts there
//! is recorded (overlapping ones too, so `<|tool_call` is found inside
//! `<|tool_call>call:`), and the readers look occurrences up in the table:
//! a reader runs only when its markers are there, and each of its searches
//! is a binary search, not a scan.

use std::sync::LazyLock;

use super::scan::Scan;

macro_rules! markers {
    ($($marker:ident = $text:expr,)*) => {
        /// A marker the readers act on.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
        pub(crate) enum Marker {
            $($marker,)*
        }

        impl Marker {
            /// Every marker, in the order of the enum.
            pub(crate) const ALL: &[Marker] = &[$(Marker::$marker,)*];

            /// The marker's text.
            pub(crate) const fn text(self) -> &'static str {
                match self {
                    $(Marker::$marker => $text,)*
                }
            }
        }
    };
}

markers! {
    // reasoning blocks
    Think = "<think>",
    ThinkEnd = "</think>",
    SeedThink = "<seed:think>",
    SeedThinkEnd = "</seed:think>",
    ThinkBracket = "[THINK]",
    ThinkBracketEnd = "[/THINK]",
    StartThinking = "<|START_THINKING|>",
    EndThinking = "<|END_THINKING|>",
    ChannelThought = "<|channel>thought",
    ChannelEnd = "<channel|>",
    // markers only an answer holds (they end a reasoning block never closed)
    AnswerToolCall = "<|tool_call",
    AnswerFullwidthTool = "<\u{ff5c}tool",
    AnswerToolBlock = "<|tool\u{2581}",
    AnswerPython = "<|python_",
    AnswerDsml = "<\u{ff5c}DSML\u{ff5c}",
    AnswerStartAction = "<|START_ACTION|>",
    // name outside the JSON
    DeepseekBegin = "tool\u{2581}call\u{2581}begin",
    DeepseekSep = "tool\u{2581}sep",
    DeepseekEnd = "tool\u{2581}call\u{2581}end",
    KimiBegin = "<|tool_call_begin|>",
    KimiArguments = "<|tool_call_argument_begin|>",
    ToolCallEndToken = "<|tool_call_end|>",
    HarmonyTo = "to=functions.",
    HarmonyMessage = "<|message|>",
    HarmonyCall = "<|call|>",
    HarmonyEnd = "<|end|>",
    HarmonyStart = "<|start|>",
    ToolCalls = "[TOOL_CALLS]",
    ToolCallsEnd = "[/TOOL_CALLS]",
    Args = "[ARGS]",
    CallId = "[CALL_ID]",
    // XML parameters
    FunctionEq = "<function=",
    FunctionEnd = "</function>",
    ParameterEq = "<parameter=",
    ParameterEnd = "</parameter>",
    InvokeName = "invoke name=",
    ArgKey = "<arg_key>",
    ArgKeyEnd = "</arg_key>",
    ArgValue = "<arg_value>",
    ArgValueEnd = "</arg_value>",
    FunctionName = "<function name=",
    Param = "<param ",
    ParamEnd = "</param>",
    CdataEnd = "]]>",
    // JSON in markers
    ToolCall = "<tool_call>",
    ToolCallEnd = "</tool_call>",
    ToolsPrefix = "<|tools_prefix|>",
    PythonTag = "<|python_tag|>",
    // Gemma
    StartFunctionCall = "<start_function_call>",
    StartFunctionCallCall = "<start_function_call>call:",
    GemmaToolCall = "<|tool_call>call:",
    // pythonic calls in markers
    LfmStart = "<|tool_call_start|>",
    FunctionCalls = "<function_calls>",
    FunctionCallsEnd = "</function_calls>",
    PythonStart = "<|python_start|>",
    PythonEnd = "<|python_end|>",
}

/// The automaton over every marker; `None` only if it could not be built,
/// in which case [`Marks::of`] searches for each marker on its own.
/// Every marker, sorted by its first two bytes: the markers that may
/// start at a place are the run that shares its first two bytes.
static BY_START: LazyLock<Vec<(u16, Marker)>> = LazyLock::new(|| {
    let mut table: Vec<(u16, Marker)> = Marker::ALL
        .iter()
        .map(|marker| match marker.text().as_bytes() {
            [first, second, ..] => (u16::from_be_bytes([*first, *second]), *marker),
            // every marker has two bytes (a test checks it)
            _ => (0, *marker),
        })
        .collect();
    table.sort_unstable();
    table
});

/// Where every marker occurs in one text.
#[derive(Debug, Default)]
pub(crate) struct Marks {
    /// Every occurrence, as (marker, offset), sorted.
    found: Vec<(Marker, usize)>,
}

impl Marks {
    /// The markers of `text`, in one pass.
    ///
    /// Every marker starts with `<`, `[` or `]`, except five whose `=` or
    /// `▁` sits at a fixed offset (`to=functions.`, `invoke name=`,
    /// `tool▁sep`...): memchr finds those bytes, and only the markers that
    /// share the first two bytes of such a place are compared there.
    /// Replies are mostly text between a few markers, so this visits few
    /// bytes beyond memchr's pass.
    pub(crate) fn of(text: &str, scan: &mut Scan) -> Marks {
        scan.count(text.len());
        let mut found = Vec::with_capacity(8);
        let bytes = text.as_bytes();
        for at in memchr::memchr3_iter(b'<', b'[', b']', bytes) {
            starting_at(bytes, at, &mut found, scan);
        }
        for at in memchr::memchr2_iter(b'=', 0xE2, bytes) {
            // `to=`, `invoke name=`, `tool▁`
            let back: &[usize] = if bytes[at] == b'=' { &[2, 11] } else { &[4] };
            for start in back.iter().filter_map(|back| at.checked_sub(*back)) {
                if matches!(bytes.get(start), Some(b't' | b'i')) {
                    starting_at(bytes, start, &mut found, scan);
                }
            }
        }
        found.sort_unstable();
        found.dedup();
        Marks { found }
    }

    /// Whether the text holds `marker`.
    pub(crate) fn has(&self, marker: Marker) -> bool {
        self.next(marker, 0).is_some()
    }

    /// Whether the text holds any of `markers`.
    pub(crate) fn any(&self, markers: &[Marker]) -> bool {
        markers.iter().any(|marker| self.has(*marker))
    }

    /// The first `marker` at or after `from`.
    pub(crate) fn next(&self, marker: Marker, from: usize) -> Option<usize> {
        let i = self.found.partition_point(|hit| *hit < (marker, from));
        match self.found.get(i) {
            Some((found, at)) if *found == marker => Some(*at),
            _ => None,
        }
    }

    /// [`Marks::next`], counting one step.
    pub(crate) fn find(&self, scan: &mut Scan, marker: Marker, from: usize) -> Option<usize> {
        scan.count(1);
        self.next(marker, from)
    }

    /// The last `marker` before `before`.
    pub(crate) fn last_before(&self, marker: Marker, before: usize) -> Option<usize> {
        let i = self.found.partition_point(|hit| *hit < (marker, before));
        match i.checked_sub(1).and_then(|i| self.found.get(i)) {
            Some((found, at)) if *found == marker => Some(*at),
            _ => None,
        }
    }

    /// Every occurrence of `marker`, in order.
    pub(crate) fn all(&self, marker: Marker) -> impl Iterator<Item = usize> + '_ {
        let i = self.found.partition_point(|hit| hit.0 < marker);
        self.found[i..]
            .iter()
            .take_while(move |(found, _)| *found == marker)
            .map(|(_, at)| *at)
    }
}

/// Every marker that starts at `at`.
fn starting_at(bytes: &[u8], at: usize, found: &mut Vec<(Marker, usize)>, scan: &mut Scan) {
    let Some(rest) = bytes.get(at..) else {
        return;
    };
    let [first, second, ..] = *rest else {
        return;
    };
    let key = u16::from_be_bytes([first, second]);
    let table = BY_START.as_slice();
    let from = table.partition_point(|(start, _)| *start < key);
    for (start, marker) in &table[from..] {
        if *start != key {
            break;
        }
        scan.count(1);
        if rest.starts_with(marker.text().as_bytes()) {
            found.push((*marker, at));
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{Marker, Marks, Scan};

    #[test]
    fn every_marker_is_found_where_a_search_finds_it() {
        let text = "x<|tool_call>call:a{}<tool_call|> <think></think><|tool_call_begin|>\
                    [TOOL_CALLS]]]>]]>é<tool_call>";
        let marks = Marks::of(text, &mut Scan::new());
        for marker in Marker::ALL {
            let mut from = 0;
            while from <= text.len() {
                if text.is_char_boundary(from) {
                    let want = text[from..].find(marker.text()).map(|at| from + at);
                    assert_eq!(marks.next(*marker, from), want, "{marker:?} from {from}");
                }
                from += 1;
            }
        }
        assert_eq!(marks.all(Marker::CdataEnd).collect::<Vec<_>>(), [80, 83]);
        assert_eq!(marks.last_before(Marker::Think, 100), Some(34));
        assert_eq!(marks.last_before(Marker::Think, 34), None);
    }

    #[test]
    fn every_marker_has_two_bytes_and_a_known_start() {
        for marker in Marker::ALL {
            let bytes = marker.text().as_bytes();
            let anchored = matches!(bytes[0], b'<' | b'[' | b']')
                || matches!(marker.text(), "to=functions." | "invoke name=")
                || bytes.get(4) == Some(&0xE2);
            assert!(bytes.len() >= 2 && anchored, "{marker:?}");
        }
    }

    proptest! {
        #[test]
        fn the_table_agrees_with_a_search_for_each_marker(
            pieces in proptest::collection::vec(
                prop_oneof![
                    proptest::sample::select(Marker::ALL).prop_map(|m| m.text().to_owned()),
                    "[a-z<>=\\[\\]|/ ▁｜]{0,4}",
                ],
                0..12,
            )
        ) {
            let text = pieces.concat();
            let marks = Marks::of(&text, &mut Scan::new());
            for marker in Marker::ALL {
                let mut want = Vec::new();
                let mut from = 0;
                while let Some(at) = text.get(from..).and_then(|rest| rest.find(marker.text())) {
                    want.push(from + at);
                    from += at + 1;
                    while !text.is_char_boundary(from) {
                        from += 1;
                    }
                }
                let got: Vec<usize> = marks.all(*marker).collect();
                prop_assert_eq!(got, want, "{:?} in {:?}", marker, text);
            }
        }
    }
}
