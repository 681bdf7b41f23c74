//! The repair parser: one left-to-right pass that writes JSON as it reads.
//!
//! The parser never looks back further than the token it is reading, with
//! one bounded exception in [`string`](crate::string): a string whose end
//! quote turns out to be wrong is read a second time, in a mode that cannot
//! ask for a third. Nesting is bounded by [`MAX_DEPTH`], so recursion is too.
//!
//! Commas are not copied: the parser writes one before every member or
//! element but the first, which repairs missing, doubled, leading and
//! trailing commas at once. Whitespace outside strings is not copied either.

use crate::error::RepairError;
use crate::string::Retry;

/// How deeply objects and arrays (and function-call wrappers like
/// `callback(...)`) may nest: the limit `serde_json` itself applies, so that
/// everything the repair writes can be read back.
pub const MAX_DEPTH: usize = 127;

/// Reads `text` from a byte offset and writes repaired JSON to `out`.
pub(crate) struct Parser<'t> {
    pub(crate) text: &'t str,
    /// The byte offset of the next unread character; always a char boundary.
    pub(crate) pos: usize,
    pub(crate) out: String,
    depth: usize,
    /// How many objects, and how many arrays, are open around the cursor: a
    /// closing bracket that matches none of them is stray text.
    open_objects: usize,
    open_arrays: usize,
    /// How many `name(...)` wrappers are open: inside one, unquoted text
    /// ends at `)`.
    pub(crate) open_calls: usize,
    /// For each [`QuoteKind`], the last first reading of a string that
    /// asked for a second: see [`Retry`].
    pub(crate) retries: [Option<Retry>; 4],
    /// The last non-space byte of the text and its offset, once needed.
    tail: Option<Option<(usize, u8)>>,
    /// Characters visited, counted in tests to check that parsing is linear.
    #[cfg(test)]
    pub(crate) steps: usize,
    /// Tests turn the retry memo off to check that it changes nothing.
    #[cfg(test)]
    pub(crate) forget_retries: bool,
}

impl<'t> Parser<'t> {
    pub(crate) fn new(text: &'t str, pos: usize) -> Self {
        Parser {
            text,
            pos,
            out: String::with_capacity(text.len().saturating_sub(pos) + 16),
            depth: 0,
            open_objects: 0,
            open_arrays: 0,
            open_calls: 0,
            retries: [None; 4],
            tail: None,
            #[cfg(test)]
            steps: 0,
            #[cfg(test)]
            forget_retries: false,
        }
    }

    /// Starts reading a new value at `pos`, with an empty output. What was
    /// learnt about the text (the retries, its tail) is kept.
    pub(crate) fn restart(&mut self, pos: usize) {
        self.pos = pos;
        self.out.clear();
        self.depth = 0;
        self.open_objects = 0;
        self.open_arrays = 0;
        self.open_calls = 0;
    }

    /// The last non-space byte of the text and its offset.
    pub(crate) fn tail(&mut self) -> Option<(usize, u8)> {
        if let Some(tail) = self.tail {
            return tail;
        }
        let trimmed = self.text.trim_end_matches([' ', '\t', '\n', '\r']);
        self.tick(self.text.len() - trimmed.len());
        let tail = trimmed
            .len()
            .checked_sub(1)
            .and_then(|at| Some((at, self.byte_at(at)?)));
        self.tail = Some(tail);
        tail
    }

    /// Counts `n` visited characters (tests only).
    #[inline]
    pub(crate) fn tick(&mut self, _n: usize) {
        #[cfg(test)]
        {
            self.steps += _n;
        }
    }

    pub(crate) fn byte(&self) -> Option<u8> {
        self.byte_at(self.pos)
    }

    pub(crate) fn byte_at(&self, at: usize) -> Option<u8> {
        self.text.as_bytes().get(at).copied()
    }

    pub(crate) fn char(&self) -> Option<char> {
        self.char_at(self.pos)
    }

