//! The tool call in a model's reply: three outcomes, and the shapes of call
//! that models use, normalized to `{name, arguments}`.

use serde_json::{Map, Value};

use crate::candidate::{Candidate, Key, MAX_WRAPPERS, WRAPPER_KEYS, into_map};
use crate::error::RepairError;
use crate::repair::Objects;

/// Keys that may hold the tool's name, in the order they are tried.
/// (`recipient_name`: the parallel calls of OpenAI's `multi_tool_use`,
/// which models trained on its transcripts write.)
const NAME_KEYS: [&str; 6] = [
    "name",
    "tool",
    "tool_name",
    "function",
    "action",
    "recipient_name",
];

/// Keys that may hold the arguments, in the order they are tried.
const ARGUMENT_KEYS: [&str; 9] = [
    "arguments",
    "args",
    "parameters",
    "params",
    "input",
    "action_input",
    "tool_input",
    "tool_arguments",
    "tool_args",
];

/// The namespace OpenAI's transcripts put before a tool's name
/// (`functions.ls`): not part of the name.
const NAMESPACE: &str = "functions.";

/// Keys beside a call's name that describe the call, not its arguments.
const METADATA_KEYS: [&str; 5] = ["id", "type", "call_id", "tool_call_id", "index"];

/// More keys of a call's own beside an argument key (where they cannot be
/// arguments written flat): `status` of an item of OpenAI's Responses API
/// (`{"type": "function_call", "call_id": ..., "name": ..., "arguments":
/// ..., "status": "completed"}`), Bedrock's `toolUseId`.
const CALL_KEYS: [&str; 2] = ["status", "toolUseId"];

/// Keys beside a call's arguments in which models explain the call (as
/// ReAct-style prompts ask): not arguments, dropped. Any other key there
/// is an argument written outside the arguments (see
/// [`CallError::BesideArguments`]).
const COMMENTARY_KEYS: [&str; 7] = [
    "thought",
    "thoughts",
    "reasoning",
    "reason",
    "explanation",
    "rationale",
    "comment",
];

/// A tool call: a tool name and its arguments.
///
/// It can only exist valid: the name is a non-empty string without
/// surrounding whitespace, the arguments a JSON object.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    name: String,
    arguments: Map<String, Value>,
}

impl ToolCall {
    /// Normalizes one JSON value of any accepted call shape (see the crate
    /// documentation) into a call.
    ///
    /// # Errors
    ///
    /// A [`CallError`] that says what to send instead.
    pub fn from_json(value: Value) -> Result<ToolCall, CallError> {
        ToolCall::from_candidate(Candidate::from(value))
    }

    /// [`ToolCall::from_json`] of a value read as a [`Candidate`].
    pub(crate) fn from_candidate(value: Candidate) -> Result<ToolCall, CallError> {
        let mut value = value;
        for _ in 0..MAX_WRAPPERS {
            // read as a plain value (as deep wrappers are): looked into
            if let Candidate::Other(inner @ (Value::Object(_) | Value::Array(_))) = value {
                value = Candidate::from(inner);
            }
            value = match value {
                Candidate::Array(items) => match items.into_iter().next() {
                    Some(first) => first,
                    None => {
                        return Err(CallError::NotAnObject {
                            found: Value::Array(Vec::new()),
                        });
                    }
                },
                Candidate::Object(mut members) => {
                    if let Some(name) = take_name(&mut members)? {
                        let arguments = take_arguments(&name, &mut members)?;
                        return Ok(ToolCall { name, arguments });
                    }
                    match WRAPPER_KEYS.iter().find_map(|key| take(&mut members, key)) {
                        Some(inner) if inner.is_container() => inner,
                        _ => {
                            return Err(CallError::MissingName {
                                found: Value::Object(into_map(members)),
                            });
                        }
                    }
                }
                Candidate::Other(found) => return Err(CallError::NotAnObject { found }),
            };
        }
        Err(CallError::NotAnObject {
            found: value.into_value(),
        })
    }

    /// Every call in a value, in order: a list is each of its items, a
    /// wrapper (`{"tool_calls": [...]}`) what it wraps, through at most
    /// [`MAX_WRAPPERS`] levels. All or nothing: an item that is no call
    /// is the error, never the calls beside it.
    pub(crate) fn all_from_candidate(value: Candidate) -> Result<Vec<ToolCall>, CallError> {
        let mut calls = Vec::new();
        collect_calls(value, 0, &mut calls)?;
        Ok(calls)
    }

