//! Bounded capture of a child's output: a head and a tail of fixed size, and a
//! count of everything in between.

/// What was kept of a call's output: its head, its tail and how much was
/// dropped between them.
///
/// Memory is bounded by the budget whatever the child writes. The kept bytes
/// are raw; [`text`](Self::text) renders them for a model: the cut never
/// splits a UTF-8 character, invalid UTF-8 becomes U+FFFD, NUL and other
/// control characters (except newline, tab, and a carriage return before a
/// newline) become their visible Unicode pictures (`␀`, `␛`, `␍`...), and
/// the C1 controls (U+0080 to U+009F, which some terminals obey as escape
/// sequences) become U+FFFD: nothing the program prints can move a
/// terminal's cursor or rewrite a line already shown.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Output {
    head: Vec<u8>,
    tail: Vec<u8>,
    total: u64,
}

impl Output {
    /// Bytes the child wrote in all (stdout and stderr together).
    pub fn total_bytes(&self) -> u64 {
        self.total
    }

    /// Bytes left out of [`text`](Self::text) (0 when nothing was cut).
    pub fn dropped_bytes(&self) -> u64 {
        self.total - (self.head.len() + self.tail.len()) as u64
    }

    /// Whether anything was cut.
    pub fn is_truncated(&self) -> bool {
        self.dropped_bytes() > 0
    }

    /// The kept bytes, head then tail, without the omission mark.
    pub fn kept_bytes(&self) -> Vec<u8> {
        let mut bytes = self.head.clone();
        bytes.extend_from_slice(&self.tail);
        bytes
    }

    /// The output rendered for a model, with `[... N bytes omitted ...]`
    /// where the middle was cut.
    pub fn text(&self) -> String {
        let mut text = String::with_capacity(self.rendered_len_hint());
        self.write_text(&mut text);
        text
    }

    /// About how many bytes [`text`](Self::text) takes (exact unless
    /// control bytes or invalid UTF-8 are replaced).
    pub(crate) fn rendered_len_hint(&self) -> usize {
        self.head.len() + self.tail.len() + if self.is_truncated() { 48 } else { 0 }
    }

    /// Appends [`text`](Self::text) to `text`, rendering the kept bytes
    /// straight into it (no copy of the output in between, so a call's
    /// memory stays within the capture and its one rendering).
    pub(crate) fn write_text(&self, text: &mut String) {
        let start = text.len();
        push_safe(text, &self.head);
        if self.is_truncated() {
            if text.len() > start && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str("[... ");
            text.push_str(&self.dropped_bytes().to_string());
            text.push_str(" bytes omitted ...]\n");
        }
        push_safe(text, &self.tail);
    }
}

/// Collects output into a bounded head and tail while counting the total.
#[derive(Debug)]
pub(crate) struct Capture {
    head: Vec<u8>,
    head_cap: usize,
    ring: Vec<u8>,
    ring_cap: usize,
    /// Next write position in `ring` once it is full.
    ring_pos: usize,
    total: u64,
}

impl Capture {
    /// A capture keeping at most `budget` bytes in all.
    pub(crate) fn new(budget: usize) -> Self {
        let head_cap = budget / 2;
        let ring_cap = budget - head_cap;
        Self {
            head: Vec::with_capacity(head_cap.min(64 * 1024)),
            head_cap,
            ring: Vec::with_capacity(ring_cap.min(64 * 1024)),
            ring_cap,
            ring_pos: 0,
            total: 0,
        }
    }

    /// Bytes seen so far.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// Takes one chunk of output.
    pub(crate) fn push(&mut self, mut chunk: &[u8]) {
        self.total += chunk.len() as u64;
        let room = self.head_cap - self.head.len();
        if room > 0 {
            let take = room.min(chunk.len());
            self.head.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
        }
        if chunk.is_empty() || self.ring_cap == 0 {
            return;
        }
        if chunk.len() >= self.ring_cap {
            self.ring.clear();
            self.ring
                .extend_from_slice(&chunk[chunk.len() - self.ring_cap..]);
            self.ring_pos = 0;
            return;
        }
        let fill = (self.ring_cap - self.ring.len()).min(chunk.len());
        self.ring.extend_from_slice(&chunk[..fill]);
        for &byte in &chunk[fill..] {
            self.ring[self.ring_pos] = byte;
            self.ring_pos = (self.ring_pos + 1) % self.ring_cap;
        }
    }

