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
    ActionLine = "Action:",
    ActionInput = "Action Input:",
    Observation = "Observation:",
    QwenFunction = "\u{273f}FUNCTION\u{273f}",
    QwenArgs = "\u{273f}ARGS\u{273f}",
    QwenReturn = "\u{273f}RETURN\u{273f}",
    // a tool's result, which only the tool writes: a model writing one is
    // imagining it
    ToolResponse = "<tool_response>",
    ToolResults = "[TOOL_RESULTS]",
    GlmObservation = "<|observation|>",
    DeepseekOutput = "tool\u{2581}output",
    IpythonHeader = "<|start_header_id|>ipython",
    IpythonHeader4 = "<|header_start|>ipython",
    ChatmlTool = "<|im_start|>tool",
    CohereToolResult = "<|START_TOOL_RESULT|>",
    GemmaFunctionResponse = "<start_function_response>",
    ToolOutputFence = "```tool_output",
    HarmonyToolMessage = "<|start|>functions.",
    QwenResult = "\u{273f}RESULT\u{273f}",
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
    ToolNameTag = "<tool_name>",
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
    ToolCodeFence = "```tool_code",
    Fence = "```",
}

/// One marker of the table: its first eight bytes as a little-endian
/// word (zero-padded) with the mask of the bytes it has, so that most
/// places are told apart by one comparison of words instead of a `memcmp`.
struct Entry {
    marker: Marker,
    head: u64,
    mask: u64,
}

/// Every marker, grouped by its first two bytes: `ranges[group(first)]
/// [second]` is the run of `entries` that may start with those two bytes.
struct Table {
    entries: Vec<Entry>,
    /// For each first byte, 1 + its row of `ranges` (0: no marker starts
    /// with that byte).
    rows: [u8; 256],
    ranges: Vec<[(u8, u8); 256]>,
}

/// The first eight bytes of `bytes` as a little-endian word, zero-padded.
fn head(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    let n = bytes.len().min(8);
    word[..n].copy_from_slice(&bytes[..n]);
    u64::from_le_bytes(word)
}

static TABLE: LazyLock<Table> = LazyLock::new(|| {
    let mut markers: Vec<Marker> = Marker::ALL.to_vec();
    // every marker has two bytes (a test checks it)
    markers.sort_by_key(|marker| marker.text().as_bytes().get(..2).map(<[u8]>::to_vec));
    let entries: Vec<Entry> = markers
        .iter()
        .map(|marker| {
            let bytes = marker.text().as_bytes();
            let n = bytes.len().min(8);
            Entry {
                marker: *marker,
                head: head(bytes),
                mask: if n == 8 {
                    u64::MAX
                } else {
                    (1u64 << (8 * n)) - 1
                },
            }
        })
        .collect();
    let mut rows = [0u8; 256];
    let mut ranges: Vec<[(u8, u8); 256]> = Vec::new();
    for (i, marker) in markers.iter().enumerate() {
        let [first, second, ..] = *marker.text().as_bytes() else {
            continue;
        };
        if rows[usize::from(first)] == 0 {
            ranges.push([(0, 0); 256]);
            rows[usize::from(first)] = u8::try_from(ranges.len()).unwrap_or(0);
        }
        let row = usize::from(rows[usize::from(first)]) - 1;
        let i = u8::try_from(i).unwrap_or(u8::MAX);
        let range = &mut ranges[row][usize::from(second)];
        if range.0 == range.1 {
            *range = (i, i + 1);
        } else {
            range.1 = i + 1;
        }
    }
    Table {
        entries,
        rows,
        ranges,
    }
});

/// Where every marker occurs in one text.
#[derive(Debug, Default)]
pub(crate) struct Marks {
    /// Every occurrence, as (marker, offset), sorted.
    found: Vec<(Marker, usize)>,
    /// Bit `marker as u64` is set when the text holds `marker`: most
    /// markers are absent from a reply, and their searches end here.
    present: u128,
}

impl Marks {
    /// The markers of `text`, in one pass.
    ///
    /// Every marker starts with `<`, `[`, `]`, a backtick (the fences of
    /// Gemma's calls) or Qwen-Agent's `✿`, except eight whose `=`,
    /// `▁` or `:` sits at a fixed offset (`to=functions.`, `invoke name=`,
    /// `tool▁sep`, `Action Input:`...): memchr finds those bytes (`✿` and
    /// `▁` share their first), and only the markers that
    /// share the first two bytes of such a place are compared there.
    /// Replies are mostly text between a few markers, so this visits few
    /// bytes beyond memchr's pass.
    pub(crate) fn of(text: &str, scan: &mut Scan) -> Marks {
        scan.count(text.len());
        let table = &*TABLE;
        let mut found = Vec::with_capacity(8);
        let bytes = text.as_bytes();
        for at in memchr::memchr3_iter(b'<', b'[', b']', bytes) {
            starting_at(table, bytes, at, &mut found, scan);
        }
        for at in memchr::memchr_iter(b'`', bytes) {
            starting_at(table, bytes, at, &mut found, scan);
        }
        for at in memchr::memchr3_iter(b'=', 0xE2, b':', bytes) {
            // `to=`, `invoke name=`, `tool▁`, `Action:`, `Action Input:`,
            // `Observation:`
            let back: &[usize] = match bytes[at] {
                b'=' => &[2, 11],
                b':' => &[6, 11, 12],
                // `tool▁`, and Qwen-Agent's `✿FUNCTION✿` that starts there
                _ => &[4, 0],
            };
            for start in back.iter().filter_map(|back| at.checked_sub(*back)) {
                if matches!(bytes.get(start), Some(b't' | b'i' | b'A' | b'O' | 0xE2)) {
                    starting_at(table, bytes, start, &mut found, scan);
                }
            }
        }
        found.sort_unstable();
        found.dedup();
        let present = found
            .iter()
            .fold(0, |present, (marker, _)| present | bit(*marker));
        Marks { found, present }
    }