    /// A call from its parts; `None` when the name is empty or has
    /// surrounding whitespace.
    pub fn new(name: impl Into<String>, arguments: Map<String, Value>) -> Option<ToolCall> {
        let name = name.into();
        (!name.is_empty() && name.trim() == name).then_some(ToolCall { name, arguments })
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The arguments, a JSON object.
    pub fn arguments(&self) -> &Map<String, Value> {
        &self.arguments
    }

    /// The name and the arguments.
    pub fn into_parts(self) -> (String, Map<String, Value>) {
        (self.name, self.arguments)
    }

    /// The call in its normalized shape, `{"name": ..., "arguments": {...}}`.
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("name".to_owned(), Value::String(self.name.clone()));
        map.insert(
            "arguments".to_owned(),
            Value::Object(self.arguments.clone()),
        );
        Value::Object(map)
    }
}

/// The value of `key` (the last one when it is written twice).
fn get<'m>(members: &'m [(Key, Candidate)], key: &str) -> Option<&'m Candidate> {
    members
        .iter()
        .rev()
        .find(|(k, _)| k.as_ref() == key)
        .map(|(_, value)| value)
}

/// The calls of `value`, `depth` wrappers down, appended to `calls`.
fn collect_calls(
    value: Candidate,
    depth: usize,
    calls: &mut Vec<ToolCall>,
) -> Result<(), CallError> {
    // read as a plain value (as deep wrappers are): looked into
    let value = match value {
        Candidate::Other(inner @ (Value::Object(_) | Value::Array(_))) if depth < MAX_WRAPPERS => {
            Candidate::from(inner)
        }
        other => other,
    };
    match value {
        Candidate::Array(items) if depth < MAX_WRAPPERS => {
            if items.is_empty() {
                return Err(CallError::NotAnObject {
                    found: Value::Array(Vec::new()),
                });
            }
            items
                .into_iter()
                .try_for_each(|item| collect_calls(item, depth + 1, calls))
        }
        Candidate::Object(mut members) => {
            if let Some(name) = take_name(&mut members)? {
                let arguments = take_arguments(&name, &mut members)?;
                calls.push(ToolCall { name, arguments });
                return Ok(());
            }
            match WRAPPER_KEYS.iter().find_map(|key| take(&mut members, key)) {
                Some(inner) if inner.is_container() && depth + 1 < MAX_WRAPPERS => {
                    collect_calls(inner, depth + 1, calls)
                }
                _ => Err(CallError::MissingName {
                    found: Value::Object(into_map(members)),
                }),
            }
        }
        other => Err(CallError::NotAnObject {
            found: other.into_value(),
        }),
    }
}

/// Removes every member named `key`, giving the value that counts (the
/// last); the others keep their order.
fn take(members: &mut Vec<(Key, Candidate)>, key: &str) -> Option<Candidate> {
    let at = members.iter().rposition(|(k, _)| k.as_ref() == key)?;
    let (_, value) = members.remove(at);
    members.retain(|(k, _)| k.as_ref() != key);
    Some(value)
}

/// The name under the first name key that holds one; `None` when there is
/// none (the object may still wrap a call: an object or array under a key
/// that is also a wrapper key, like `function`, is a wrapper, not a name).
fn take_name(members: &mut Vec<(Key, Candidate)>) -> Result<Option<String>, CallError> {
    let key = NAME_KEYS.iter().find(|key| match get(members, key) {
        None => false,
        Some(value) if value.is_container() => !WRAPPER_KEYS.contains(*key),
        Some(_) => true,
    });
    match key.and_then(|key| take(members, key)) {
        None => Ok(None),
        Some(Candidate::Other(Value::String(name))) if !name.trim().is_empty() => {
            let bare = name.trim();
            let bare = bare
                .strip_prefix(NAMESPACE)
                .filter(|rest| !rest.trim().is_empty())
                .unwrap_or(bare);
            Ok(Some(if bare == name { name } else { bare.to_owned() }))
        }
        Some(found) => Err(CallError::BadName {
            found: found.into_value(),
        }),
    }
}