    /// The kept head and tail, cut on UTF-8 character boundaries.
    pub(crate) fn finish(self) -> Output {
        // The ring's oldest byte first, rotated in place: no second copy of
        // the tail while the ring is alive.
        let mut tail = self.ring;
        if tail.len() == self.ring_cap && self.ring_pos > 0 {
            tail.rotate_left(self.ring_pos);
        }
        let mut head = self.head;
        let kept = (head.len() + tail.len()) as u64;
        if self.total > kept {
            // Something was cut between head and tail: do not split a
            // character on either side of the cut.
            let end = utf8_safe_end(&head);
            head.truncate(end);
            let start = utf8_safe_start(&tail);
            tail.drain(..start);
        }
        Output {
            head,
            tail,
            total: self.total,
        }
    }
}

/// The length of the longest prefix of `bytes` that does not end inside a
/// UTF-8 character that continues past the end.
fn utf8_safe_end(bytes: &[u8]) -> usize {
    // Look back at most 3 bytes for the start of the last character.
    let len = bytes.len();
    for back in 1..=len.min(4) {
        let byte = bytes[len - back];
        if byte & 0b1100_0000 == 0b1000_0000 {
            continue; // a continuation byte: keep looking for the lead byte
        }
        let width = match byte {
            0x00..=0x7F => 1,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1, // not a lead byte: invalid anyway, keep it
        };
        return if width > back { len - back } else { len };
    }
    len
}

/// The number of leading continuation bytes (at most 3) of a tail that starts
/// in the middle of a character.
fn utf8_safe_start(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take(3)
        .take_while(|&&b| b & 0b1100_0000 == 0b1000_0000)
        .count()
}

/// Appends `bytes` to `out` as text a model (or a terminal) can read
/// safely: invalid UTF-8 becomes U+FFFD (one per invalid sequence, as
/// `String::from_utf8_lossy` does), control characters other than newline,
/// tab and a carriage return before a newline become their Unicode
/// pictures, C1 controls become U+FFFD. Valid runs are copied whole.
fn push_safe(out: &mut String, bytes: &[u8]) {
    for chunk in bytes.utf8_chunks() {
        let mut rest = chunk.valid();
        while let Some(at) = rest.bytes().position(needs_look) {
            out.push_str(&rest[..at]);
            let tail = &rest.as_bytes()[at..];
            let taken = match tail {
                // A C1 control: two bytes, `0xC2` and one of 0x80..=0x9F.
                [0xC2, second, ..] if (0x80..0xA0).contains(second) => {
                    out.push('\u{FFFD}');
                    2
                }
                // Another character led by `0xC2`: copied.
                [0xC2, _, ..] => {
                    out.push_str(&rest[at..at + 2]);
                    2
                }
                [b'\r', b'\n', ..] => {
                    out.push('\r');
                    1
                }
                [byte, ..] => {
                    out.push(picture(*byte));
                    1
                }
                [] => 0,
            };
            // A control character is one ASCII byte and a character led by
            // `0xC2` two: `at + taken` is a character boundary.
            rest = &rest[at + taken.max(1)..];
        }
        out.push_str(rest);
        if !chunk.invalid().is_empty() {
            out.push('\u{FFFD}');
        }
    }
}

/// Whether a byte starts something shown otherwise: an ASCII control
/// character (newline and tab excepted), or the lead byte of the two-byte
/// characters among which are the C1 controls.
fn needs_look(byte: u8) -> bool {
    (byte < 0x20 && !matches!(byte, b'\n' | b'\t')) || byte == 0x7F || byte == 0xC2
}

