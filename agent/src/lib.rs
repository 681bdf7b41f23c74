//! The tool-call loop: asks a model, reads the calls in its reply with
//! `jig-toolcall`, runs them through a [`Dispatcher`], feeds the results
//! back, and repeats; and its client for OpenAI-compatible endpoints.
//!
//! This is the I/O half of jig's tool calls. The reading of model text
//! (every format, repair, "no call" versus "cannot be read") is
//! `jig-toolcall`'s, a pure crate with no I/O that an auditor of the parser
//! can read without any network code; this crate only drives the exchange.
//!
//! # Guarantees
//!
//! - Every call reaches a tool only through the injected [`Dispatcher`]
//!   (`jig_presets::Registry` in real use), so the policy chain, the slot
//!   validation and the kernel all apply.
//! - Every call of a reply runs, in the order written, and its result is fed
//!   back in that order; a reply in which one call cannot be read runs
//!   nothing and is answered with a correction.
//! - Text fed back to the model is bounded.
//!
//! # Non-goals
//!
//! - It does not parse model text itself: see `jig-toolcall`.
//! - It does not stream replies; the HTTP client reads no environment
//!   variable (the caller passes the API key, and a proxy only on request).
//!
//! # The loop
//!
//! [`AgentLoop`] drives a model through a task: it sends the conversation
//! to a [`ChatModel`], reads every call of the reply, dispatches them in
//! order through a [`Dispatcher`] (`jig_presets::Registry` is one, so every
//! layer applies: policy, slot validation, the kernel), appends their
//! results in the same order, and repeats. Consecutive calls that only read
//! ([`Dispatcher::is_concurrency_safe`]) may run at the same time; a call
//! that may write is a barrier, started after the calls before it end and
//! ended before the calls after it start. A reply in which one call cannot
//! be read runs nothing: the model is told what was wrong and asked again.
//! The run stops on the finish call, on a reply without a call, after a
//! maximum number of rounds, or when the model keeps sending calls that
//! cannot be used after the corrections it was allowed. Each reply and each
//! call is reported to an observer as it happens; the run comes back as a
//! [`Transcript`].
//!
//! Two [`Mode`]s:
//!
//! - **prompt** (the default, for models without native tool calling, or
//!   endpoints that do not parse their calls): the system prompt
//!   ([`PromptBuilder`]) lists the tools with their arguments and asks for
//!   JSON calls, `{"name": "<tool>", "arguments": {...}}`, several as an
//!   array. The reply is read with
//!   [`jig_toolcall::read_calls_with`] and the dispatcher's tools, so the
//!   model's own format works too (Hermes and Qwen `<tool_call>`, Llama's
//!   pythonic lists, Qwen3-Coder's XML parameters, DeepSeek, Kimi, Mistral,
//!   gpt-oss, Gemma...): text values are typed by each tool's schema, and a
//!   call to a tool that does not exist is corrected with the list of
//!   tools. The task ends with the finish call
//!   `{"name": "done", "arguments": {"answer": "..."}}`
//!   ([`StopReason::Finished`]; the calls written before it in the same
//!   reply run first) or a reply without a call ([`StopReason::NoCall`]).
//!   The results of a reply come back as one user message.
//! - **native**: the tools go in the request's `tools` field, calls come
//!   back as `tool_calls` (their argument text repaired like any other),
//!   every one of them is run under the same rules and answered by a `tool`
//!   message with its id. A reply without `tool_calls` ends the task.
//!
//! The loop never reaches a tool but through the dispatcher, and the text
//! it feeds back is bounded ([`AgentLoop::with_max_result_bytes`]) on top
//! of each tool's own output budget.
//!
//! ```
//! use jig_lineage::{ErrorCode, Layer, Refusal, ToolResult};
//! use jig_agent::{
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
//!         ToolResult::Refused(Refusal::new(ErrorCode::UnknownTool, Layer::Registry, format!("no {name}")))
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
//! # fn main() -> Result<(), jig_agent::LoopError> {
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
//!   Without it the crate is the loop alone, with no HTTP.
//! - `https` (default): HTTPS for that client, through `rustls`.
#![forbid(unsafe_code)]

mod agent_loop;
mod batch;
mod chat;
#[cfg(feature = "openai")]
mod openai;
mod prompt;
mod transcript;

pub use agent_loop::{
    AgentLoop, DEFAULT_MAX_CALLS_PER_REPLY, DEFAULT_MAX_CORRECTIONS, DEFAULT_MAX_RESULT_BYTES,
    DEFAULT_MAX_ROUNDS, LoopError,
};
pub use chat::{ChatError, ChatModel, Message, NativeCall, Role};
/// The dispatcher interface and tool metadata live in `jig-lineage`; they
/// are named here too, for the loop's users.
pub use jig_lineage::{Dispatcher, ToolInfo};
#[cfg(feature = "openai")]
pub use openai::{OpenAiClient, OpenAiConfig};
pub use prompt::{FINISH_TOOL, Mode, PromptBuilder};
pub use transcript::{Action, Event, Round, StopReason, Transcript};
