//! Quoted strings: where a string really ends when the model got its quotes
//! wrong.
//!
//! A quote of the kind that opened the string ends it when what follows is
//! the end of the text, a delimiter (`, : ] } [ { / +`), a digit, a `#`
//! comment or another quote. Otherwise the quote is content (`"v"alue"` is
//! `v"alue`), unless the character before it betrays an end quote missing
//! earlier:
//!
//! - a comma, and the quote opens what looks like the next item (`"c":`,
//!   `"c",`): the string is read again and ends at that comma
//!   (`{"a":"b,"c":"d"}`); when no quote is left at all, this quote is the
//!   end (`"x," tail`);
//! - another delimiter: the string is read again and ends at its first cut
//!   point (`{"a": "first, b: "x"}`; see [`Parser::at_cut_point`]).
//!
//! A string cut off by the end of the text is closed there, or at its first
//! cut point when the text ends in a delimiter (`["hello]`).
//!
//! Every string is read at most twice, and the second reading cannot ask for
//! a third. Whether a quote ends a string depends only on the characters
//! around it, so a first reading that ran to a retry is remembered: a later
//! string of the same quote kind that opens inside the stretch it read would
//! read the same quotes and retry the same way, and goes straight to its
//! second reading. Without this, `["a, b "a, b "a, b ... ]` would be read
//! to its end once per string. With it, the work stays linear.

use crate::parser::{Parser, QuoteKind, push_escaped_char};

/// Where a reading of a string stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// At a quote that passes the end-quote test (first reading).
    EndQuote,
    /// At any closing quote, or before the first delimiter.
    Delimiter,
    /// At any closing quote, or at this byte offset (a comma).
    Index(usize),
}

/// A first reading, from the string's first byte `from`, that read up to
/// `until` (a quote, or the end of the text) and asked for a second reading
/// with `stop`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Retry {
    from: usize,
    until: usize,
    stop: Stop,
}

