//! Everything that is not quoted and not a container: numbers, literals
//! (with the Python and JavaScript spellings), `name(...)` wrappers, and
//! unquoted text, which becomes a string.

use crate::error::RepairError;
use crate::parser::{Parser, QuoteKind, push_escaped};

impl Parser<'_> {
    /// Reads a number, literal, wrapper call or unquoted text; `false` when
    /// nothing here can be read as a value.
    pub(crate) fn scalar(&mut self) -> Result<bool, RepairError> {
        if self.number() || self.literal() || self.wrapped_scalar()? {
            return Ok(true);
        }
        Ok(self.unquoted_value())
    }

    /// Reads `name(value)`, as in JSONP `callback(true);`; `false` when the
    /// cursor is not at an identifier followed by `(`.
    pub(crate) fn wrapped_scalar(&mut self) -> Result<bool, RepairError> {
        let ident = self.identifier_end(self.pos);
        if ident > self.pos && self.byte_at(ident) == Some(b'(') {
            self.call(ident)?;
            return Ok(true);
        }
        Ok(false)
    }

    /// Reads a number, repairing what JSON forbids: `.5` and `-.5` gain a
    /// zero, `2.` and `2e` gain one at the end, `1_000` loses its
    /// underscores. A number with leading zeros (`0789`, an identifier more
    /// than a number) or out of `f64`'s range (`1e999`) becomes a string.
    /// `false`, with nothing read, when the token is not a number followed
    /// by the end of a token (`1.1.1`, `2024-10-18`, `1/3` are text).
    pub(crate) fn number(&mut self) -> bool {
        let start = self.pos;
        let mut at = start;
        let negative = self.byte_at(at) == Some(b'-');
        at += usize::from(negative);
        let int = (at, self.digits_end(at));
        at = int.1;
        let frac = (self.byte_at(at) == Some(b'.')).then(|| (at + 1, self.digits_end(at + 1)));
        if let Some((_, end)) = frac {
            at = end;
        }
        let has_digits = int.1 > int.0 || frac.is_some_and(|(from, to)| to > from);
        if !has_digits {
            return false;
        }
        let mut exp = None;
        if matches!(self.byte_at(at), Some(b'e' | b'E')) {
            let sign = matches!(self.byte_at(at + 1), Some(b'+' | b'-'));
            let from = at + 1 + usize::from(sign);
            let to = self.digits_end(from);
            exp = Some((at + 1, from, to));
            at = to;
        }
        if !self.token_ends_at(at) {
            return false;
        }
        self.tick(at - start);
        self.pos = at;
        let text = self.text;
        let raw = text.get(start..at).unwrap_or("");
        let int_digits = text.get(int.0..int.1).unwrap_or("");
        if int_digits.len() > 1 && int_digits.starts_with('0') {
            self.push_text(raw);
            return true;
        }
        let mark = self.out.len();
        if negative {
            self.out.push('-');
        }
        self.push_digits(int, "0");
        if let Some(frac) = frac {
            self.out.push('.');
            self.push_digits(frac, "0");
        }
        if let Some((sign, from, to)) = exp {
            self.out.push('e');
            self.out.push_str(text.get(sign..from).unwrap_or(""));
            self.push_digits((from, to), "0");
        }
        // past f64's range (`1e999`, 400 digits) JSON readers fail: keep the text
        let written = self.out.get(mark..).unwrap_or("");
        if (exp.is_some() || written.len() > 300)
            && !written.parse::<f64>().is_ok_and(f64::is_finite)
        {
            self.out.truncate(mark);
            self.push_text(raw);
        }
        true
    }

    /// The end of a run of digits from `at`, with single `_` between digits.
    fn digits_end(&self, mut at: usize) -> usize {
        while let Some(b) = self.byte_at(at) {
            let digit_follows = self.byte_at(at + 1).is_some_and(|n| n.is_ascii_digit());
            let after_digit = at > 0 && self.byte_at(at - 1).is_some_and(|p| p.is_ascii_digit());
            if b.is_ascii_digit() || (b == b'_' && after_digit && digit_follows) {
                at += 1;
            } else {
                break;
            }
        }
        at
    }

    /// Writes `raw` as a JSON string.
    fn push_text(&mut self, raw: &str) {
        self.out.push('"');
        push_escaped(&mut self.out, raw);
        self.out.push('"');
    }

    /// Writes the digits in `range` without underscores, or `empty` if none.
    fn push_digits(&mut self, (from, to): (usize, usize), empty: &str) {
        let digits = self.text.get(from..to).unwrap_or("");
        if digits.is_empty() {
            self.out.push_str(empty);
        } else {
            self.out.extend(digits.chars().filter(|&c| c != '_'));
        }
    }

    /// Reads `true`, `false`, `null`, their Python spellings `True`,
    /// `False`, `None`, and `undefined`, `NaN`, `Infinity`, `-Infinity`
    /// (which JSON cannot hold: they become `null`).
    pub(crate) fn literal(&mut self) -> bool {
        let end = if self.byte() == Some(b'-') {
            self.identifier_end(self.pos + 1)
        } else {
            self.identifier_end(self.pos)
        };
        let json = match self.text.get(self.pos..end) {
            Some("true" | "True") => "true",
            Some("false" | "False") => "false",
            Some("null" | "None" | "undefined" | "NaN" | "Infinity" | "-Infinity") => "null",
            _ => return false,
        };
        if !self.token_ends_at(end) {
            return false;
        }
        self.out.push_str(json);
        self.pos = end;
        true
    }

    /// The end of an identifier (`[A-Za-z_$][A-Za-z0-9_$]*`) starting at `at`.
    fn identifier_end(&self, at: usize) -> usize {
        let mut end = at;
        while let Some(b) = self.byte_at(end) {
            let ok = b.is_ascii_alphabetic()
                || matches!(b, b'_' | b'$')
                || (end > at && b.is_ascii_digit());
            if !ok {
                break;
            }
            end += 1;
        }
        end
    }

    /// Whether a number or literal may end at `at`: the end of the text,
    /// whitespace, a structural character, `)`, or a comment.
    fn token_ends_at(&self, at: usize) -> bool {
        match self.byte_at(at) {
            None | Some(b',' | b':' | b'[' | b']' | b'{' | b'}' | b')' | b'#') => true,
            _ => self.space_len(at) > 0 || self.comment_at(at),
        }
    }

    /// Reads unquoted text up to a comma, closing bracket, newline, double
    /// quote or comment (colons and opening brackets are text: `2024-10-18T18:35`), and writes it as a string without trailing spaces.
    /// A double quote right after the text closes it (`{"a": foo"}`: the
    /// opening quote was missing).
    fn unquoted_value(&mut self) -> bool {
        let start = self.pos;
        let mut at = start;
        while let Some(c) = self.char_at(at) {
            if matches!(
                c,
                ',' | ']' | '}' | '\n' | '\r' | '"' | '\u{201c}' | '\u{201d}'
            ) || (c == ')' && self.open_calls > 0)
                || self.comment_at(at)
            {
                break;
            }
            at += c.len_utf8();
        }
        self.unquoted_text(start, at)
    }

    /// Reads an unquoted key, up to a colon or any character that cannot be
    /// part of one; `false` when there is none.
    pub(crate) fn unquoted_key(&mut self) -> bool {
        let start = self.pos;
        let mut at = start;
        while let Some(c) = self.char_at(at) {
            if matches!(c, ':' | ',' | ']' | '}' | '{' | '[' | '\n' | '\r')
                || QuoteKind::of(c).is_some()
                || self.comment_at(at)
            {
                break;
            }
            at += c.len_utf8();
        }
        self.unquoted_text(start, at)
    }

    /// Writes `text[start..end]`, less trailing spaces, as a string, and
    /// moves past it (and past a `"` glued to its end).
    fn unquoted_text(&mut self, start: usize, end: usize) -> bool {
        self.tick(end - start);
        let text = self.text;
        let raw = text.get(start..end).unwrap_or("");
        let trimmed = raw.trim_end();
        if trimmed.is_empty() {
            return false;
        }
        self.pos = start + trimmed.len();
        self.push_text(trimmed);
        if trimmed.len() == raw.len() && self.byte() == Some(b'"') {
            self.pos += 1;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::repair::check_table;

    #[test]
    fn numbers_are_repaired() {
        check_table(&[
            ("[1, -2, 3.5, 1e10, 2E-3, -0]", "[1,-2,3.5,1e10,2e-3,-0]"),
            (
                "[.5, -.5, 2., 2e, 2e+, 1_000, 1_234.5_6]",
                "[0.5,-0.5,2.0,2e0,2e+0,1000,1234.56]",
            ),
            ("[0789, -05, 00.]", r#"["0789","-05","00."]"#),
            ("[1e999, -1e999, 1e-999]", r#"["1e999","-1e999",1e-999]"#),
            ("{\"a\":2/*c*/}", r#"{"a":2}"#),
            (
                "{\"v\": 12345678901234567890}",
                r#"{"v":12345678901234567890}"#,
            ),
            // not numbers: text
            (
                "[1.1.1, 2024-10-18T18:35:22Z, 1/3, 12ab]",
                r#"["1.1.1","2024-10-18T18:35:22Z","1/3","12ab"]"#,
            ),
        ]);
    }

    #[test]
    fn literals_in_every_spelling() {
        check_table(&[
            ("[true, false, null]", "[true,false,null]"),
            ("[True, False, None]", "[true,false,null]"),
            (
                "[undefined, NaN, Infinity, -Infinity]",
                "[null,null,null,null]",
            ),
            (
                "[trueish, Nonesuch, nullifiable]",
                r#"["trueish","Nonesuch","nullifiable"]"#,
            ),
        ]);
    }

    #[test]
    fn unquoted_text_becomes_strings() {
        check_table(&[
            ("{greeting: hello world!}", r#"{"greeting":"hello world!"}"#),
            (
                "{url: https://example.org/a, id: 2}",
                r#"{"url":"https://example.org/a","id":2}"#,
            ),
            ("[a, b c ,d\n e]", r#"["a","b c","d","e"]"#),
            ("{\"a\": foo\", \"b\": 1}", r#"{"a":"foo","b":1}"#),
            ("{a\": 1}", r#"{"a":1}"#),
            ("{\"a\": value \"b\": 2}", r#"{"a":"value","b":2}"#),
            ("{\"a\": it's // note\n}", r#"{"a":"it's"}"#),
            ("{1: one, $x_2: two}", r#"{"1":"one","$x_2":"two"}"#),
            // a key is text, whatever it spells (found by the fuzz target)
            (
                "{undefined: 1, null: 2, True: 3}",
                r#"{"undefined":1,"null":2,"True":3}"#,
            ),
            ("{undefined{", r#"{"undefined":{}}"#),
            ("[tab\u{1}]", r#"["tab\u0001"]"#),
        ]);
    }

    #[test]
    fn wrapper_calls_yield_their_argument() {
        check_table(&[
            (
                "{\"id\": ObjectId(\"123\"), \"n\": NumberLong(2)}",
                r#"{"id":"123","n":2}"#,
            ),
            ("[f()]", "[null]"),
            ("[f(1]", "[1]"),
            ("[f(abc), g(x y)]", r#"["abc","x y"]"#),
            ("callback({\"a\": [1]});", r#"{"a":[1]}"#),
        ]);
    }
}
