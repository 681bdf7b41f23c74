//! What can still be told of a line that is not a JSON-RPC message as
//! written: its `id`, and whether it is a request, a notification or a
//! response, so that the error it gets carries the id its client waits on
//! (or, for a notification, no answer at all).
//!
//! A line that is not JSON (a `NaN`, `1e999`, a lone surrogate, a byte that
//! is not UTF-8, nesting past 128) or is over the line limit is refused all
//! the same; only the answer's `id` and whether there is an answer come
//! from here. The read is lenient where the strict parser is not, and only
//! there: the top-level object's members are walked in order, each key and
//! the `id`'s value read strictly (`serde_json`), every other value skipped
//! by its brackets and strings without being read. What cannot be walked
//! ends the walk: the members before it count, none after it.

use serde_json::Value;

/// What the lenient walk found in a line's top-level object.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Envelope {
    /// The value of the last `id` member walked, when it is one a request
    /// may carry (see [`usable_id`]); `None` as well when that value is not
    /// (the strict parser keeps the last of repeated members too).
    id: Option<Value>,
    /// Whether an `id` member was walked at all, usable or not.
    has_id: bool,
    /// Whether a `method` member whose value is a string was walked.
    method: bool,
    /// Whether a `result` or an `error` member was walked (a response).
    response: bool,
    /// Whether the walk reached the object's closing brace: every member
    /// was walked.
    whole: bool,
}

/// How a line that is refused is answered.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Reply {
    /// Under this id: the line is a request whose id could be read.
    To(Value),
    /// Under `id: null`: nothing tells which request it was.
    Null,
    /// Not at all: the whole line was walked and it is a notification (a
    /// `method` and no `id`) or a response (jig sends no requests).
    Silent,
}

impl Envelope {
    /// Walks `text` (a line without its newline, or the first bytes of a
    /// line too long to hold).
    pub(crate) fn of(text: &[u8]) -> Envelope {
        let mut envelope = Envelope::default();
        envelope.whole = members(text, |key, value| match key {
            Some("id") => {
                envelope.has_id = true;
                envelope.id = serde_json::from_slice::<Value>(value)
                    .ok()
                    .filter(usable_id);
            }
            Some("method") => {
                envelope.method =
                    serde_json::from_slice::<Value>(value).is_ok_and(|method| method.is_string());
            }
            Some("result" | "error") => envelope.response = true,
            _ => {}
        });
        envelope
    }

    /// How the refused line is answered: under its id when it is a request
    /// whose id was read; not at all when the whole line was walked and it
    /// is a notification or a response; under `id: null` otherwise.
    pub(crate) fn reply(self) -> Reply {
        match self {
            Envelope {
                has_id: false,
                method: true,
                whole: true,
                ..
            } => Reply::Silent,
            Envelope {
                response: true,
                method: false,
                whole: true,
                ..
            } => Reply::Silent,
            Envelope {
                id: Some(id),
                response: false,
                ..
            } => Reply::To(id),
            _ => Reply::Null,
        }
    }
}

/// The text of the last `id` member of the object `text` holds, as
/// written: a number the parser could only read approximately (an integer
/// past 64 bits, a fraction with more digits than a double keeps) is
/// answered under the very id its client sent, not under the double that
/// stands for it.
pub(crate) fn raw_id(text: &[u8]) -> Option<&[u8]> {
    let mut id = None;
    members(text, |key, value| {
        if key == Some("id") {
            id = Some(value);
        }
    });
    id
}

/// Walks the members of the top-level object in `text` in order, giving
/// each one's key (`None` when it is not a valid JSON string) and its value
/// unread; whether the walk reached the closing brace.
fn members<'a>(text: &'a [u8], mut member: impl FnMut(Option<&str>, &'a [u8])) -> bool {
    let mut walk = Walk { text, at: 0 };
    walk.blank();
    if !walk.eat(b'{') {
        return false;
    }
    loop {
        walk.blank();
        if walk.eat(b'}') {
            return true;
        }
        let Some(key) = walk.string() else {
            return false;
        };
        let key: Option<String> = serde_json::from_slice(key).ok();
        walk.blank();
        if !walk.eat(b':') {
            return false;
        }
        walk.blank();
        let Some(value) = walk.value() else {
            return false;
        };
        member(key.as_deref(), value);
        walk.blank();
        if walk.eat(b'}') {
            return true;
        }
        if !walk.eat(b',') {
            return false;
        }
    }
}

/// Whether `id` is one a request may carry: an integer, or a string no
/// longer than the framing layer keys (see `IdKey`).
fn usable_id(id: &Value) -> bool {
    super::framing::IdKey::from_json(id).is_some()
}

