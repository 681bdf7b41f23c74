//! Tool calls for models without native tool calling: finds the JSON in a
//! model's free text, repairs it, and tells a call from no call.
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
//! (repaired too); missing, `null` or empty arguments are `{}`. With no argument
//! key, the keys beside the name (less `id`, `type`, `call_id`,
//! `tool_call_id`, `index`) are the arguments: `{"tool": "bash",
//! "command": "ls"}` calls `bash` with `{"command": "ls"}`. A top-level array is a list of calls of which the first is
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
//! - It does no I/O and runs nothing: the loop is `jig-agent`.
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
//! # Features
//!
//! None. The crate has no I/O and depends on no other jig crate: the loop
//! that sends replies to a model and runs their calls is `jig-agent`.
#![forbid(unsafe_code)]

mod call;
mod error;
mod parser;
mod read;
mod repair;
mod scalar;
mod string;

pub use call::{CallError, CallOutcome, ToolCall, extract_call};
pub use error::RepairError;
pub use parser::MAX_DEPTH;
pub use read::{Reading, ToolSpec, read_calls, read_calls_with};
pub use repair::{repair, repair_value};
