//! Literal values of the formats that are not JSON: Python literals
//! (`'text'`, `True`, `None`, lists, tuples, dicts) and Gemma's
//! (`<escape>text<escape>`, `<|"|>text<|"|>`, bare keys).

use serde_json::{Map, Number, Value};

use super::scan::{Scan, is_name_char, is_name_start};
use crate::parser::MAX_DEPTH;

/// Gemma's string delimiters: the text between two of them is taken as it
/// is.
const RAW_QUOTES: [&str; 2] = ["<escape>", "<|\"|>"];

/// A reader of literal values over one text.
pub(crate) struct Literals<'t> {
    pub(crate) text: &'t str,
    pub(crate) pos: usize,
}

impl<'t> Literals<'t> {
    pub(crate) fn new(text: &'t str, pos: usize) -> Self {
        Literals { text, pos }
    }

    fn rest(&self) -> &'t str {
        self.text.get(self.pos..).unwrap_or("")
    }

    pub(crate) fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    pub(crate) fn skip_space(&mut self, scan: &mut Scan) {
        let rest = self.rest();
        let n = rest.len() - rest.trim_start().len();
        scan.count(n);
        self.pos += n;
    }

    /// Consumes `c` (after whitespace) when it is next.
    pub(crate) fn eat(&mut self, c: char, scan: &mut Scan) -> bool {
        self.skip_space(scan);
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            scan.count(1);
            true
        } else {
            false
        }
    }

    /// A name (`[A-Za-z_][A-Za-z0-9_.-]*`), consumed.
    pub(crate) fn name(&mut self, scan: &mut Scan) -> Option<&'t str> {
        self.skip_space(scan);
        let rest = self.rest();
        if !rest.starts_with(is_name_start) {
            return None;
        }
        let end = rest.find(|c: char| !is_name_char(c)).unwrap_or(rest.len());
        scan.count(end);
        self.pos += end;
        rest.get(..end)
    }

    /// One value; `None` when the text there is not a literal.
    pub(crate) fn value(&mut self, depth: usize, scan: &mut Scan) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.skip_space(scan);
        let rest = self.rest();
        for quote in RAW_QUOTES {
            if let Some(body) = rest.strip_prefix(quote) {
                let end = body.find(quote)?;
                scan.count(quote.len() * 2 + end);
                self.pos += quote.len() * 2 + end;
                return Some(Value::String(body.get(..end)?.to_owned()));
            }
        }
        match self.peek()? {
            q @ ('\'' | '"') => self.string(q, scan).map(Value::String),
            '[' => self.sequence('[', ']', depth, scan),
            '(' => self.sequence('(', ')', depth, scan),
            '{' => self.dict(depth, scan),
            c if c == '-' || c == '+' || c == '.' || c.is_ascii_digit() => self.number(scan),
            _ => match self.name(scan)? {
                "True" | "true" => Some(Value::Bool(true)),
                "False" | "false" => Some(Value::Bool(false)),
                "None" | "null" => Some(Value::Null),
                _ => None,
            },
        }
    }

    /// A quoted string with Python's escapes.
    fn string(&mut self, quote: char, scan: &mut Scan) -> Option<String> {
        let mut out = String::new();
        let mut chars = self.rest().char_indices();
        chars.next();
        while let Some((at, c)) = chars.next() {
            scan.count(1);
            if c == quote {
                self.pos += at + c.len_utf8();
                return Some(out);
            }
            if c != '\\' {
                out.push(c);
                continue;
            }
            let (_, escaped) = chars.next()?;
            match escaped {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                '0' => out.push('\0'),
                '\\' | '\'' | '"' => out.push(escaped),
                'u' => {
                    let hex: String = chars.by_ref().take(4).map(|(_, c)| c).collect();
                    let code = u32::from_str_radix(&hex, 16).ok()?;
                    out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                }
                '\n' => {}
                other => {
                    out.push('\\');
                    out.push(other);
                }
            }
        }
        None
    }

    fn number(&mut self, scan: &mut Scan) -> Option<Value> {
        let rest = self.rest();
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E' | '_')))
            .unwrap_or(rest.len());
        let token: String = rest.get(..end)?.chars().filter(|c| *c != '_').collect();
        scan.count(end);
        self.pos += end;
        let token = token.strip_prefix('+').unwrap_or(&token);
        if let Ok(int) = token.parse::<i64>() {
            return Some(Value::Number(int.into()));
        }
        let float = token.parse::<f64>().ok()?;
        Number::from_f64(float).map(Value::Number)
    }

    fn sequence(
        &mut self,
        open: char,
        close: char,
        depth: usize,
        scan: &mut Scan,
    ) -> Option<Value> {
        self.eat(open, scan);
        let mut items = Vec::new();
        loop {
            if self.eat(close, scan) {
                return Some(Value::Array(items));
            }
            items.push(self.value(depth + 1, scan)?);
            if !self.eat(',', scan) {
                return self.eat(close, scan).then_some(Value::Array(items));
            }
        }
    }

    /// A dict or Gemma object: keys quoted or bare, `:` between.
    pub(crate) fn dict(&mut self, depth: usize, scan: &mut Scan) -> Option<Value> {
        self.eat('{', scan);
        let mut map = Map::new();
        loop {
            if self.eat('}', scan) {
                return Some(Value::Object(map));
            }
            self.skip_space(scan);
            let key = if self.rest().starts_with(is_name_start) {
                let mut key = self.name(scan)?.to_owned();
                // a bare key of several words (`Basic LLM Chain:`), as Gemma
                // writes the names its tools' schemas use as keys
                while self.rest().starts_with(' ') {
                    let before = self.pos;
                    let Some(word) = self.name(scan) else {
                        self.pos = before;
                        break;
                    };
                    key.push(' ');
                    key.push_str(word);
                }
                key
            } else {
                match self.value(depth + 1, scan)? {
                    Value::String(text) => text,
                    Value::Number(number) => number.to_string(),
                    _ => return None,
                }
            };
            if !self.eat(':', scan) {
                return None;
            }
            let value = self.value(depth + 1, scan)?;
            map.insert(key, value);
            if !self.eat(',', scan) {
                return self.eat('}', scan).then_some(Value::Object(map));
            }
        }
    }
}