    pub(crate) fn char_at(&self, at: usize) -> Option<char> {
        self.text.get(at..)?.chars().next()
    }

    pub(crate) fn starts_with_at(&self, at: usize, prefix: &str) -> bool {
        self.text
            .as_bytes()
            .get(at..)
            .is_some_and(|rest| rest.starts_with(prefix.as_bytes()))
    }

    pub(crate) fn eat(&mut self, byte: u8) -> bool {
        let found = self.byte() == Some(byte);
        if found {
            self.pos += 1;
        }
        found
    }

    /// Skips one whole character (no-op at the end of the text).
    pub(crate) fn skip_char(&mut self) {
        self.pos += self.char().map_or(0, char::len_utf8);
    }

    /// The byte length of the whitespace character at `at`, or 0.
    pub(crate) fn space_len(&self, at: usize) -> usize {
        match self.byte_at(at) {
            Some(b' ' | b'\t' | b'\n' | b'\r') => 1,
            Some(b) if b >= 0x80 => self
                .char_at(at)
                .filter(|&c| is_special_space(c))
                .map_or(0, char::len_utf8),
            _ => 0,
        }
    }

    /// Whether a `//` or `/*` comment starts at `at`. A `//` right after a
    /// colon is the middle of a URL, not a comment.
    pub(crate) fn comment_at(&self, at: usize) -> bool {
        match (self.byte_at(at), self.byte_at(at + 1)) {
            (Some(b'/'), Some(b'*')) => true,
            (Some(b'/'), Some(b'/')) => at == 0 || self.byte_at(at - 1) != Some(b':'),
            _ => false,
        }
    }

    /// Skips whitespace, comments (`/* */`, `//`, `#`) and Markdown code
    /// fence markers (```` ``` ```` with its language tag).
    pub(crate) fn skip_trivia(&mut self) {
        loop {
            let start = self.pos;
            match self.byte() {
                Some(b'/') if self.byte_at(self.pos + 1) == Some(b'*') => {
                    self.pos = match self.text.get(self.pos + 2..).and_then(|r| r.find("*/")) {
                        Some(end) => self.pos + 2 + end + 2,
                        None => self.text.len(),
                    };
                }
                Some(b'/') if self.byte_at(self.pos + 1) == Some(b'/') => self.skip_line(),
                Some(b'#') => self.skip_line(),
                Some(b'`') if self.starts_with_at(self.pos, "```") => self.skip_fence(),
                _ => match self.space_len(self.pos) {
                    0 => break,
                    n => self.pos += n,
                },
            }
            self.tick(self.pos - start);
        }
    }

    fn skip_line(&mut self) {
        self.pos = match self.text.get(self.pos..).and_then(|r| r.find('\n')) {
            Some(end) => self.pos + end,
            None => self.text.len(),
        };
    }