/// The arguments under the first argument key; a missing or `null` value is
/// `{}`, a string is repaired as the text of an object.
fn take_arguments(
    name: &str,
    members: &mut Vec<(Key, Candidate)>,
) -> Result<Map<String, Value>, CallError> {
    let found = ARGUMENT_KEYS
        .iter()
        .find_map(|key| take(members, key))
        .map(Candidate::into_value);
    match found {
        // no argument key: the keys beside the name are the arguments
        // (`{"tool": "bash", "command": "ls"}`), less a call's metadata
        None => {
            let siblings = std::mem::take(members)
                .into_iter()
                .filter(|(key, _)| !METADATA_KEYS.contains(&key.as_ref()))
                .collect();
            Ok(into_map(siblings))
        }
        // keys beside the arguments, other than a call's metadata, would
        // be arguments lost (`{"name": "ls", "arguments": {...},
        // "recursive": true}`)
        Some(_)
            if let Some((key, _)) = members.iter().find(|(key, _)| {
                ![&METADATA_KEYS[..], &CALL_KEYS, &COMMENTARY_KEYS]
                    .iter()
                    .any(|keys| keys.contains(&key.as_ref()))
            }) =>
        {
            Err(CallError::BesideArguments {
                name: name.to_owned(),
                key: key.as_ref().chars().take(40).collect(),
            })
        }
        Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(arguments)) => Ok(arguments),
        Some(Value::String(text)) if text.trim().is_empty() => Ok(Map::new()),
        Some(Value::String(text)) => match object_in(&text) {
            Some(arguments) => Ok(arguments),
            None => Err(CallError::BadArguments {
                name: name.to_owned(),
                found: Value::String(text),
            }),
        },
        Some(found) => Err(CallError::BadArguments {
            name: name.to_owned(),
            found,
        }),
    }
}

/// The first object in `text`, repaired.
fn object_in(text: &str) -> Option<Map<String, Value>> {
    if let Ok(Value::Object(map)) = serde_json::from_str(text) {
        return Some(map);
    }
    match Objects::new(text).next_object() {
        Ok(Some(Value::Object(map))) => Some(map),
        _ => None,
    }
}

/// What a model's reply holds.
#[derive(Debug)]
pub enum CallOutcome {
    /// A tool call, normalized.
    Call(ToolCall),
    /// No JSON object at all: the model is talking, or done.
    NoCall,
    /// JSON that looks like a call but cannot be repaired or normalized: ask
    /// the model again, with `reason` (written for the model) as guidance.
    Unrepairable {
        /// What is wrong, and what to send instead.
        reason: CallError,
    },
}

/// Extracts the tool call from a model's reply.
///
/// The objects in the text are tried in order, each repaired; the first
/// that normalizes to a call is the call. When none does, the outcome is
/// [`CallOutcome::Unrepairable`] with the first object's problem, and when
/// the text holds no `{` at all it is [`CallOutcome::NoCall`].
pub fn extract_call(text: &str) -> CallOutcome {
    if let Ok(value @ Value::Object(_)) = serde_json::from_str::<Value>(text) {
        return match ToolCall::from_json(value) {
            Ok(call) => CallOutcome::Call(call),
            Err(reason) => CallOutcome::Unrepairable { reason },
        };
    }
    let mut objects = Objects::new(text);
    let mut first_problem = None;
    loop {
        match objects.next_object() {
            Ok(None) => break,
            Ok(Some(value)) => match ToolCall::from_json(value) {
                Ok(call) => return CallOutcome::Call(call),
                Err(problem) => {
                    first_problem.get_or_insert(problem);
                }
            },
            Err(problem) => {
                first_problem.get_or_insert(CallError::Repair(problem));
                break;
            }
        }
    }
    match first_problem {
        Some(reason) => CallOutcome::Unrepairable { reason },
        None => CallOutcome::NoCall,
    }
}