/// A position in the line being walked.
struct Walk<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> Walk<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    /// Skips JSON's white space.
    fn blank(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// Takes `byte` if it comes next.
    fn eat(&mut self, byte: u8) -> bool {
        let next = self.peek() == Some(byte);
        if next {
            self.at += 1;
        }
        next
    }

    /// The string that comes next, quotes included, its escapes skipped
    /// unread; `None` when none comes or it does not end.
    fn string(&mut self) -> Option<&'a [u8]> {
        let start = self.at;
        if !self.eat(b'"') {
            return None;
        }
        loop {
            match self.peek()? {
                b'\\' => self.at += 2,
                b'"' => {
                    self.at += 1;
                    return self.text.get(start..self.at);
                }
                _ => self.at += 1,
            }
        }
    }

    /// The value that comes next, unread: a string, an object or array up
    /// to its matching bracket (strings inside skipped as strings), or any
    /// other run of bytes up to a comma, a closing bracket or white space.
    /// `None` when it does not end within the text, or is empty.
    fn value(&mut self) -> Option<&'a [u8]> {
        let start = self.at;
        match self.peek()? {
            b'"' => return self.string(),
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                self.at += 1;
                                return self.text.get(start..self.at);
                            }
                        }
                        _ => {}
                    }
                    self.at += 1;
                }
            }
            _ => {
                while let Some(byte) = self.peek() {
                    if matches!(byte, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                        break;
                    }
                    self.at += 1;
                }
            }
        }
        (self.at > start)
            .then(|| self.text.get(start..self.at))
            .flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn reply(text: &str) -> Reply {
        Envelope::of(text.as_bytes()).reply()
    }

    #[test]
    fn a_request_that_is_not_json_is_answered_under_its_id() {
        for line in [
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":NaN}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":1e999}}"#,
            r#"{"jsonrpc":"2.0","method":"ping","params":{"s":"\ud800"},"id":7}"#,
            r#"{"id" : 7 , "method":"ping","params":[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"text":"AAAA"#,
            r#"{"\u0069d":7,"method":"ping","params":{"a":"},{\"]"},"x":tru}"#,
        ] {
            assert_eq!(reply(line), Reply::To(json!(7)), "{line}");
        }
        assert_eq!(
            reply(r#"{"id":"req-1","method":"ping","params":NaN}"#),
            Reply::To(json!("req-1"))
        );
    }

    #[test]
    fn invalid_utf8_outside_the_id_keeps_the_id() {
        let mut line = br#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{"s":""#.to_vec();
        line.extend_from_slice(b"\xff\xfe\"}}");
        assert_eq!(Envelope::of(&line).reply(), Reply::To(json!(3)));
    }

    #[test]
    fn a_notification_walked_whole_is_not_answered() {
        assert_eq!(
            reply(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"p":NaN}}"#),
            Reply::Silent
        );
        assert_eq!(
            reply(r#"{"jsonrpc":"2.0","id":1,"result":{"x":1e999}}"#),
            Reply::Silent
        );
    }

    #[test]
    fn what_cannot_be_told_is_answered_under_null() {
        for line in [
            "not json",
            r#"{"jsonrpc":"2.0","method":"ping","params":{"p":NaN"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping","x":NaN}"#,
            r#"{"jsonrpc":"2.0","id":NaN,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping","x":NaN}"#,
            r#"{"jsonrpc":"2.0" "id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0",NaN,"id":1,"method":"ping"}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"id":1,"id":NaN,"method":"ping"}"#,
            "",
            "{",
            r#"{"id":"#,
            r#"{"id":"\x"}"#,
        ] {
            assert_eq!(reply(line), Reply::Null, "{line}");
        }
        let long_id = "i".repeat(super::super::framing::MAX_ID_BYTES + 1);
        let line = format!(r#"{{"id":"{long_id}","method":"ping","x":NaN}}"#);
        assert!(
            reply(&line) == Reply::Null,
            "an id over the limit is not one"
        );
    }

    proptest! {
        /// Any bytes: the walk ends, without a panic, and an id it reports
        /// is one a request may carry.
        #[test]
        fn any_bytes_are_walked(text in proptest::collection::vec(any::<u8>(), 0..400)) {
            if let Reply::To(id) = Envelope::of(&text).reply() {
                prop_assert!(usable_id(&id));
            }
        }

        /// A request whose id comes before a broken value is answered
        /// under that id, whatever the broken value is.
        #[test]
        fn an_id_before_the_damage_is_kept(
            id in any::<i64>(),
            // Without a quote, the damage cannot make a member of its own.
            damage in proptest::collection::vec(any::<u8>().prop_filter("no quote", |b| *b != b'"'), 0..200),
        ) {
            let mut line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","params":"#)
                .into_bytes();
            line.extend_from_slice(&damage);
            prop_assert_eq!(Envelope::of(&line).reply(), Reply::To(json!(id)));
        }
    }
}
