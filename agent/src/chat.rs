//! The chat-model interface: a conversation in, the model's next message
//! out.

use crate::ToolInfo;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Role {
    /// The instructions: the system prompt.
    System,
    /// The person, or the loop speaking for the tools in prompt mode.
    User,
    /// The model.
    Assistant,
    /// A tool's result in native mode, answering one native call.
    Tool,
}

impl Role {
    /// `system`, `user`, `assistant` or `tool`, as chat APIs spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

/// A tool call as a native tool-calling API sends it: an id to answer, a
/// name, and the arguments as the text the model wrote (usually the text
/// of a JSON object, not always a valid one).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NativeCall {
    /// The id the `tool` message answering this call must carry.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, as text.
    pub arguments: String,
}

impl NativeCall {
    /// A native call.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// Its text (empty for an assistant message that only calls tools).
    pub content: String,
    /// The native tool calls of an assistant message (native mode only).
    pub tool_calls: Vec<NativeCall>,
    /// The call a `tool` message answers.
    pub tool_call_id: Option<String>,
}

impl Message {
    fn new(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }

    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Self::new(Role::System, content)
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self::new(Role::User, content)
    }

    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::new(Role::Assistant, content)
    }

    /// A tool message answering the native call `id`.
    pub fn tool(id: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            tool_call_id: Some(id.into()),
            ..Self::new(Role::Tool, content)
        }
    }

    /// This message with native tool calls.
    pub fn with_tool_calls(mut self, calls: impl IntoIterator<Item = NativeCall>) -> Self {
        self.tool_calls.extend(calls);
        self
    }
}

/// A chat model: given the conversation, its next message.
///
/// The loop calls it once per round. An implementation for OpenAI-compatible
/// endpoints is [`OpenAiClient`](crate::OpenAiClient) (feature `openai`);
/// tests and other backends implement it directly.
pub trait ChatModel {
    /// The model's next message (an assistant message) after `messages`.
    ///
    /// `tools` is empty in prompt mode, where the tools are described in
    /// the system prompt; in native mode it lists the tools to send in the
    /// request, and the reply may hold [`Message::tool_calls`].
    ///
    /// # Errors
    ///
    /// A [`ChatError`] when the model could not be asked or its answer not
    /// read; the loop stops with it.
    fn complete(&mut self, messages: &[Message], tools: &[ToolInfo]) -> Result<Message, ChatError>;
}

impl<M: ChatModel + ?Sized> ChatModel for &mut M {
    fn complete(&mut self, messages: &[Message], tools: &[ToolInfo]) -> Result<Message, ChatError> {
        (**self).complete(messages, tools)
    }
}

impl<M: ChatModel + ?Sized> ChatModel for Box<M> {
    fn complete(&mut self, messages: &[Message], tools: &[ToolInfo]) -> Result<Message, ChatError> {
        (**self).complete(messages, tools)
    }
}

/// Why the model could not be asked, or its answer not read. Messages never
/// hold credentials.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ChatError {
    /// The endpoint could not be reached, or the exchange failed (refused
    /// connection, timeout, broken stream).
    #[error("cannot reach the model at {endpoint}: {message}")]
    Transport {
        /// The URL asked.
        endpoint: String,
        /// What went wrong.
        message: String,
    },
    /// The endpoint answered with an error status.
    #[error("the model endpoint {endpoint} answered {status}: {body}")]
    Status {
        /// The URL asked.
        endpoint: String,
        /// The HTTP status.
        status: u16,
        /// The start of the answer's body.
        body: String,
    },
    /// The answer is not a chat completion this client can read.
    #[error("the answer of {endpoint} is not a chat completion: {reason}")]
    BadResponse {
        /// The URL asked.
        endpoint: String,
        /// What is wrong with it.
        reason: String,
    },
}