    /// The markers outside `spans` (sorted, disjoint byte ranges): those
    /// strictly inside one are left out.
    pub(crate) fn outside(self, spans: &[std::ops::Range<usize>]) -> Marks {
        if spans.is_empty() {
            return self;
        }
        let inside = |at: usize| {
            let i = spans.partition_point(|span| span.end <= at);
            spans.get(i).is_some_and(|span| span.start < at)
        };
        let found: Vec<(Marker, usize)> = self
            .found
            .iter()
            .copied()
            .filter(|(_, at)| !inside(*at))
            .collect();
        let present = found
            .iter()
            .fold(0, |present, (marker, _)| present | bit(*marker));
        Marks { found, present }
    }

    /// Whether the text holds `marker`.
    pub(crate) fn has(&self, marker: Marker) -> bool {
        self.present & bit(marker) != 0
    }

    /// Whether the text holds any of `markers`.
    pub(crate) fn any(&self, markers: &[Marker]) -> bool {
        markers.iter().any(|marker| self.has(*marker))
    }

    /// The first `marker` at or after `from`.
    pub(crate) fn next(&self, marker: Marker, from: usize) -> Option<usize> {
        if !self.has(marker) {
            return None;
        }
        let i = self.found.partition_point(|hit| *hit < (marker, from));
        match self.found.get(i) {
            Some((found, at)) if *found == marker => Some(*at),
            _ => None,
        }
    }

    /// The first occurrence, from `from` on, of any of `markers`.
    pub(crate) fn first_of(
        &self,
        scan: &mut Scan,
        markers: &[Marker],
        from: usize,
    ) -> Option<usize> {
        markers
            .iter()
            .filter_map(|marker| self.find(scan, *marker, from))
            .min()
    }

    /// [`Marks::next`], counting one step.
    pub(crate) fn find(&self, scan: &mut Scan, marker: Marker, from: usize) -> Option<usize> {
        scan.count(1);
        self.next(marker, from)
    }

    /// The last `marker` before `before`.
    pub(crate) fn last_before(&self, marker: Marker, before: usize) -> Option<usize> {
        if !self.has(marker) {
            return None;
        }
        let i = self.found.partition_point(|hit| *hit < (marker, before));
        match i.checked_sub(1).and_then(|i| self.found.get(i)) {
            Some((found, at)) if *found == marker => Some(*at),
            _ => None,
        }
    }

    /// Every occurrence of `marker`, in order.
    pub(crate) fn all(&self, marker: Marker) -> impl Iterator<Item = usize> + '_ {
        let i = if self.has(marker) {
            self.found.partition_point(|hit| hit.0 < marker)
        } else {
            self.found.len()
        };
        self.found[i..]
            .iter()
            .take_while(move |(found, _)| *found == marker)
            .map(|(_, at)| *at)
    }
}

/// The bit of `marker` in [`Marks::present`] (there are at most 128
/// markers: a test checks it).
fn bit(marker: Marker) -> u128 {
    1u128 << (marker as u32 % 128)
}

/// Every marker that starts at `at`.
fn starting_at(
    table: &Table,
    bytes: &[u8],
    at: usize,
    found: &mut Vec<(Marker, usize)>,
    scan: &mut Scan,
) {
    let Some(rest) = bytes.get(at..) else {
        return;
    };
    let [first, second, ..] = *rest else {
        return;
    };
    let row = usize::from(table.rows[usize::from(first)]);
    let Some(ranges) = row.checked_sub(1).and_then(|row| table.ranges.get(row)) else {
        return;
    };
    let (from, to) = ranges[usize::from(second)];
    let Some(entries) = table.entries.get(usize::from(from)..usize::from(to)) else {
        return;
    };
    let word = head(rest);
    for entry in entries {
        scan.count(1);
        if word & entry.mask == entry.head
            && rest.get(8..).is_none_or(|tail| {
                tail.starts_with(entry.marker.text().as_bytes().get(8..).unwrap_or(&[]))
            })
        {
            found.push((entry.marker, at));
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
            let anchored = matches!(bytes[0], b'<' | b'[' | b']' | b'`')
                || matches!(
                    marker.text(),
                    "to=functions." | "invoke name=" | "Action:" | "Action Input:" | "Observation:"
                )
                || bytes.get(4) == Some(&0xE2)
                || bytes[0] == 0xE2;
            assert!(bytes.len() >= 2 && anchored, "{marker:?}");
        }
        assert!(Marker::ALL.len() <= 128);
    }

    proptest! {
        #[test]
        fn the_table_agrees_with_a_search_for_each_marker(
            pieces in proptest::collection::vec(
                prop_oneof![
                    proptest::sample::select(Marker::ALL).prop_map(|m| m.text().to_owned()),
                    "[a-zAIO<>=:\\[\\]|/ ▁｜`✿]{0,4}",
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