/// Why a reply's JSON is not a tool call. The messages are written for the
/// model: each says what to send instead.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CallError {
    /// The JSON could not be repaired.
    #[error(
        "the JSON in the reply could not be repaired ({0}): reply with one JSON object, \
         {{\"name\": \"<tool>\", \"arguments\": {{...}}}}"
    )]
    Repair(#[from] RepairError),
    /// The JSON is not an object, or an array or wrapper holding one.
    #[error(
        "the tool call must be a JSON object, not {}: reply with \
         {{\"name\": \"<tool>\", \"arguments\": {{...}}}}",
        describe(.found)
    )]
    NotAnObject {
        /// The value found instead.
        found: Value,
    },
    /// The object names no tool.
    #[error(
        "the JSON object names no tool (its keys: {}): reply with \
         {{\"name\": \"<tool>\", \"arguments\": {{...}}}}",
        keys(.found)
    )]
    MissingName {
        /// The object.
        found: Value,
    },
    /// The tool's name is not a non-empty string.
    #[error(
        "the tool name must be a non-empty string, not {}: reply with \
         {{\"name\": \"<tool>\", \"arguments\": {{...}}}}",
        describe(.found)
    )]
    BadName {
        /// The value found as the name.
        found: Value,
    },
    /// The text ends inside the tool's name: the call was cut off.
    #[error(
        "the reply ends inside the tool name `{partial}...`: the call was cut off; \
         send the whole call again"
    )]
    IncompleteName {
        /// The part of the name that was written.
        partial: String,
    },
    /// A call names a tool that is not in the list given.
    #[error("there is no tool named `{name}`: call one of {}", list(.known))]
    UnknownTool {
        /// The name called.
        name: String,
        /// The tools there are.
        known: Vec<String>,
    },
    /// A call in one of the models' own formats whose parts cannot be read.
    #[error("a {shape} tool call in the reply cannot be read ({detail}): send it again, whole")]
    Malformed {
        /// The format (`xml-parameters`, `pythonic-call`...).
        shape: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// A key beside the call's arguments that is no call metadata: an
    /// argument written outside them.
    #[error(
        "`{key}` is written beside the arguments of `{name}`: put every argument inside \
         them, {{\"name\": \"{name}\", \"arguments\": {{...}}}}"
    )]
    BesideArguments {
        /// The tool's name.
        name: String,
        /// The first key beside the arguments.
        key: String,
    },
    /// The arguments are neither an object nor the text of one.
    #[error(
        "the arguments of `{name}` must be a JSON object, not {}: reply with \
         {{\"name\": \"{name}\", \"arguments\": {{...}}}}",
        describe(.found)
    )]
    BadArguments {
        /// The tool's name.
        name: String,
        /// The value found as the arguments.
        found: Value,
    },
}

