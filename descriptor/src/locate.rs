//! Where things are in a descriptor file: JSON pointers to byte spans,
//! byte offsets to lines and columns, and duplicate keys (which a parsed
//! `serde_json::Value` silently drops).
//!
//! The walker reads only text that `serde_json` has already accepted, but
//! it never trusts that: every step is bounds-checked and a surprise ends
//! the walk with `None`.

use std::borrow::Cow;
use std::collections::HashSet;
use std::ops::Range;

use jig_lineage::{escape_pointer_segment, unescape_pointer_segment};

/// A value found at a JSON pointer: its span, and its key's span when it
/// is an object member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) key: Option<Range<usize>>,
    pub(crate) value: Range<usize>,
}

/// A line and column (1-based; the column counts characters) of a byte
/// offset in `source`.
pub(crate) fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let offset = floor_char_boundary(source, offset);
    let before = source.get(..offset).unwrap_or_default();
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).unwrap_or_default().chars().count() + 1;
    (line, column)
}

/// The byte offset of a 1-based line and byte column (as `serde_json`
/// reports them; column 0 means the start of the line).
pub(crate) fn offset_of(source: &str, line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match source.get(start..).and_then(|rest| rest.find('\n')) {
            Some(i) => start += i + 1,
            None => return source.len(),
        }
    }
    floor_char_boundary(source, start + column.saturating_sub(1))
}

