//! Reads the tool calls in a model's reply, whatever the model's format:
//! every call, in order, or "no call", or a reason the model can act on;
//! and repairs the JSON that weak models write.
//!
//! # Reading every call: [`read_calls`]
//!
//! Open models are trained on their own tool-call formats and write them
//! whether asked or not. [`read_calls`] recognises the format from the
//! markers in the text, never from a model's name, and returns a
//! [`Reading`]: [`Reading::Calls`] (every call, in the order written),
//! [`Reading::NoCall`] (the model is talking, or done) or
//! [`Reading::Unreadable`] (the reply holds a call that cannot be read: run
//! nothing, ask again with the reason). Five shapes are read:
//!
//! | shape | models | example |
//! |---|---|---|
//! | JSON in markers or chatter, one or a list | Hermes, Qwen 2.5, Llama 3.1, Mistral, Granite, Phi-4... | `<tool_call>{"name": "ls", "arguments": {"path": "src"}}</tool_call>` |
//! | the name outside JSON arguments | DeepSeek V3/R1, Kimi K2, Mistral v11, gpt-oss (harmony), Functionary v3.2 (`>>>name` then the JSON; the reply starts with the first name), GLM-4 with its special tokens kept (`<|assistant|>name` then the JSON) and ChatGLM3 (`tool_call(key=value)` in a Python fence for the JSON), models prompted in the ReAct style (`Action:` then `Action Input:`, nothing after an `Observation:`) and Qwen2/2.5 prompted by Qwen-Agent (`✿FUNCTION✿:` then `✿ARGS✿:`, nothing after a `✿RESULT✿` or `✿RETURN✿`) | `[TOOL_CALLS]ls[ARGS]{"path": "src"}` |
//! | XML parameters | Qwen3-Coder, GLM, MiniMax, DeepSeek DSML, Step, MiniCPM, Anthropic-style `<function_calls><invoke>` | `<function=ls><parameter=path>src</parameter></function>` |
//! | pythonic calls | Llama 3.2 and 4, LFM2, OLMo, Gemma 3 (in a `tool_code` fence); small models' `name({"key": value})`; a name through `functions.` or `default_api.` | `[ls(path="src"), pwd()]` |
//! | Gemma's literal syntax | FunctionGemma, Gemma | `<start_function_call>call:ls{path:<escape>src<escape>}<end_function_call>` |
//!
//! The reader never invents a call:
//!
//! - reasoning blocks (`<think>...</think>`, also a reply that starts inside
//!   one or never closes it) are skipped, so a call the model only thought
//!   about is not taken;
//! - a tool's result the model wrote itself (`<tool_response>`,
//!   `[TOOL_RESULTS]`, an `ipython` or `<|observation|>` turn, Gemma's
//!   `tool_output` fence...) is
//!   imagined: the calls before it are read, not those made on it after;
//! - in a reply whose calls are in markers (`<tool_call>`, `[TOOL_CALLS]`,
//!   `<|python_tag|>`), a call in the prose beside them (an example, or a
//!   call that lost its markers) makes the reply unreadable: neither
//!   taken nor dropped unsaid;
//! - argument data never becomes a name (`[f(items=[{'name': 'x'}])]` calls
//!   `f`), and keys beside the name are kept as arguments
//!   (`{"tool": "bash", "command": "ls"}` calls `bash` with `command`);
//! - a name cut off by the end of the text is an incomplete call
//!   ([`CallError::IncompleteName`]), never completed;
//! - all or nothing: a reply in which one call cannot be read (a second
//!   `<tool_call>` without a name, a list item that is not a call, a
//!   broken call after a good one) is [`Reading::Unreadable`], never the
//!   calls that could be read.
//!
//! **Pythonic calls and prose.** Code in an explanation looks like a call
//! (`print(len(x))`). Outside the markers of a format that announces them,
//! pythonic calls are read only when the whole reply (after reasoning) is
//! calls, when they form a bracketed list of keyword calls
//! (`[name(key=value, ...)]`, the documented shape), or when the name is one
//! of the tools given to [`read_calls_with`]. Positional arguments make
//! text no call.
//!
//! **With a tool list** ([`read_calls_with`] and [`ToolSpec`]s, the
//! registry's tools in jig's CLI and loop), text values are typed by the
//! tool's schema when they read as the slot's type (`"42"` becomes `42` for
//! an integer slot): formats such as XML parameters carry no types. Without
//! a tool list such values stay text (`"007"`, `"true"`). A call to a tool that is not listed is
//! [`CallError::UnknownTool`], which names the tools there are.
//!
//! No input makes the reader panic, and its work is linear in the size of
//! the text: one memchr pass finds every marker of every format, a reader
//! runs only when its markers are there and looks them up in that table
//! instead of searching again, the searches that remain are memoised,
//! and valid JSON is parsed once (repair only starts where it fails).
//! Tests count the bytes visited per byte of input on pathological texts
//! (markers repeated thousands of times, CDATA never closed) rather than
//! timing them. A fuzz target per shape runs in `fuzz/`.
//!
//! # Repairing JSON: [`repair`] and [`extract_call`]
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
//! | wrapper around a call | `function`, `function_call`, `functionCall` (Gemini's), `tool_call`, `tool_calls`, `call`, `action`, `tool_uses`, `toolUse` (Bedrock's) (an object, or an array of calls) |
//!
//! So `{"name", "arguments"}`, `{"tool", "args"}`, `{"tool_name",
//! "parameters"}`, `{"function": {"name", "arguments"}}` (OpenAI's shape,
//! with or without `"type": "function"`) and `{"tool_calls": [...]}` are all
//! calls. Arguments may be an object or a string holding the text of one
//! (repaired too); missing, `null` or empty arguments are `{}`. With no argument
//! key, the keys beside the name (less `id`, `type`, `call_id`,
//! `tool_call_id`, `index`) are the arguments: `{"tool": "bash",
//! "command": "ls"}` calls `bash` with `{"command": "ls"}`. Beside an
//! argument key only that metadata (and `status`, `toolUseId`) and the
//! model's commentary (`thought`, `thoughts`, `reasoning`, `reason`,
//! `explanation`, `rationale`, `comment`) may stand: any other key is an
//! argument written outside the arguments (a brace closed too early), and
//! the call is refused ([`CallError::BesideArguments`]) rather than run
//! without it. A top-level array is a list of calls of which the first is
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
//! - [`repair`] and [`extract_call`] do not return more than one value:
//!   text after the first value is ignored, even another value (use
//!   [`read_calls`] for every call).
//! - It does no I/O and runs nothing: the loop is `jig-agent`.
//!
//! # Examples
//!
//! Every call of a reply, in any shape:
//!
//! ```
//! use jig_toolcall::{Reading, ToolSpec, read_calls, read_calls_with};
//! use serde_json::json;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let reply = "<think>Two things to check.</think>[ls(path=\"src\"), grep(pattern=\"TODO\")]";
//! let Reading::Calls(calls) = read_calls(reply) else {
//!     return Err("expected calls".into());
//! };
//! let names: Vec<&str> = calls.iter().map(|call| call.name()).collect();
//! assert_eq!(names, ["ls", "grep"]);
//!
//! // prose is not a call
//! assert!(matches!(read_calls("Use print(len(x)) to see it."), Reading::NoCall));
//!
//! // with a tool list: values typed by schema, unknown names reported
//! let tools = [ToolSpec::new(
//!     "head",
//!     json!({"type": "object", "properties": {"lines": {"type": "integer"}}}),
//! )];
//! let xml = "<function=head><parameter=lines>20</parameter></function>";
//! let Reading::Calls(calls) = read_calls_with(xml, &tools) else {
//!     return Err("expected a call".into());
//! };
//! assert_eq!(calls[0].arguments()["lines"], 20);
//! assert!(matches!(
//!     read_calls_with("[rm(path=\"/\")]", &tools),
//!     Reading::Unreadable { .. }
//! ));
//! # Ok(())
//! # }
//! ```
//!
//! One JSON call, repaired:
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
mod candidate;
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