impl Parser<'_> {
    /// Reads a quoted string (and any `"a" + "b"` concatenated to it) and
    /// writes it as one JSON string. The cursor must be at
    /// [`at_string_start`](Parser::at_string_start).
    pub(crate) fn string(&mut self) {
        self.one_string();
        self.concatenation();
    }

    fn one_string(&mut self) {
        let (pos, len) = (self.pos, self.out.len());
        if let Some(stop) = self.read_string(Stop::EndQuote) {
            self.pos = pos;
            self.out.truncate(len);
            // a second reading never asks for a third
            let _ = self.read_string(stop);
        }
    }

    /// One reading; `Some(stop)` asks to read again with that stop.
    fn read_string(&mut self, stop: Stop) -> Option<Stop> {
        let escaped_quotes = self.eat(b'\\');
        let kind = self.char().and_then(QuoteKind::of)?;
        self.skip_char();
        let content = self.pos;
        self.out.push('"');
        let out_content = self.out.len();
        if stop == Stop::EndQuote
            && !escaped_quotes
            && let Some(stop) = self.remembered_retry(kind, content)
        {
            return Some(stop);
        }
        let retry = |parser: &mut Self, stop: Stop| {
            if let (false, Some(slot)) = (escaped_quotes, parser.retries.get_mut(kind.index())) {
                *slot = Some(Retry {
                    from: content,
                    until: parser.pos,
                    stop,
                });
            }
            Some(stop)
        };
        loop {
            self.tick(1);
            if matches!(stop, Stop::Index(at) if self.pos >= at) {
                self.close_cut_string(out_content);
                return None;
            }
            // copy a run of characters that need no decision at once
            let run = self.plain_run(stop);
            if run > 0 {
                self.out
                    .push_str(self.text.get(self.pos..self.pos + run).unwrap_or(""));
                self.pos += run;
                self.tick(run);
                continue;
            }
            let Some(c) = self.char() else {
                if stop == Stop::EndQuote && self.text_ends_in_delimiter(content) {
                    return retry(self, Stop::Delimiter);
                }
                self.close_cut_string(out_content);
                return None;
            };
            // in `{\"a\": 1}` every quote is escaped: `\"` is a plain quote
            let (quote_at, quote) = match (escaped_quotes, c) {
                (true, '\\') => match self.char_at(self.pos + 1) {
                    Some(q) if kind.closes(q) => (self.pos + 1, q),
                    _ => (self.pos, c),
                },
                _ => (self.pos, c),
            };
            if kind.closes(quote) {
                let after = quote_at + quote.len_utf8();
                if stop != Stop::EndQuote || self.string_ends_at(after) {
                    self.pos = after;
                    self.out.push('"');
                    return None;
                }
                match self.byte_before(content, self.pos) {
                    Some((at, b',')) => match self.quoted_item_from(after, kind) {
                        // `{"a":"b,"c":"d"}`: this quote opens the next item
                        Some(true) => return retry(self, Stop::Index(at)),
                        Some(false) => {}
                        // `"x," tail`: no quote left, so this one is the end
                        None => {
                            self.pos = after;
                            self.out.push('"');
                            return None;
                        }
                    },
                    Some((_, b)) if is_delimiter(b) => return retry(self, Stop::Delimiter),
                    _ => {}
                }
                // a quote inside the content, as in `"v"alue"`
                push_escaped_char(&mut self.out, quote);
                self.pos = after;
                continue;
            }
            if stop == Stop::Delimiter && self.at_cut_point() {
                self.close_cut_string(out_content);
                return None;
            }
            if c == '\\' {
                if escaped_quotes && self.starts_with_at(self.pos, "\\\\\"") {
                    // `\\"` in doubly escaped text is an escaped quote
                    self.out.push_str("\\\"");
                    self.pos += 3;
                } else {
                    self.escape();
                }
            } else {
                push_escaped_char(&mut self.out, c);
                self.pos += c.len_utf8();
            }
        }
    }

    /// How many bytes from the cursor are printable ASCII that is neither a
    /// quote nor a backslash (nor, when stopping at cut points, a possible
    /// cut point), and before the stop offset: content to copy as it is.
    fn plain_run(&self, stop: Stop) -> usize {
        let rest = self.text.as_bytes().get(self.pos..).unwrap_or_default();
        let limit = match stop {
            Stop::Index(at) => at.saturating_sub(self.pos),
            Stop::EndQuote | Stop::Delimiter => rest.len(),
        };
        let cut_points = stop == Stop::Delimiter;
        rest.iter()
            .take(limit)
            .take_while(|&&b| {
                matches!(b, b' '..=b'~')
                    && !matches!(b, b'"' | b'\'' | b'`' | b'\\')
                    && !(cut_points && matches!(b, b',' | b']' | b'}' | b'+' | b'/'))
            })
            .count()
    }

    /// The retry that a first reading of a `kind` string whose content
    /// starts at `content` would ask for, if an earlier reading found it.
    fn remembered_retry(&mut self, kind: QuoteKind, content: usize) -> Option<Stop> {
        #[cfg(test)]
        if self.forget_retries {
            return None;
        }
        let retry = self.retries.get(kind.index()).copied().flatten()?;
        let before_stop = match retry.stop {
            Stop::Index(at) => content <= at,
            Stop::EndQuote | Stop::Delimiter => true,
        };
        (before_stop && (retry.from..retry.until).contains(&content)).then_some(retry.stop)
    }

    /// Reads a backslash escape at the cursor and writes a valid one.
    fn escape(&mut self) {
        match self.char_at(self.pos + 1) {
            None => {
                // a lone backslash at the end of the text
                self.out.push_str("\\\\");
                self.pos += 1;
            }
            Some(c @ ('"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't')) => {
                self.out.push('\\');
                self.out.push(c);
                self.pos += 2;
            }
            Some('u') => self.unicode_escape(),
            Some(c) => {
                // not a JSON escape (`\'` in a single-quoted string, `\a`):
                // keep the character, drop the backslash
                push_escaped_char(&mut self.out, c);
                self.pos += 1 + c.len_utf8();
            }
        }
    }

    /// Reads `\uXXXX` at the cursor. A lone surrogate becomes U+FFFD, a
    /// truncated escape at the end of the text is dropped, and a `\u` without
    /// four hex digits is kept as the literal text `\u`.
    fn unicode_escape(&mut self) {
        let code = self.hex4(self.pos + 2);
        match code {
            Some(0xd800..=0xdbff) => {
                let low = if self.starts_with_at(self.pos + 6, "\\u") {
                    self.hex4(self.pos + 8)
                } else {
                    None
                };
                match low {
                    Some(0xdc00..=0xdfff) => {
                        self.out
                            .push_str(self.text.get(self.pos..self.pos + 12).unwrap_or(""));
                        self.pos += 12;
                    }
                    _ => {
                        self.out.push_str("\\ufffd");
                        self.pos += 6;
                    }
                }
            }
            Some(0xdc00..=0xdfff) => {
                self.out.push_str("\\ufffd");
                self.pos += 6;
            }
            Some(_) => {
                self.out
                    .push_str(self.text.get(self.pos..self.pos + 6).unwrap_or(""));
                self.pos += 6;
            }
            None => {
                let hex = self.text.as_bytes().get(self.pos + 2..).map_or(0, |rest| {
                    rest.iter()
                        .take(4)
                        .take_while(|b| b.is_ascii_hexdigit())
                        .count()
                });
                if self.pos + 2 + hex >= self.text.len() {
                    // cut off by the end of the text: drop it
                    self.pos = self.text.len();
                } else {
                    self.out.push_str("\\\\u");
                    self.pos += 2;
                }
            }
        }
    }

    fn hex4(&self, at: usize) -> Option<u32> {
        let digits = self.text.get(at..at + 4)?;
        if digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            u32::from_str_radix(digits, 16).ok()
        } else {
            None
        }
    }

    /// Whether a quote whose next character is at `after` really ends the
    /// string: followed (past spaces) by the end, a delimiter, a digit or a
    /// quote.
    fn string_ends_at(&mut self, after: usize) -> bool {
        let at = self.skip_spaces_from(after);
        match self.char_at(at) {
            None | Some('#' | '0'..='9') => true,
            Some(c) if c.is_ascii() && is_delimiter(c as u8) => true,
            Some(c) => QuoteKind::of(c).is_some(),
        }
    }

    /// Whether the text from `at` up to the next closing quote of `kind`
    /// looks like a quoted item: that quote is followed by `:`, `,`, a
    /// closing bracket or the end. `None` when there is no quote left.
    fn quoted_item_from(&mut self, at: usize, kind: QuoteKind) -> Option<bool> {
        let rest = self.text.get(at..)?;
        let (offset, quote) = rest.char_indices().find(|&(_, c)| kind.closes(c))?;
        self.tick(offset);
        let after = self.skip_spaces_from(at + offset + quote.len_utf8());
        Some(matches!(
            self.byte_at(after),
            None | Some(b':' | b',' | b']' | b'}')
        ))
    }

    /// The last non-space byte before `before` and its offset, looking no
    /// further back than `content` (the string's first byte).
    fn byte_before(&mut self, content: usize, before: usize) -> Option<(usize, u8)> {
        let mut at = before;
        while at > content {
            at -= 1;
            self.tick(1);
            match self.byte_at(at) {
                Some(b' ' | b'\t' | b'\n' | b'\r') => continue,
                Some(b) => return Some((at, b)),
                None => return None,
            }
        }
        None
    }

    /// Whether the text, past trailing spaces, ends in a delimiter or a code
    /// fence after `content`: then a cut-off string ends at its first
    /// cut point (`["hello]`, `{"a": "b}````).
    fn text_ends_in_delimiter(&mut self, content: usize) -> bool {
        match self.tail() {
            Some((at, _)) if at < content => false,
            Some((at, b'`')) => self.text.get(..=at).is_some_and(|t| t.ends_with("```")),
            Some((_, b)) => is_delimiter(b),
            None => false,
        }
    }

    /// Where a string missing its end quote stops: a newline or comment, a
    /// comma before what looks like the next member or element (`, "b"`,
    /// `, b:`, `, 2`), a closing bracket before another or the end, a `+`
    /// before another string.
    fn at_cut_point(&mut self) -> bool {
        let next = self.pos + 1;
        match self.byte() {
            Some(b'\n') => true,
            Some(b',') => self.member_follows(next),
            Some(b']' | b'}') => {
                let at = self.skip_spaces_from(next);
                matches!(self.byte_at(at), None | Some(b',' | b']' | b'}' | b':'))
                    || self.starts_with_at(at, "```")
            }
            Some(b'+') => {
                let at = self.skip_spaces_from(next);
                matches!(self.byte_at(at), None | Some(b',' | b']' | b'}' | b'"'))
            }
            _ => self.comment_at(self.pos),
        }
    }

    /// Whether what starts at `at` (past spaces) looks like a member or an
    /// element: the end, a quote, a bracket, a number, or `key:`.
    fn member_follows(&mut self, at: usize) -> bool {
        let at = self.skip_spaces_from(at);
        match self.char_at(at) {
            None | Some('{' | '[' | ']' | '}' | '-' | '0'..='9') => true,
            Some(c) if QuoteKind::of(c).is_some() => true,
            Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$' => {
                let mut end = at;
                while self
                    .byte_at(end)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'-'))
                {
                    end += 1;
                }
                self.tick(end - at);
                let end = self.skip_spaces_from(end);
                self.byte_at(end) == Some(b':')
            }
            Some(_) => false,
        }
    }

    /// The offset of the first non-space at or after `at`.
    pub(crate) fn skip_spaces_from(&mut self, at: usize) -> usize {
        let mut end = at;
        loop {
            let n = self.space_len(end);
            if n == 0 {
                break;
            }
            end += n;
        }
        self.tick(end - at);
        end
    }

    /// Closes a string that had no usable end quote, without the spaces
    /// (and escaped newlines and tabs) that trailed its content.
    fn close_cut_string(&mut self, out_content: usize) {
        loop {
            let content = self.out.get(out_content..).unwrap_or("");
            let cut = if content.ends_with(' ') {
                1
            } else if (content.ends_with("\\n")
                || content.ends_with("\\r")
                || content.ends_with("\\t"))
                && content
                    .bytes()
                    .rev()
                    .skip(1)
                    .take_while(|&b| b == b'\\')
                    .count()
                    % 2
                    == 1
            {
                2
            } else {
                break;
            };
            self.out.truncate(self.out.len() - cut);
            self.tick(cut);
        }
        self.out.push('"');
    }

    /// Joins `"a" + "b"` into `"ab"`.
    fn concatenation(&mut self) {
        loop {
            let after_string = self.pos;
            self.skip_trivia();
            if !self.eat(b'+') {
                self.pos = after_string;
                return;
            }
            self.skip_trivia();
            if !self.at_string_start() {
                return;
            }
            self.out.pop();
            let next = self.out.len();
            self.one_string();
            if self.out.get(next..=next) == Some("\"") {
                self.out.remove(next);
            }
        }
    }
}

