//! What a run of the loop leaves: its rounds, the whole conversation, and
//! why it stopped; and the events an observer sees as it goes.

use jig_lineage::ToolResult;

use jig_toolcall::ToolCall;

use crate::{ChatError, Message};

/// Why the loop stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StopReason {
    /// The model sent the finish call (prompt mode).
    Finished {
        /// Its `answer` argument (the other arguments as JSON when it has
        /// none).
        answer: String,
    },
    /// The model replied without a call: in prompt mode a reply in which
    /// no call is read, in native mode a reply without `tool_calls` (the usual
    /// way a native model ends).
    NoCall {
        /// The reply.
        text: String,
    },
    /// The maximum number of rounds was reached.
    MaxRounds {
        /// The rounds that ran.
        rounds: usize,
    },
    /// The model kept sending calls that cannot be used after every
    /// correction it was allowed.
    Unrepairable {
        /// What was wrong with the last one.
        reason: String,
    },
    /// The model could not be asked, or its answer not read.
    ModelFailed(ChatError),
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StopReason::Finished { answer } => write!(f, "finished: {answer}"),
            StopReason::NoCall { text } => write!(f, "the model replied without a call: {text}"),
            StopReason::MaxRounds { rounds } => {
                write!(f, "stopped after the maximum of {rounds} rounds")
            }
            StopReason::Unrepairable { reason } => {
                write!(f, "the model kept sending unusable calls: {reason}")
            }
            StopReason::ModelFailed(error) => write!(f, "{error}"),
        }
    }
}

/// What the loop did with one call of a reply.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
#[expect(
    clippy::large_enum_variant,
    reason = "a run holds a few actions; boxing the result would only make matching noisier"
)]
pub enum Action {
    /// The call went through the dispatcher.
    Called {
        /// The call, normalized.
        call: ToolCall,
        /// The native call's id (native mode).
        id: Option<String>,
        /// What the dispatcher gave back.
        result: ToolResult,
        /// The result text fed back to the model (cut to the loop's
        /// maximum).
        fed_back: String,
    },
    /// The call could not be used; a correction was sent.
    Corrected {
        /// The native call's id (native mode).
        id: Option<String>,
        /// What was wrong.
        reason: String,
        /// The correction sent to the model.
        message: String,
    },
}

/// One round: the model's reply and what was done with it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Round {
    /// The round's number, from 1.
    pub number: usize,
    /// The model's reply.
    pub reply: Message,
    /// What was done with each call of the reply, in order: none when the
    /// reply ends the run at once; one action per call that ran, or the
    /// corrections when a call could not be read.
    pub actions: Vec<Action>,
}

/// A whole run.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Transcript {
    /// The rounds, in order.
    pub rounds: Vec<Round>,
    /// The whole conversation, system prompt first, as last sent (plus the
    /// last reply).
    pub messages: Vec<Message>,
    /// Why it stopped.
    pub stop: StopReason,
}

/// What an observer of the loop sees, as it happens.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Event<'a> {
    /// The model replied.
    Reply {
        /// The round's number, from 1.
        round: usize,
        /// The reply.
        message: &'a Message,
    },
    /// A call of the reply was dispatched, or corrected.
    Action {
        /// The round's number, from 1.
        round: usize,
        /// What was done.
        action: &'a Action,
    },
    /// The loop stopped.
    Stop {
        /// Why.
        reason: &'a StopReason,
    },
}