    /// Skips a fence marker: its backticks and the language tag after them.
    pub(crate) fn skip_fence(&mut self) {
        while self.byte() == Some(b'`') {
            self.pos += 1;
        }
        while self
            .byte()
            .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'+' | b'.'))
        {
            self.pos += 1;
        }
    }

    /// Skips trivia, commas and `...` ellipses between members or elements.
    fn skip_separators(&mut self) {
        loop {
            self.skip_trivia();
            if self.eat(b',') {
                continue;
            }
            if self.starts_with_at(self.pos, "...") {
                self.pos += 3;
                continue;
            }
            break;
        }
    }

    fn enter(&mut self) -> Result<(), RepairError> {
        if self.depth >= MAX_DEPTH {
            return Err(RepairError::TooDeep {
                offset: self.pos,
                limit: MAX_DEPTH,
            });
        }
        self.depth += 1;
        Ok(())
    }

    pub(crate) fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Whether the cursor is at the start of a quoted string: a quote, or a
    /// backslash and a quote (text whose quotes are all escaped).
    pub(crate) fn at_string_start(&self) -> bool {
        let at = if self.byte() == Some(b'\\') {
            self.pos + 1
        } else {
            self.pos
        };
        self.char_at(at).is_some_and(|c| QuoteKind::of(c).is_some())
    }

    /// Reads one value and writes it; `false` when there is none here (end
    /// of text, a closing bracket, a comma or a colon), with nothing written.
    pub(crate) fn value(&mut self) -> Result<bool, RepairError> {
        self.skip_trivia();
        match self.byte() {
            None | Some(b'}' | b']' | b',' | b':') => Ok(false),
            Some(b'{') => self.object().map(|()| true),
            Some(b'[') => self.array().map(|()| true),
            _ if self.at_string_start() => {
                self.string();
                Ok(true)
            }
            _ => self.scalar(),
        }
    }

    fn object(&mut self) -> Result<(), RepairError> {
        self.enter()?;
        self.pos += 1;
        self.out.push('{');
        self.open_objects += 1;
        let mut members = 0usize;
        loop {
            self.skip_separators();
            self.tick(1);
            match self.byte() {
                None => break,
                Some(b'}') if self.depth == 1 && self.member_after_close() => {
                    // `{"a": 1}, "b": 2}`: closed too early
                    self.pos += 1;
                    continue;
                }
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                // a bracket that closes an enclosing array ends this object too
                Some(b']') if self.open_arrays > 0 => break,
                // a value where a key belongs: a missing `}`, as in `[{"a":1{"b":2}]`
                Some(b'{' | b'[') => break,
                Some(b']' | b':') => {
                    self.pos += 1;
                    continue;
                }
                _ => {}
            }
            let before = self.pos;
            if self.member(members > 0)? {
                members += 1;
            }
            if self.pos == before {
                self.skip_char();
            }
        }
        self.out.push('}');
        self.open_objects -= 1;
        self.leave();
        Ok(())
    }

    /// Reads one `key: value` member; `false` (nothing written) when what
    /// stands there is not a member: stray text, or a key without a value.
    fn member(&mut self, comma: bool) -> Result<bool, RepairError> {
        let start = self.out.len();
        if comma {
            self.out.push(',');
        }
        let quoted = self.at_string_start();
        if quoted {
            self.string();
        } else if !self.unquoted_key() {
            self.out.truncate(start);
            return Ok(false);
        }
        self.skip_trivia();
        if !self.eat(b':') {
            let value_at = self.out.len();
            if !quoted && self.at_string_start() {
                // `stray text "key": value` or a missing colon `key "value"`
                self.string();
                self.skip_trivia();
                if self.eat(b':') {
                    let key_at = start + usize::from(comma);
                    self.out.replace_range(key_at..value_at, "");
                } else {
                    self.out.insert(value_at, ':');
                    return Ok(true);
                }
            } else if !self.at_value_start() {
                self.out.truncate(start);
                return Ok(false);
            }
        }
        self.out.push(':');
        if !self.value()? {
            self.out.push_str("null");
        }
        Ok(true)
    }

    /// Whether the `}` at the cursor is followed by `, "key":`, more members
    /// of an object closed too early.
    fn member_after_close(&mut self) -> bool {
        let at = self.skip_spaces_from(self.pos + 1);
        if self.byte_at(at) != Some(b',') {
            return false;
        }
        let at = self.skip_spaces_from(at + 1);
        if self.byte_at(at) != Some(b'"') {
            return false;
        }
        let Some(end) = self.text.get(at + 1..).and_then(|rest| rest.find('"')) else {
            return false;
        };
        self.tick(end);
        let at = self.skip_spaces_from(at + 1 + end + 1);
        self.byte_at(at) == Some(b':')
    }

    /// Whether a value (rather than a separator or the end) follows.
    fn at_value_start(&self) -> bool {
        !matches!(self.byte(), None | Some(b',' | b'}' | b']' | b':'))
    }

    fn array(&mut self) -> Result<(), RepairError> {
        self.enter()?;
        self.pos += 1;
        self.out.push('[');
        self.open_arrays += 1;
        let mut elements = 0usize;
        loop {
            self.skip_separators();
            self.tick(1);
            match self.byte() {
                None => break,
                Some(b']') => {
                    self.pos += 1;
                    break;
                }
                Some(b'}') if self.open_objects > 0 => break,
                Some(b'}' | b':') => {
                    self.pos += 1;
                    continue;
                }
                _ => {}
            }
            let start = self.out.len();
            if elements > 0 {
                self.out.push(',');
            }
            let before = self.pos;
            if self.value()? {
                elements += 1;
            } else {
                self.out.truncate(start);
            }
            if self.pos == before {
                self.skip_char();
            }
        }
        self.out.push(']');
        self.open_arrays -= 1;
        self.leave();
        Ok(())
    }

    /// Reads `name(value)` (JSONP `callback({...});`, MongoDB
    /// `NumberLong("2")`) as the value inside the parentheses.
    pub(crate) fn call(&mut self, open_paren: usize) -> Result<(), RepairError> {
        self.enter()?;
        self.pos = open_paren + 1;
        self.open_calls += 1;
        self.skip_trivia();
        let read = if self.byte() == Some(b')') {
            Ok(false)
        } else {
            self.value()
        };
        self.open_calls -= 1;
        if !read? {
            self.out.push_str("null");
        }
        self.skip_trivia();
        if self.eat(b')') {
            self.eat(b';');
        }
        self.leave();
        Ok(())
    }
}