/// Characters that end a string when they follow its end quote, and that
/// betray a missing end quote when they precede a quote that is not one.
fn is_delimiter(b: u8) -> bool {
    matches!(b, b',' | b':' | b'[' | b']' | b'{' | b'}' | b'/' | b'+')
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use crate::parser::Parser;
    use crate::repair::check_table;

    #[test]
    fn quotes_of_every_kind_open_and_close_strings() {
        check_table(&[
            ("{'a': 'b'}", r#"{"a":"b"}"#),
            ("{“a”: “b”}", r#"{"a":"b"}"#),
            ("{‘a’: `b´}", r#"{"a":"b"}"#),
            ("['say \"hi\"']", r#"["say \"hi\""]"#),
            ("['Double \" quote']", r#"["Double \" quote"]"#),
            ("{pattern: '’'}", r#"{"pattern":"’"}"#),
        ]);
    }

    #[test]
    fn quotes_inside_content_are_kept() {
        check_table(&[
            ("{'text': 'it's fine'}", r#"{"text":"it's fine"}"#),
            ("{'a': 'rock 'n' roll'}", r#"{"a":"rock 'n' roll"}"#),
            (
                "{\"key\": \"v\"alue\", \"b\": 1}",
                r#"{"key":"v\"alue","b":1}"#,
            ),
            (
                "{\"key\": \"Lorem \"ipsum\" s,\"}",
                r#"{"key":"Lorem \"ipsum\" s,"}"#,
            ),
            ("{\"k\"e\"y\": 1}", r#"{"k\"e\"y":1}"#),
            ("[\"foo)\" 2]", r#"["foo)",2]"#),
            ("{\"a\": \"x\" tail\"}", r#"{"a":"x\" tail"}"#),
        ]);
    }

    #[test]
    fn missing_end_quotes_are_placed() {
        check_table(&[
            // cut off by the end of the text
            ("{\"a\": \"New York", r#"{"a":"New York"}"#),
            ("{\"a\": \"trailing   ", r#"{"a":"trailing"}"#),
            ("{\"a\": \"val\n", r#"{"a":"val"}"#),
            ("[\"hello]", r#"["hello"]"#),
            ("{\"a\": \"b}", r#"{"a":"b"}"#),
            ("{\"a\": \"b}\n```", r#"{"a":"b"}"#),
            ("{\"time\": \"12:20}", r#"{"time":"12:20"}"#),
            ("[\"https://example.org/]", r#"["https://example.org/"]"#),
            ("{\"a\": \"one, two. }", r#"{"a":"one, two."}"#),
            // missing before the next member or element
            ("{\"a\":\"b,\"c\":\"d\"}", r#"{"a":"b","c":"d"}"#),
            ("[\"a,\n\"b\"\n]", r#"["a","b"]"#),
            (
                "{\"a\": \"first, b: \"second\"}",
                r#"{"a":"first","b":"second"}"#,
            ),
            ("{\"a\": \"first, b: 1}", r#"{"a":"first","b":1}"#),
            ("{\"a\": \"x,\" tail", r#"{"a":"x,"}"#),
        ]);
    }

    #[test]
    fn escapes_are_made_valid() {
        check_table(&[
            ("[\"a\\nb\\u00e9\\/\"]", r#"["a\nb\u00e9\/"]"#),
            ("['it\\'s']", r#"["it's"]"#),
            ("[\"\\a\\q\"]", r#"["aq"]"#),
            ("[\"tab\there\"]", r#"["tab\there"]"#),
            ("[\"bell\u{7}\"]", r#"["bell\u0007"]"#),
            ("[\"\\ud83d\\ude00\"]", r#"["\ud83d\ude00"]"#),
            ("[\"\\ud83d alone\"]", r#"["\ufffd alone"]"#),
            ("[\"\\ude00\"]", r#"["\ufffd"]"#),
            ("[\"\\uZZZZ\"]", r#"["\\uZZZZ"]"#),
            ("[\"cut \\u26", r#"["cut"]"#),
            ("[\"cut \\", r#"["cut \\"]"#),
            ("{\\\"a\\\": \\\"b\\\"}", r#"{"a":"b"}"#),
            ("\\\"hello \\\\\"world\\\\\"\\\"", r#""hello \"world\"""#),
        ]);
    }

    #[test]
    fn concatenated_strings_are_joined() {
        check_table(&[
            ("[\"a\" + \"b\" + 'c']", r#"["abc"]"#),
            ("[\"hello +]", r#"["hello"]"#),
            ("\"hello +\n \" world\"", r#""hello world""#),
        ]);
    }

    proptest! {
        /// The retry memo only skips work whose outcome it already knows.
        #[test]
        fn remembered_retries_change_nothing(
            text in r#"([\[\]{},: "'a]|\\"|x,|, ){0,60}"#
        ) {
            let read = |forget: bool| {
                let mut parser = Parser::new(&text, 0);
                parser.forget_retries = forget;
                let mut values = Vec::new();
                while parser.pos < text.len() {
                    let before = parser.pos;
                    parser.restart(before);
                    if !matches!(parser.value(), Ok(true)) || parser.pos == before {
                        parser.skip_char();
                    }
                    values.push(parser.out.clone());
                }
                values
            };
            prop_assert_eq!(read(false), read(true));
        }
    }
}