/// The Unicode picture of a control byte (`␀` for NUL, `␡` for DEL).
fn picture(byte: u8) -> char {
    if byte == 0x7F {
        '\u{2421}'
    } else {
        char::from_u32(0x2400 + u32::from(byte)).unwrap_or('\u{FFFD}')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture(budget: usize, chunks: &[&[u8]]) -> Output {
        let mut capture = Capture::new(budget);
        for chunk in chunks {
            capture.push(chunk);
        }
        capture.finish()
    }

    #[test]
    fn output_within_budget_is_kept_whole() {
        let output = capture(10, &[b"abc", b"defgh", b"ij"]);
        assert_eq!(output.kept_bytes(), b"abcdefghij");
        assert_eq!(output.dropped_bytes(), 0);
        assert_eq!(output.text(), "abcdefghij");
    }

    #[test]
    fn output_over_budget_keeps_head_and_tail() {
        let output = capture(6, &[b"0123", b"456789", b"ab"]);
        assert_eq!(output.total_bytes(), 12);
        assert_eq!(output.kept_bytes(), b"0129ab");
        assert_eq!(output.dropped_bytes(), 6);
        assert_eq!(output.text(), "012\n[... 6 bytes omitted ...]\n9ab");
    }

    #[test]
    fn ring_wraps_byte_by_byte() {
        let chunks: Vec<Vec<u8>> = (0..50u8).map(|b| vec![b'a' + b % 26]).collect();
        let refs: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
        let output = capture(8, &refs);
        assert_eq!(output.kept_bytes(), b"abcduvwx");
        assert_eq!(output.dropped_bytes(), 42);
    }

    #[test]
    fn zero_budget_keeps_nothing_but_counts() {
        let output = capture(0, &[b"hello"]);
        assert_eq!(output.kept_bytes(), b"");
        assert_eq!(output.dropped_bytes(), 5);
    }

    #[test]
    fn cut_never_splits_a_character() {
        // "é" is two bytes, "€" three, "𝄞" four.
        let text = "ééééé€€€€€𝄞𝄞𝄞𝄞".as_bytes();
        for budget in 0..text.len() {
            for split in 0..text.len() {
                let output = capture(budget, &[&text[..split], &text[split..]]);
                let kept = output.kept_bytes();
                let head = &kept[..output.head.len()];
                let tail = &kept[output.head.len()..];
                assert!(std::str::from_utf8(head).is_ok(), "budget {budget}");
                assert!(std::str::from_utf8(tail).is_ok(), "budget {budget}");
                assert!(!output.text().contains('\u{FFFD}'));
                assert_eq!(
                    output.dropped_bytes() + kept.len() as u64,
                    text.len() as u64
                );
            }
        }
    }

    /// The rendering as first written: a lossy copy, then one character
    /// at a time.
    fn render_by_chars(bytes: &[u8]) -> String {
        let text = String::from_utf8_lossy(bytes);
        let mut chars = text.chars().peekable();
        let mut out = String::new();
        while let Some(c) = chars.next() {
            out.push(match c {
                '\r' if chars.peek() == Some(&'\n') => c,
                '\n' | '\t' => c,
                '\u{0}'..='\u{1F}' => char::from_u32(0x2400 + c as u32).unwrap_or('\u{FFFD}'),
                '\u{7F}' => '\u{2421}',
                '\u{80}'..='\u{9F}' => '\u{FFFD}',
                other => other,
            });
        }
        out
    }

    proptest::proptest! {
        #[test]
        fn rendering_in_place_matches_rendering_by_characters(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200),
            text in "\\PC{0,40}",
        ) {
            let mut mixed = bytes.clone();
            mixed.extend_from_slice(text.as_bytes());
            for input in [&bytes, &mixed] {
                let mut out = String::new();
                push_safe(&mut out, input);
                proptest::prop_assert_eq!(out, render_by_chars(input));
            }
        }
    }

    #[test]
    fn control_bytes_and_invalid_utf8_render_safely() {
        let output = capture(100, &[b"a\0b\x1b[31mc\xff\xfed\n\te\x7f"]);
        assert_eq!(
            output.text(),
            "a\u{2400}b\u{241B}[31mc\u{FFFD}\u{FFFD}d\n\te\u{2421}"
        );
    }

    /// A carriage return alone rewrites a terminal's line (what was shown
    /// before it is hidden); the C1 controls (CSI U+009B, OSC U+009D...)
    /// are escape sequences to some terminals. A line ending `\r\n`, and
    /// the other characters led by the byte `0xC2` (`©`, `°`), stay.
    #[test]
    fn a_lone_carriage_return_and_c1_controls_render_safely() {
        let output = capture(
            100,
            &["safe\rrm -rf\r\n\u{9B}31m\u{9D}0;title\u{7}© 5°\u{85}".as_bytes()],
        );
        assert_eq!(
            output.text(),
            "safe\u{240D}rm -rf\r\n\u{FFFD}31m\u{FFFD}0;title\u{2407}© 5°\u{FFFD}"
        );
    }
}