/// Which characters can close a string, chosen by the one that opened it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum QuoteKind {
    /// `"`: closed by `"` only.
    Double,
    /// `'`: closed by `'` only, so `"` inside it is content.
    Single,
    /// `‘ ’ ` ´`: closed by any single-quote-like character.
    SingleLike,
    /// `“ ”`: closed by any double-quote-like character.
    DoubleLike,
}

impl QuoteKind {
    pub(crate) fn of(c: char) -> Option<QuoteKind> {
        match c {
            '"' => Some(QuoteKind::Double),
            '\'' => Some(QuoteKind::Single),
            '\u{2018}' | '\u{2019}' | '`' | '\u{b4}' => Some(QuoteKind::SingleLike),
            '\u{201c}' | '\u{201d}' => Some(QuoteKind::DoubleLike),
            _ => None,
        }
    }

    /// A distinct index below 4 for each kind.
    pub(crate) fn index(self) -> usize {
        match self {
            QuoteKind::Double => 0,
            QuoteKind::Single => 1,
            QuoteKind::SingleLike => 2,
            QuoteKind::DoubleLike => 3,
        }
    }

    pub(crate) fn closes(self, c: char) -> bool {
        match self {
            QuoteKind::Double => c == '"',
            QuoteKind::Single => c == '\'',
            QuoteKind::SingleLike => matches!(c, '\'' | '\u{2018}' | '\u{2019}' | '`' | '\u{b4}'),
            QuoteKind::DoubleLike => matches!(c, '"' | '\u{201c}' | '\u{201d}'),
        }
    }
}

/// Unicode spaces that models and word processors put where JSON allows
/// only ASCII whitespace; outside strings they count as whitespace.
fn is_special_space(c: char) -> bool {
    matches!(
        c,
        '\u{a0}' | '\u{1680}' | '\u{180e}' | '\u{2000}'
            ..='\u{200b}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}'
    )
}

/// Writes `s` as the inside of a JSON string.
pub(crate) fn push_escaped(out: &mut String, s: &str) {
    for c in s.chars() {
        push_escaped_char(out, c);
    }
}