/// The largest character boundary of `source` at or before `offset`.
pub(crate) fn floor_char_boundary(source: &str, offset: usize) -> usize {
    let mut offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// The value at `pointer` (`""` is the whole document).
pub(crate) fn locate(source: &str, pointer: &str) -> Option<Found> {
    let target: Vec<String> = if pointer.is_empty() {
        Vec::new()
    } else {
        pointer
            .strip_prefix('/')?
            .split('/')
            .map(unescape_pointer_segment)
            .collect()
    };
    let mut found = None;
    let mut walker = Walker::new(source);
    let value = walker.value(&mut Vec::new(), &mut |path, key, value| {
        if found.is_none()
            && path
                .iter()
                .map(|s| s.as_ref())
                .eq(target.iter().map(String::as_str))
        {
            found = Some(Found {
                key: Some(key),
                value,
            });
        }
    })?;
    if target.is_empty() {
        return Some(Found { key: None, value });
    }
    found
}

/// The first key that appears twice in one object: the pointer of the
/// second occurrence and its key's span.
pub(crate) fn duplicate_key(source: &str) -> Option<(String, Range<usize>)> {
    let mut walker = Walker::new(source);
    walker.value(&mut Vec::new(), &mut |_, _, _| {})?;
    walker.duplicate
}

/// The JSON pointer of a path of segments.
pub(crate) fn pointer<S: AsRef<str>>(path: &[S]) -> String {
    path.iter()
        .map(|s| format!("/{}", escape_pointer_segment(s.as_ref())))
        .collect()
}

/// Members are reported as (path of the member, key span, value span);
/// array items as (path, value span, value span).
type Visit<'v, 's> = dyn FnMut(&[Cow<'s, str>], Range<usize>, Range<usize>) + 'v;

struct Walker<'s> {
    source: &'s str,
    bytes: &'s [u8],
    pos: usize,
    depth: usize,
    /// The first duplicate key met: its pointer and span.
    duplicate: Option<(String, Range<usize>)>,
}

/// Deeper than `serde_json` accepts: the walker gives up.
const MAX_DEPTH: usize = 256;

impl<'s> Walker<'s> {
    fn new(source: &'s str) -> Self {
        Self {
            source,
            bytes: source.as_bytes(),
            pos: 0,
            depth: 0,
            duplicate: None,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        self.skip_whitespace();
        (self.peek()? == byte).then(|| self.pos += 1)
    }

    fn value(
        &mut self,
        path: &mut Vec<Cow<'s, str>>,
        visit: &mut Visit<'_, 's>,
    ) -> Option<Range<usize>> {
        self.skip_whitespace();
        let start = self.pos;
        match self.peek()? {
            b'{' => self.object(path, visit)?,
            b'[' => self.array(path, visit)?,
            b'"' => {
                self.string()?;
            }
            _ => {
                while !matches!(
                    self.peek(),
                    None | Some(b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r')
                ) {
                    self.pos += 1;
                }
                if self.pos == start {
                    return None;
                }
            }
        }
        Some(start..self.pos)
    }

    fn string(&mut self) -> Option<Range<usize>> {
        let start = self.pos;
        self.pos += 1;
        loop {
            match self.peek()? {
                b'\\' => self.pos += 2,
                b'"' => {
                    self.pos += 1;
                    return Some(start..self.pos);
                }
                _ => self.pos += 1,
            }
        }
    }

    /// A key's text: borrowed when it holds no escape.
    fn key_text(&self, span: Range<usize>) -> Option<Cow<'s, str>> {
        let raw = self.source.get(span)?;
        let inner = raw.get(1..raw.len().checked_sub(1)?)?;
        if inner.contains('\\') {
            serde_json::from_str::<String>(raw).ok().map(Cow::Owned)
        } else {
            Some(Cow::Borrowed(inner))
        }
    }

    fn nested(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth <= MAX_DEPTH).then_some(())
    }

    fn object(&mut self, path: &mut Vec<Cow<'s, str>>, visit: &mut Visit<'_, 's>) -> Option<()> {
        self.nested()?;
        self.pos += 1;
        self.skip_whitespace();
        if self.peek()? == b'}' {
            self.pos += 1;
            self.depth -= 1;
            return Some(());
        }
        let mut seen: HashSet<Cow<'s, str>> = HashSet::new();
        loop {
            self.skip_whitespace();
            if self.peek()? != b'"' {
                return None;
            }
            let key = self.string()?;
            let name = self.key_text(key.clone())?;
            if !seen.insert(name.clone()) && self.duplicate.is_none() {
                path.push(name.clone());
                self.duplicate = Some((pointer(path), key.clone()));
                path.pop();
            }
            self.expect(b':')?;
            path.push(name);
            let value = self.value(path, visit)?;
            visit(path, key, value);
            path.pop();
            self.skip_whitespace();
            match self.peek()? {
                b',' => self.pos += 1,
                b'}' => {
                    self.pos += 1;
                    self.depth -= 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    fn array(&mut self, path: &mut Vec<Cow<'s, str>>, visit: &mut Visit<'_, 's>) -> Option<()> {
        self.nested()?;
        self.pos += 1;
        self.skip_whitespace();
        if self.peek()? == b']' {
            self.pos += 1;
            self.depth -= 1;
            return Some(());
        }
        let mut index = 0usize;
        loop {
            path.push(Cow::Owned(index.to_string()));
            let value = self.value(path, visit)?;
            visit(path, value.clone(), value);
            path.pop();
            index += 1;
            self.skip_whitespace();
            match self.peek()? {
                b',' => self.pos += 1,
                b']' => {
                    self.pos += 1;
                    self.depth -= 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "{\n  \"name\": \"x\",\n  \"arguments\": {\"a/b\": {\"enum\": [1, \"t\u{e9}\"]}},\n  \"k\\\"q\": null\n}";

    fn text_at(pointer: &str) -> Option<(Option<&'static str>, &'static str)> {
        let found = locate(TEXT, pointer)?;
        Some((found.key.map(|k| &TEXT[k]), &TEXT[found.value]))
    }

    #[test]
    fn pointers_find_spans() {
        assert_eq!(text_at("/name"), Some((Some("\"name\""), "\"x\"")));
        assert_eq!(
            text_at("/arguments/a~1b/enum/1"),
            Some((Some("\"t\u{e9}\""), "\"t\u{e9}\""))
        );
        assert_eq!(text_at("/k\"q"), Some((Some("\"k\\\"q\""), "null")));
        assert_eq!(text_at("").map(|(_, v)| v.len()), Some(TEXT.len()));
        assert_eq!(text_at("/missing"), None);
        assert_eq!(text_at("no-slash"), None);
    }

    #[test]
    fn lines_and_columns() {
        let offset = TEXT.find("\"x\"").unwrap();
        assert_eq!(line_column(TEXT, offset), (2, 11));
        assert_eq!(offset_of(TEXT, 2, 11), offset);
        assert_eq!(offset_of(TEXT, 2, 0), TEXT.find("  \"name").unwrap());
        assert_eq!(offset_of(TEXT, 99, 1), TEXT.len());
        assert_eq!(line_column("", 5), (1, 1));
    }

    #[test]
    fn duplicates_are_found() {
        let text = r#"{"a": 1, "b": {"c": 1, "c": 2}, "a": 3}"#;
        let (pointer, key) = duplicate_key(text).unwrap();
        assert_eq!(pointer, "/b/c");
        assert_eq!(&text[key], "\"c\"");
        assert_eq!(
            duplicate_key(r#"{"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}]}"#),
            None
        );
    }

    #[test]
    fn garbage_never_panics() {
        for text in [
            "", "{", "{\"a\"", "[1,", "\"abc", "{\"a\":}", "{,}", "\u{e9}", "{\"\\", "[[[[[",
        ] {
            let _ = locate(text, "/a");
            let _ = duplicate_key(text);
            let _ = line_column(text, 3);
            let _ = offset_of(text, 1, 9);
        }
    }
}
