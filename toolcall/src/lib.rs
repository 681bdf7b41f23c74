//! Tool calls for models without native tool calling: finds the JSON in a
//! model's free text, repairs it, tells a call from no call, and drives the
//! tool-call loop.
//!
//! Small models asked for "one JSON object" wrap it in chatter and code
//! fences, use single quotes and Python literals, comment, and stop
//! mid-object. [`repair`] turns such text into valid JSON;
//! [`extract_call`] turns a reply into one of three outcomes: a
//! [`ToolCall`], [`CallOutcome::NoCall`] (the model is talking or done), or
//! [`CallOutcome::Unrepairable`] with a reason written for the model (ask
//! again).
//!
//! # Guarantees
//!
//! - The output is valid JSON or a typed error ([`RepairError`]), never
//!   invalid JSON: every repaired text is checked with `serde_json` before
//!   it is returned.
//! - No input makes it panic: there is no `unwrap`, indexing or unbounded
//!   recursion on anything read from the text. Nesting deeper than
//!   [`MAX_DEPTH`] is [`RepairError::TooDeep`].
//! - Time is linear in the size of the input: one pass, in which a string
//!   whose end quote proves wrong is read at most once more. Tests count
//!   the characters visited on pathological inputs (100 000 quotes,
//!   brackets, commas...).
//! - Valid JSON comes back with the same value.
//!
//! # What is repaired
//!
//! - Text around the JSON: chatter before the first `{` or `[` and
//!   anything after the value it opens; Markdown code fences
//!   (```` ```json ````); JSONP and MongoDB wrappers (`callback({...});`,
//!   `NumberLong("2")`).
//! - Quotes: single, curly (`“ ” ‘ ’`) and backtick quotes; missing quotes
//!   around keys and text values; unescaped quotes inside strings
//!   (`"v"alue"`), apostrophes inside single-quoted strings (`'it's'`);
//!   strings whose end quote is missing, at the end of the text or before
//!   the next member (`{"a": "b, "c": 1}`); escaped quotes around
//!   everything (`{\"a\": 1}`); `"a" + "b"` concatenations; invalid escapes
//!   and lone surrogates.
//! - Comments: `/* */`, `//` and `#`.
//! - Commas: missing, trailing, leading or doubled; `...` ellipses.
//! - Colons: missing (`{"a" 1}`); stray text between members.
//! - Brackets: missing closing brackets (truncated output), mismatched
//!   or extra closing brackets.
//! - Literals: Python `True`, `False`, `None`; `undefined`, `NaN` and
//!   `Infinity` become `null`; numbers like `.5`, `2.`, `1_000`; numbers
//!   with leading zeros (`0789`) become strings.
//!
//! Where the two reference libraries whose test suites form the corpus
//! (`jsonrepair`, `json_repair`) disagree, this crate chose what serves a
//! tool call: see `REPAIR.md` in the crate's folder for each deliberate
//! difference and the measured agreement.
//!
//! # Call shapes
//!
//! [`extract_call`] (and [`ToolCall::from_json`]) accept these shapes and
//! normalize them to `{"name": ..., "arguments": {...}}`:
//!
//! | part | keys, in the order tried |
//! |---|---|
//! | name (a non-empty string) | `name`, `tool`, `tool_name`, `function`, `action` |
//! | arguments | `arguments`, `args`, `parameters`, `params`, `input`, `action_input`, `tool_input` |
//! | wrapper around a call | `function`, `function_call`, `tool_call`, `tool_calls`, `call`, `action` (an object, or an array whose first element is used) |
//!
//! So `{"name", "arguments"}`, `{"tool", "args"}`, `{"tool_name",
//! "parameters"}`, `{"function": {"name", "arguments"}}` (OpenAI's shape,
//! with or without `"type": "function"`) and `{"tool_calls": [...]}` are all
//! calls. Arguments may be an object or a string holding the text of one
//! (repaired too); missing, `null` or empty arguments are `{}`. Other keys
//! are ignored. A top-level array is a list of calls of which the first is
//! taken.
//!
//! # Non-goals
//!
//! - It does not validate arguments against a tool's schema, nor run
//!   anything: that is the registry's job (see jig-presets), behind the
//!   policy chain. Leniency here is safe because validation there is
//!   strict.
//! - It does not guess what was cut off: a truncated string or object is
//!   closed where the text ends.
//! - It does not return more than one value: text after the first value is
//!   ignored, even another value.
//! - The loop does not stream replies, nor run calls in parallel; the HTTP
//!   client reads no environment variable (the caller passes the API key,
//!   and a proxy only on request).
//!
//! # Example
//!
//! ```
//! use jig_toolcall::{CallOutcome, extract_call, repair};
//!
//! # fn main() -> Result<(), jig_toolcall::RepairError> {
//! let reply = "Sure! ```json\n{'name': 'read_file', 'arguments': {path: 'src/main.rs',} // done\n```";
//! assert_eq!(
//!     repair(reply)?,
//!     r#"{"name":"read_file","arguments":{"path":"src/main.rs"}}"#
//! );
//!
//! let CallOutcome::Call(call) = extract_call(reply) else {
//!     panic!("expected a call");
//! };
//! assert_eq!(call.name(), "read_file");
//! assert_eq!(call.arguments()["path"], "src/main.rs");
//!
//! assert!(matches!(extract_call("All done, the file is fixed."), CallOutcome::NoCall));
//! # Ok(())
//! # }
//! ```
//!
//! # The loop
//!
//! [`AgentLoop`] drives a model through a task: it sends the conversation
//! to a [`ChatModel`], takes the call out of the reply, dispatches it
//! through a [`Dispatcher`] (`jig_presets::Registry` is one, so every layer
//! applies: policy, slot validation, the kernel), appends the result, and
//! repeats. It stops on the finish call, on a reply without a call, after
//! a maximum number of rounds, or when the model keeps sending calls that
//! cannot be used after the corrections it was allowed. Each reply and
//! each call is reported to an observer as it happens; the run comes back
//! as a [`Transcript`].
//!
//! Two [`Mode`]s:
//!
//! - **prompt** (the default, for models without native tool calling): the
//!   system prompt ([`PromptBuilder`]) lists the tools with their
//!   arguments and asks for exactly one JSON object per reply,
//!   `{"name": "<tool>", "arguments": {...}}`. The task ends with the
//!   finish call `{"name": "done", "arguments": {"answer": "..."}}`
//!   ([`StopReason::Finished`]) or a reply without any JSON object
//!   ([`StopReason::NoCall`]). Results come back as user messages.
//! - **native**: the tools go in the request's `tools` field, calls come
//!   back as `tool_calls` (their argument text repaired like any other),
//!   results go back as `tool` messages. A reply without `tool_calls` ends
//!   the task.
//!
//! The loop never reaches a tool but through the dispatcher, and the text
//! it feeds back is bounded ([`AgentLoop::with_max_result_bytes`]) on top
//! of each tool's own output budget.
//!
//! ```
//! use jig_lineage::{ErrorCode, Refusal, ToolResult};
//! use jig_toolcall::{
//!     AgentLoop, ChatError, ChatModel, Dispatcher, Message, StopReason, ToolInfo,
//! };
//! use serde_json::{Value, json};
//!
//! /// A dispatcher that refuses everything (a registry in real use).
//! struct Refuse;
//! impl Dispatcher for Refuse {
//!     fn tools(&self) -> Vec<ToolInfo> {
//!         vec![ToolInfo::new("ls", "List a folder", json!({"type": "object"}))]
//!     }
//!     fn dispatch(&self, name: &str, _: &Value) -> ToolResult {
//!         ToolResult::Refused(Refusal::new(ErrorCode::UnknownTool, "test", format!("no {name}")))
//!     }
//! }
//!
//! /// A model that calls `ls`, then finishes.
//! struct Scripted(Vec<&'static str>);
//! impl ChatModel for Scripted {
//!     fn complete(&mut self, _: &[Message], _: &[ToolInfo]) -> Result<Message, ChatError> {
//!         Ok(Message::assistant(self.0.remove(0)))
//!     }
//! }
//!
//! # fn main() -> Result<(), jig_toolcall::LoopError> {
//! let mut model = Scripted(vec![
//!     "Let me look: {'name': 'ls', 'arguments': {}}",
//!     r#"{"name": "done", "arguments": {"answer": "nothing to list"}}"#,
//! ]);
//! let transcript = AgentLoop::new(&Refuse).run(&mut model, "List the files", |_event| {})?;
//! assert_eq!(transcript.rounds.len(), 2);
//! assert_eq!(
//!     transcript.stop,
//!     StopReason::Finished { answer: "nothing to list".to_owned() }
//! );
//! # Ok(())
//! # }
//! ```
//!
//! # Features
//!
//! - `openai` (default): [`OpenAiClient`], a [`ChatModel`] for
//!   OpenAI-compatible `/v1/chat/completions` endpoints (llama.cpp's
//!   server, Ollama, vLLM, hosted APIs), over the `ureq` HTTP client.
//!   Without it the crate is the parser and the loop, with no HTTP.
//! - `https` (default): HTTPS for that client, through `rustls`.
#![forbid(unsafe_code)]

mod agent;
mod call;
mod chat;
mod error;
#[cfg(feature = "openai")]
mod openai;
mod parser;
mod prompt;
mod repair;
mod scalar;
mod string;
mod transcript;

pub use agent::{
    AgentLoop, DEFAULT_MAX_CALLS_PER_REPLY, DEFAULT_MAX_CORRECTIONS, DEFAULT_MAX_RESULT_BYTES,
    DEFAULT_MAX_ROUNDS, LoopError,
};
pub use call::{CallError, CallOutcome, ToolCall, extract_call};
pub use chat::{ChatError, ChatModel, Message, NativeCall, Role};
pub use error::RepairError;
/// The dispatcher interface and tool metadata live in `jig-lineage`; they
/// are named here too, for the loop's users.
pub use jig_lineage::{Dispatcher, ToolInfo};
#[cfg(feature = "openai")]
pub use openai::{OpenAiClient, OpenAiConfig};
pub use parser::MAX_DEPTH;
pub use prompt::{FINISH_TOOL, Mode, PromptBuilder};
pub use repair::{repair, repair_value};
pub use transcript::{Action, Event, Round, StopReason, Transcript};