/// Writes one character as the inside of a JSON string.
pub(crate) fn push_escaped_char(out: &mut String, c: char) {
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        c if u32::from(c) < 0x20 => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            let code = u32::from(c) as usize;
            out.push_str("\\u00");
            out.push(char::from(HEX.get(code >> 4).copied().unwrap_or(b'0')));
            out.push(char::from(HEX.get(code & 0xf).copied().unwrap_or(b'0')));
        }
        c => out.push(c),
    }
}

#[cfg(test)]
mod tests {
    use super::MAX_DEPTH;
    use crate::RepairError;
    use crate::repair::{check_table, first_value_parser, fixed};

    #[test]
    fn commas_are_written_not_copied() {
        check_table(&[
            ("[1 2 3]", "[1,2,3]"),
            ("[1,2,3,]", "[1,2,3]"),
            ("[,1,,2]", "[1,2]"),
            ("{\"a\":1 \"b\":2}", r#"{"a":1,"b":2}"#),
            ("{\"a\":1,,\"b\":2,}", r#"{"a":1,"b":2}"#),
            ("{, \"a\": 1}", r#"{"a":1}"#),
            ("[1, 2, ...]", "[1,2]"),
            ("{\"a\": 1, ...}", r#"{"a":1}"#),
        ]);
    }

    #[test]
    fn comments_are_skipped() {
        check_table(&[
            ("{\"a\": 1, // one\n \"b\": 2}", r#"{"a":1,"b":2}"#),
            ("{\"a\": /* inline */ 1}", r#"{"a":1}"#),
            ("{\"a\": 1 # python\n}", r#"{"a":1}"#),
            ("{\"a\": \"b\" # python\n, \"c\": 1}", r#"{"a":"b","c":1}"#),
            ("[1, /* unterminated", "[1]"),
            (
                "{\"url\": \"http://x.org/a\"}",
                r#"{"url":"http://x.org/a"}"#,
            ),
        ]);
    }

    #[test]
    fn missing_colons_keys_and_values() {
        check_table(&[
            ("{\"a\" 1}", r#"{"a":1}"#),
            ("{\"a\" \"b\"}", r#"{"a":"b"}"#),
            ("{a “b”}", r#"{"a":"b"}"#),
            ("{\"a\":}", r#"{"a":null}"#),
            ("{\"a\":, \"b\": 2}", r#"{"a":null,"b":2}"#),
            // a key without a value is dropped
            ("{\"a\", \"b\": 2}", r#"{"b":2}"#),
            ("{\"a\"", "{}"),
            // stray text between members
            ("{\"a\": true, NOTE \"b\": 2}", r#"{"a":true,"b":2}"#),
            ("{\"a\": 1 :: \"b\": 2}", r#"{"a":1,"b":2}"#),
        ]);
    }

    #[test]
    fn brackets_are_closed_and_mismatches_repaired() {
        check_table(&[
            ("{\"a\": [1, {\"b\": 2", r#"{"a":[1,{"b":2}]}"#),
            ("[{\"b\":2]", r#"[{"b":2}]"#),
            ("{\"a\": [}", r#"{"a":[]}"#),
            ("[{\"i\":1{\"i\":2}]", r#"[{"i":1},{"i":2}]"#),
            ("{]", "{}"),
            ("[}", "[]"),
            ("[1]]", "[1]"),
            ("[{\"a\":1}},{\"b\":2}]", r#"[{"a":1},{"b":2}]"#),
            // an object closed too early at the top
            (
                "{\"name\": \"ls\"}, \"arguments\": {}}",
                r#"{"name":"ls","arguments":{}}"#,
            ),
            ("{\"a\": 1}, \"b\" and more", r#"{"a":1}"#),
        ]);
    }

    #[test]
    fn nesting_is_bounded() {
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert_eq!(fixed(&ok), ok);
        assert_eq!(fixed(&"[".repeat(MAX_DEPTH)), ok, "truncated");
        let deep = "[".repeat(MAX_DEPTH + 1);
        assert!(matches!(
            first_value_parser(&deep).map(|p| p.out),
            Err(RepairError::TooDeep { offset, limit: MAX_DEPTH }) if offset == MAX_DEPTH
        ));
        let calls = "f(".repeat(MAX_DEPTH + 1);
        assert!(matches!(
            first_value_parser(&format!("[{calls}")).map(|p| p.out),
            Err(RepairError::TooDeep { .. })
        ));
    }

    /// Pathological inputs of about 1 MB: each is repaired visiting a
    /// bounded number of characters per input byte.
    #[test]
    fn pathological_inputs_take_linear_steps() {
        const MB: usize = 1 << 20;
        let shapes: Vec<(&str, String)> = vec![
            ("quotes", "\"".repeat(MB)),
            ("single quotes", "'".repeat(MB)),
            ("commas", format!("[{}", ",".repeat(MB))),
            ("colons", format!("{{{}", ":".repeat(MB))),
            ("open brace then text", format!("{{{}", "a".repeat(MB))),
            (
                "inner quotes",
                format!("{{\"a\": \"{}", "x\"".repeat(MB / 2)),
            ),
            (
                "inner quotes after commas",
                format!("{{\"a\": \"{}", "x,\"y".repeat(MB / 4)),
            ),
            (
                "inner quotes after colons",
                format!("{{\"a\": \"{}", "x:\"y".repeat(MB / 4)),
            ),
            ("quote comma chains", format!("[{}", "\"a,".repeat(MB / 3))),
            (
                "cut strings ending in a bracket",
                format!("[{}]", "\"a, b ".repeat(MB / 6)),
            ),
            (
                "commas before words",
                format!("{{\"a\": \"{}}}", "x, yy ".repeat(MB / 6)),
            ),
            (
                "spaces after quotes",
                format!("{{\"a\": \"{}", "x\"          ".repeat(MB / 12)),
            ),
            (
                "spaces before quotes",
                format!("{{\"a\": \"{}", ",          \"x".repeat(MB / 12)),
            ),
            ("backslashes", format!("[\"{}", "\\".repeat(MB))),
            (
                "escaped quotes",
                format!("{{{}", "\\\"a\\\":".repeat(MB / 6)),
            ),
            (
                "unicode escapes",
                format!("[\"{}", "\\ud800".repeat(MB / 6)),
            ),
            ("comments", format!("[{}", "/**/".repeat(MB / 4))),
            (
                "unterminated comments",
                format!("[1{}", " /*".repeat(MB / 3)),
            ),
            ("fences", format!("[{}", "```".repeat(MB / 3))),
            ("ellipses", format!("[{}", "...".repeat(MB / 3))),
            ("members", format!("{{{}", "\"a\":1,".repeat(MB / 6))),
            ("missing colons", format!("{{{}", "a \"b\" ".repeat(MB / 6))),
            (
                "closed too early",
                format!("{{{}", "\"a\":1}, ".repeat(MB / 8)),
            ),
            ("closers", format!("{{\"a\":1{}", "}".repeat(MB))),
            ("concatenations", format!("[{}", "\"a\" + ".repeat(MB / 6))),
            ("numbers", format!("[{}", "1_2.3e".repeat(MB / 6))),
            ("nested siblings", "[[[]]]".repeat(MB / 6)),
            ("plain text", "a".repeat(MB)),
        ];
        for (name, text) in shapes {
            match first_value_parser(&text) {
                Ok(parser) => {
                    assert!(
                        parser.steps <= 16 * text.len(),
                        "{name}: {} steps for {} bytes",
                        parser.steps,
                        text.len()
                    );
                    assert!(
                        serde_json::from_str::<serde_json::Value>(&parser.out).is_ok(),
                        "{name}"
                    );
                }
                Err(error) => assert!(
                    matches!(error, RepairError::NoJson | RepairError::TooDeep { .. }),
                    "{name}: {error}"
                ),
            }
        }
    }
}
