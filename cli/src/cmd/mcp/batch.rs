//! JSON-RPC batches: a line holding an array of messages (which MCP
//! 2025-03-26 clients may send, and its servers must take) gets one line
//! back, the array of the answers to its requests, in the order they were
//! made.
//!
//! Each member is routed as a line of its own would be (see
//! `Framer::route`). The answers the framing layer makes itself (a bad
//! member, an id in flight...) are added as they are made; those of the
//! requests handed to rmcp are waited for: the writer takes each from its
//! way to stdout (see [`Pending::batch_of`](super::framing::Pending)) and
//! writes the array once the last one is in and every member was routed.
//! Notifications and responses get nothing; a batch of only those gets no
//! line at all. A call the client cancels gets no answer (as outside a
//! batch), and the batch is written without it. What a batch holds when
//! the connection ends is written as it is.

use std::collections::HashSet;
use std::sync::{Mutex, MutexGuard, PoisonError};

use super::framing::IdKey;

/// One batch's answers, as they come.
#[derive(Default)]
pub(crate) struct Batch {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Each answer's JSON text, in the order it came.
    answers: Vec<String>,
    /// The requests handed to rmcp whose answer has not come.
    expected: HashSet<IdKey>,
    /// Every member was routed: no answer is added but those expected.
    sealed: bool,
    /// The array was given out (to be written), or there was none.
    done: bool,
}

impl Batch {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds an answer the framing layer made for a member.
    pub(crate) fn add(&self, answer: String) {
        self.state().answers.push(answer);
    }

    /// Waits for the answer of `id`, a member handed to rmcp.
    pub(crate) fn expect(&self, id: IdKey) {
        self.state().expected.insert(id);
    }

    /// Takes the answer of the member `id`; the array's line, when it was
    /// the last one the sealed batch waited for.
    pub(crate) fn answered(&self, id: &IdKey, answer: String) -> Option<String> {
        let mut state = self.state();
        state.expected.remove(id);
        state.answers.push(answer);
        state.complete()
    }

    /// The client cancelled the member `id`: no answer comes for it. The
    /// array's line, when the sealed batch waited for that one only.
    pub(crate) fn forget(&self, id: &IdKey) -> Option<String> {
        let mut state = self.state();
        if state.expected.remove(id) {
            state.complete()
        } else {
            None
        }
    }

    /// Every member was routed: the array's line, when no answer is waited
    /// for.
    pub(crate) fn seal(&self) -> Option<String> {
        let mut state = self.state();
        state.sealed = true;
        state.complete()
    }

    /// The connection ends: the line of the answers it holds, if it holds
    /// any and was not written.
    pub(crate) fn rest(&self) -> Option<String> {
        let mut state = self.state();
        if state.done {
            return None;
        }
        state.done = true;
        state.line()
    }
}

impl State {
    /// The array's line once every member was routed and every answer is
    /// in, given out once; `None` as well for a batch without answers.
    fn complete(&mut self) -> Option<String> {
        if self.done || !self.sealed || !self.expected.is_empty() {
            return None;
        }
        self.done = true;
        self.line()
    }

    /// The answers as a JSON array, `None` when there are none (JSON-RPC:
    /// never an empty array).
    fn line(&mut self) -> Option<String> {
        // An answer that could not be written out (never, for the
        // messages this server makes) would break the array: left out.
        self.answers.retain(|answer| !answer.is_empty());
        if self.answers.is_empty() {
            return None;
        }
        let answers = std::mem::take(&mut self.answers);
        Some(format!("[{}]", answers.join(",")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_array_comes_once_every_member_is_routed_and_answered() {
        let batch = Batch::default();
        batch.add(r#"{"id":null}"#.to_owned());
        batch.expect(IdKey::Number(1));
        batch.expect(IdKey::Number(2));
        // An answer before the batch is sealed completes nothing.
        assert_eq!(
            batch.answered(&IdKey::Number(1), r#"{"id":1}"#.to_owned()),
            None
        );
        assert_eq!(batch.seal(), None);
        assert_eq!(
            batch.answered(&IdKey::Number(2), r#"{"id":2}"#.to_owned()),
            Some(r#"[{"id":null},{"id":1},{"id":2}]"#.to_owned())
        );
        // Given out once.
        assert_eq!(batch.rest(), None);
        assert_eq!(batch.seal(), None);
    }

    #[test]
    fn a_cancelled_member_is_not_waited_for_and_no_answers_make_no_line() {
        let batch = Batch::default();
        batch.expect(IdKey::Text("a".to_owned()));
        batch.expect(IdKey::Number(2));
        assert_eq!(batch.seal(), None);
        assert_eq!(batch.forget(&IdKey::Number(7)), None);
        assert_eq!(batch.answered(&IdKey::Number(2), "{}".to_owned()), None);
        assert_eq!(
            batch.forget(&IdKey::Text("a".to_owned())),
            Some("[{}]".to_owned())
        );
        let notifications_only = Batch::default();
        assert_eq!(notifications_only.seal(), None);
        assert_eq!(notifications_only.rest(), None);
    }

    #[test]
    fn what_an_unfinished_batch_holds_is_given_at_the_end() {
        let batch = Batch::default();
        batch.add("{}".to_owned());
        batch.expect(IdKey::Number(1));
        assert_eq!(batch.seal(), None);
        assert_eq!(batch.rest(), Some("[{}]".to_owned()));
        assert_eq!(batch.answered(&IdKey::Number(1), "{}".to_owned()), None);
    }
}