/// Names, backticked, for a message.
fn list(names: &[String]) -> String {
    if names.is_empty() {
        return "none (no tool is available)".to_owned();
    }
    names
        .iter()
        .map(|name| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn describe(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(text) if text.trim().is_empty() => "an empty string",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The first few keys of an object, quoted, for a message.
fn keys(value: &Value) -> String {
    const SHOWN: usize = 5;
    let Value::Object(map) = value else {
        return "none".to_owned();
    };
    if map.is_empty() {
        return "none".to_owned();
    }
    let mut listed: Vec<String> = map
        .keys()
        .take(SHOWN)
        .map(|key| Value::String(key.chars().take(40).collect()).to_string())
        .collect();
    if map.len() > SHOWN {
        listed.push("...".to_owned());
    }
    listed.join(", ")
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{CallError, CallOutcome, ToolCall, extract_call};
    use crate::RepairError;

    /// `(reply, normalized call)` for replies that hold a call.
    const CALLS: &[(&str, &str)] = &[
        (
            r#"{"name": "ls", "arguments": {"path": "."}}"#,
            r#"{"name":"ls","arguments":{"path":"."}}"#,
        ),
        (
            r#"{"tool": "ls", "args": {"path": "."}}"#,
            r#"{"name":"ls","arguments":{"path":"."}}"#,
        ),
        (
            r#"{"tool_name": "ls", "parameters": {"path": "."}}"#,
            r#"{"name":"ls","arguments":{"path":"."}}"#,
        ),
        (
            r#"{"name": "ls", "parameters": {"a": 1}}"#,
            r#"{"name":"ls","arguments":{"a":1}}"#,
        ),
        (
            r#"{"name": "ls", "input": {"a": 1}}"#,
            r#"{"name":"ls","arguments":{"a":1}}"#,
        ),
        (
            r#"{"action": "ls", "action_input": {"a": 1}}"#,
            r#"{"name":"ls","arguments":{"a":1}}"#,
        ),
        (
            r#"{"type": "function", "function": {"name": "ls", "arguments": "{\"path\": \".\"}"}}"#,
            r#"{"name":"ls","arguments":{"path":"."}}"#,
        ),
        (
            r#"{"tool_calls": [{"function": {"name": "ls", "arguments": {}}}, {"name": "rm"}]}"#,
            r#"{"name":"ls","arguments":{}}"#,
        ),
        (
            r#"{"action": {"name": "ls", "args": {"a": 1}}}"#,
            r#"{"name":"ls","arguments":{"a":1}}"#,
        ),
        (r#"{"function": "ls"}"#, r#"{"name":"ls","arguments":{}}"#),
        (
            r#"{"tool_name": "ls", "tool_arguments": {"a": 1}}"#,
            r#"{"name":"ls","arguments":{"a":1}}"#,
        ),
        (
            r#"{"name": "functions.ls", "arguments": {"a": 1}}"#,
            r#"{"name":"ls","arguments":{"a":1}}"#,
        ),
        (
            r#"{"tool_uses": [{"recipient_name": "functions.ls", "parameters": {"a": 1}}]}"#,
            r#"{"name":"ls","arguments":{"a":1}}"#,
        ),
        (
            r#"{"functionCall": {"name": "ls", "args": {"a": 1}}}"#,
            r#"{"name":"ls","arguments":{"a":1}}"#,
        ),
        // arguments: missing, null, empty text, broken text of an object
        (r#"{"name": " ls "}"#, r#"{"name":"ls","arguments":{}}"#),
        (
            r#"{"name": "ls", "arguments": null}"#,
            r#"{"name":"ls","arguments":{}}"#,
        ),
        (
            r#"{"name": "ls", "arguments": " "}"#,
            r#"{"name":"ls","arguments":{}}"#,
        ),
        (
            r#"{"name": "ls", "arguments": "{'path': '.',}"}"#,
            r#"{"name":"ls","arguments":{"path":"."}}"#,
        ),
        // the name key wins over the other aliases; with no argument key,
        // the keys beside the name are the arguments (never dropped)
        (
            r#"{"tool": "b", "name": "a", "thought": "x"}"#,
            r#"{"name":"a","arguments":{"tool":"b","thought":"x"}}"#,
        ),
        (
            r#"{"tool": "bash", "command": "ls", "id": "call_1"}"#,
            r#"{"name":"bash","arguments":{"command":"ls"}}"#,
        ),
        // a list of calls: the first
        (
            r#"[{"name": "a"}, {"name": "b"}]"#,
            r#"{"name":"a","arguments":{}}"#,
        ),
        // chatter, fences and repairs
        (
            "Let me look.\n```json\n{'name': 'ls', 'arguments': {path: '.',}}\n```",
            r#"{"name":"ls","arguments":{"path":"."}}"#,
        ),
        (
            "{\"name\": \"ls\", \"arguments\": {\"path\": \"src",
            r#"{"name":"ls","arguments":{"path":"src"}}"#,
        ),
        (
            "{\"name\": \"ls\"}, \"arguments\": {\"path\": \".\"}}",
            r#"{"name":"ls","arguments":{"path":"."}}"#,
        ),
        // the first object that is a call
        (
            "Config {\"debug\": true}; now {\"name\": \"ls\"}",
            r#"{"name":"ls","arguments":{}}"#,
        ),
        // beside the arguments, a call's metadata and the model's
        // commentary are no arguments
        (
            r#"{"id": "call_1", "thought": "look first", "name": "ls", "arguments": {"path": "."}, "index": 0}"#,
            r#"{"name":"ls","arguments":{"path":"."}}"#,
        ),
        // OpenAI's Responses API item, Bedrock's toolUse
        (
            r#"{"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "ls", "arguments": "{\"path\": \".\"}", "status": "completed"}"#,
            r#"{"name":"ls","arguments":{"path":"."}}"#,
        ),
        (
            r#"{"toolUse": {"toolUseId": "t1", "name": "ls", "input": {"path": "."}}}"#,
            r#"{"name":"ls","arguments":{"path":"."}}"#,
        ),
    ];

    #[test]
    fn call_shapes_are_normalized() {
        for &(reply, expected) in CALLS {
            let expected: Value = serde_json::from_str(expected).unwrap();
            match extract_call(reply) {
                CallOutcome::Call(call) => assert_eq!(call.to_json(), expected, "{reply}"),
                other => panic!("{reply}: {other:?}"),
            }
        }
    }

    #[test]
    fn text_without_an_object_is_no_call() {
        for reply in ["", "I am done: the tests pass.", "The result is [1, 2]."] {
            assert!(
                matches!(extract_call(reply), CallOutcome::NoCall),
                "{reply}"
            );
        }
    }

    #[test]
    fn objects_that_are_not_calls_are_unrepairable() {
        type Expected = fn(&CallError) -> bool;
        let cases: &[(&str, Expected)] = &[
            (r#"{"thought": "hmm"}"#, |e| {
                matches!(e, CallError::MissingName { .. })
            }),
            (
                r#"{"name": 3}"#,
                |e| matches!(e, CallError::BadName { found } if found == &json!(3)),
            ),
            (r#"{"name": ""}"#, |e| {
                matches!(e, CallError::BadName { .. })
            }),
            (r#"{"name": "ls", "arguments": [1]}"#, |e| {
                matches!(e, CallError::BadArguments { .. })
            }),
            (r#"{"name": "ls", "arguments": "path=."}"#, |e| {
                matches!(e, CallError::BadArguments { .. })
            }),
            (r#"{"tool_calls": []}"#, |e| {
                matches!(e, CallError::NotAnObject { .. })
            }),
            // an argument written beside the arguments (a brace closed too
            // early), or a second argument key: never dropped
            (
                r#"{"name": "write", "arguments": {"path": "a"}, "content": "x"}"#,
                |e| matches!(e, CallError::BesideArguments { key, .. } if key == "content"),
            ),
            (
                r#"{"name": "ls", "arguments": {}, "parameters": {"path": "a"}}"#,
                |e| matches!(e, CallError::BesideArguments { key, .. } if key == "parameters"),
            ),
            ("{{{{", |e| matches!(e, CallError::MissingName { .. })),
            (&"{\"a\":".repeat(200), |e| {
                matches!(e, CallError::Repair(RepairError::TooDeep { .. }))
            }),
            // the first problem is reported
            ("{\"x\": 1} {\"name\": 2}", |e| {
                matches!(e, CallError::MissingName { .. })
            }),
        ];
        for (reply, expected) in cases {
            match extract_call(reply) {
                CallOutcome::Unrepairable { reason } => {
                    assert!(expected(&reason), "{reply}: {reason:?}")
                }
                other => panic!("{reply}: {other:?}"),
            }
        }
    }

    #[test]
    fn wrappers_are_looked_through_a_bounded_number_of_times() {
        let mut value = json!({"name": "ls"});
        for _ in 0..3 {
            value = json!({ "call": value });
        }
        assert!(ToolCall::from_json(value.clone()).is_ok());
        let too_deep = json!({ "call": value });
        assert!(matches!(
            ToolCall::from_json(too_deep),
            Err(CallError::NotAnObject { .. })
        ));
    }

    /// Regression: the name was removed from a map with `swap_remove`,
    /// which moved the last key beside the name to its place.
    #[test]
    fn keys_beside_the_name_keep_their_order() {
        let call = ToolCall::from_json(json!({"tool": "bash", "a": 1, "b": 2, "c": 3})).unwrap();
        let keys: Vec<&str> = call.arguments().keys().map(String::as_str).collect();
        assert_eq!(keys, ["a", "b", "c"]);
        let CallOutcome::Call(call) = extract_call(r#"{"a": 1, "name": "ls", "b": 2, "c": 3}"#)
        else {
            panic!("expected a call");
        };
        let keys: Vec<&str> = call.arguments().keys().map(String::as_str).collect();
        assert_eq!(keys, ["a", "b", "c"]);
    }

    #[test]
    fn a_call_gives_back_its_parts() {
        let call = ToolCall::from_json(json!({"name": "ls", "arguments": {"a": 1}})).unwrap();
        assert_eq!(call.name(), "ls");
        assert_eq!(call.arguments()["a"], 1);
        let (name, arguments) = call.into_parts();
        assert_eq!((name.as_str(), arguments.len()), ("ls", 1));
    }

    /// The messages the model reads when its call cannot be used.
    #[test]
    fn messages_say_what_to_send_instead() {
        let errors = [
            CallError::Repair(RepairError::TooDeep {
                offset: 12,
                limit: 127,
            }),
            CallError::NotAnObject {
                found: json!([1, 2]),
            },
            CallError::MissingName {
                found: json!({"thought": "x", "plan": [], "a": 1, "b": 2, "c": 3, "d": 4}),
            },
            CallError::BesideArguments {
                name: "write".to_owned(),
                key: "content".to_owned(),
            },
            CallError::MissingName { found: json!({}) },
            CallError::BadName { found: json!("") },
            CallError::BadArguments {
                name: "read_file".to_owned(),
                found: json!("path=src"),
            },
        ];
        let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
        insta::assert_snapshot!(messages.join("\n"));
    }
}
