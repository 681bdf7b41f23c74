//! Everything the loop says to the model: the system prompt that lists the
//! tools and states the reply protocol, the message that carries a result
//! back, and the correction sent after an unusable reply.

use std::fmt::Write;

use serde_json::{Map, Value};

use jig_toolcall::CallError;

use crate::ToolInfo;

/// The default name of the call that ends the task in prompt mode.
pub const FINISH_TOOL: &str = "done";

/// How the tools are offered to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Mode {
    /// Tool calls in the reply's text, for models without native tool
    /// calling (or endpoints that do not parse them): the system prompt
    /// lists the tools and asks for JSON calls, and
    /// [`read_calls_with`](jig_toolcall::read_calls_with) reads every call of
    /// the reply in any of the shapes open models write (JSON, the name
    /// outside JSON arguments, XML parameters, pythonic calls, Gemma's).
    #[default]
    Prompt,
    /// The endpoint's own tool calling: the tools go in the request's
    /// `tools` field, calls come back as `tool_calls`, results go back as
    /// `tool` messages.
    Native,
}

/// Writes the model-facing texts of the loop.
///
/// The protocol it states, in prompt mode: a call is a JSON object
/// `{"name": "<tool>", "arguments": {...}}`, several calls a JSON array of
/// them, run in order; the task ends with
/// `{"name": "done", "arguments": {"answer": "..."}}` (the finish call,
/// whose name [`finish_tool`](Self::finish_tool) changes), or with a reply
/// that holds no JSON object at all. In native mode the tools travel in the
/// request and the task ends with a reply that calls no tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptBuilder {
    finish_tool: String,
    intro: Option<String>,
}

impl Default for PromptBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl PromptBuilder {
    /// The default texts, with the finish call named [`FINISH_TOOL`].
    pub fn new() -> Self {
        Self {
            finish_tool: FINISH_TOOL.to_owned(),
            intro: None,
        }
    }

    /// Names the finish call `name` instead of `done` (when a tool is
    /// called `done`).
    pub fn finish_tool(mut self, name: impl Into<String>) -> Self {
        self.finish_tool = name.into();
        self
    }

    /// Replaces the opening paragraph of the system prompt (who the model
    /// is, what it works on). The tool list and the protocol follow it.
    pub fn intro(mut self, text: impl Into<String>) -> Self {
        self.intro = Some(text.into());
        self
    }

    /// The name of the finish call.
    pub fn finish_name(&self) -> &str {
        &self.finish_tool
    }

    /// The system prompt for `mode`.
    pub fn system_prompt(&self, mode: Mode, tools: &[ToolInfo]) -> String {
        match mode {
            Mode::Prompt => self.prompt_mode(tools),
            Mode::Native => self.native_mode(),
        }
    }

    fn intro_text(&self, mode: Mode) -> &str {
        match (&self.intro, mode) {
            (Some(intro), _) => intro,
            (None, Mode::Prompt) => {
                "You complete the task you are given by calling tools. \
                 You cannot run anything yourself: each tool runs in the workspace and its \
                 result comes back to you in the next message."
            }
            (None, Mode::Native) => {
                "You complete the task you are given by calling the tools provided. \
                 You cannot run anything yourself: each tool runs in the workspace and its \
                 result comes back to you."
            }
        }
    }

    fn prompt_mode(&self, tools: &[ToolInfo]) -> String {
        let mut text = String::new();
        let _ = write!(text, "{}\n\n# Tools\n", self.intro_text(Mode::Prompt));
        if tools.is_empty() {
            text.push_str("\n(none)\n");
        }
        for tool in tools {
            describe_tool(&mut text, tool);
        }
        let example = tools.first().map_or_else(
            || {
                format!(
                    r#"{{"name": "{}", "arguments": {{"answer": "..."}}}}"#,
                    self.finish_tool
                )
            },
            example_call,
        );
        let _ = write!(
            text,
            "\n# How to reply\n\n\
             To call a tool, reply with one JSON object and nothing else:\n\
             {{\"name\": \"<tool name>\", \"arguments\": {{\"<argument>\": <value>, ...}}}}\n\
             For example:\n{example}\n\n\
             - To make several calls at once, reply with a JSON array of such objects: \
             they run in the order written and their results come back in that order. \
             When a call needs the result of another, wait for that result.\n\
             - Use only the tools and arguments listed above; leave out an optional \
             argument to use its default.\n\
             - A call that is refused comes back as an error that says what to do instead.\n\
             - When the task is finished, reply with:\n{}\n\
             - A reply without a JSON object also ends the task.\n",
            self.finish_call(),
        );
        text
    }

    fn native_mode(&self) -> String {
        format!(
            "{}\n\nA call that is refused comes back as an error that says what to do \
             instead. When the task is finished, reply with your answer and no tool call.\n",
            self.intro_text(Mode::Native)
        )
    }

    /// The finish call as the model should write it.
    fn finish_call(&self) -> String {
        format!(
            r#"{{"name": "{}", "arguments": {{"answer": "<your answer>"}}}}"#,
            self.finish_tool
        )
    }

    /// The user message that carries a tool's result back in prompt mode.
    pub fn result_message(&self, tool: &str, result: &str) -> String {
        self.results_message(&[(tool, result)], &[])
    }

    /// The user message that carries the results of every call of a reply
    /// back in prompt mode, in the order of the calls, followed by the calls
    /// that were not run (`not_run`: their names, past the maximum of calls
    /// per reply).
    pub fn results_message(&self, results: &[(&str, &str)], not_run: &[&str]) -> String {
        let mut text = String::new();
        for (tool, result) in results {
            let newline = if result.ends_with('\n') { "" } else { "\n" };
            let _ = write!(text, "Result of {tool}:\n{result}{newline}\n");
        }
        for tool in not_run {
            let _ = write!(
                text,
                "Not run: {tool} (at most {} calls of one reply are run); send it again.\n\n",
                results.len()
            );
        }
        let _ = write!(
            text,
            "Reply with the next call as one JSON object, or with {} when the task is finished.",
            self.finish_call()
        );
        text
    }

    /// The message sent after a reply whose call cannot be used: in prompt
    /// mode a user message, in native mode the `tool` message answering the
    /// call. It lists the tool names so the model can pick one.
    pub fn correction_message(&self, mode: Mode, reason: &CallError, tools: &[ToolInfo]) -> String {
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        let names = if names.is_empty() {
            "(none)".to_owned()
        } else {
            names.join(", ")
        };
        match mode {
            Mode::Prompt => format!(
                "Your reply could not be used as a tool call: {reason}.\n\
                 The tools are: {names}. When the task is finished, reply with {}.",
                self.finish_call()
            ),
            Mode::Native => {
                format!("Not run: this call could not be used: {reason}.\nThe tools are: {names}.")
            }
        }
    }
}

/// One tool's section: name, description, arguments.
fn describe_tool(text: &mut String, tool: &ToolInfo) {
    let _ = write!(text, "\n## {}\n", tool.name);
    if !tool.description.trim().is_empty() {
        let _ = writeln!(text, "{}", tool.description.trim());
    }
    let properties = properties(&tool.input_schema);
    if properties.is_empty() {
        text.push_str("Arguments: none\n");
        return;
    }
    text.push_str("Arguments:\n");
    let required = required(&tool.input_schema);
    for (name, schema) in properties {
        let mut facts = vec![type_name(schema)];
        if required.contains(&name.as_str()) {
            facts.push("required".to_owned());
        }
        if let Some(Value::Array(choices)) = schema.get("enum") {
            let choices: Vec<String> = choices.iter().map(Value::to_string).collect();
            facts.push(format!("one of {}", choices.join(", ")));
        }
        if let Some(Value::String(pattern)) = schema.get("pattern") {
            facts.push(format!("matching {pattern}"));
        }
        if let Some(default) = schema.get("default") {
            facts.push(format!("default {default}"));
        }
        let _ = write!(text, "- {name} ({})", facts.join(", "));
        match schema.get("description") {
            Some(Value::String(description)) if !description.trim().is_empty() => {
                let _ = writeln!(text, ": {}", description.trim());
            }
            _ => text.push('\n'),
        }
    }
}

/// A call of `tool` with its required arguments, each set to its first
/// allowed value, its default, or a placeholder of its type.
fn example_call(tool: &ToolInfo) -> String {
    let required = required(&tool.input_schema);
    let mut arguments = Map::new();
    for (name, schema) in properties(&tool.input_schema) {
        if !required.contains(&name.as_str()) {
            continue;
        }
        let first_choice = match schema.get("enum") {
            Some(Value::Array(choices)) => choices.first().cloned(),
            _ => None,
        };
        let value = first_choice
            .or_else(|| schema.get("default").cloned())
            .unwrap_or_else(|| match schema.get("type").and_then(Value::as_str) {
                Some("number" | "integer") => Value::from(1),
                Some("boolean") => Value::Bool(true),
                _ => Value::String("...".to_owned()),
            });
        arguments.insert(name.clone(), value);
    }
    let call = serde_json::json!({"name": tool.name, "arguments": arguments});
    // `{"a":1}` reads better to a model as `{"a": 1}`.
    spaced(&call)
}

/// Compact JSON with a space after each `:` and `,` outside strings.
fn spaced(value: &Value) -> String {
    let compact = value.to_string();
    let mut text = String::with_capacity(compact.len() + 16);
    let (mut in_string, mut escaped) = (false, false);
    for c in compact.chars() {
        text.push(c);
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
        } else if c == ':' || c == ',' {
            text.push(' ');
        }
    }
    text
}

fn properties(schema: &Value) -> Vec<(&String, &Value)> {
    match schema.get("properties") {
        Some(Value::Object(map)) => map.iter().collect(),
        _ => Vec::new(),
    }
}

fn required(schema: &Value) -> Vec<&str> {
    match schema.get("required") {
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn type_name(schema: &Value) -> String {
    match schema.get("type") {
        Some(Value::String(kind)) => kind.clone(),
        Some(Value::Array(kinds)) => {
            let kinds: Vec<&str> = kinds.iter().filter_map(Value::as_str).collect();
            if kinds.is_empty() {
                "any".to_owned()
            } else {
                kinds.join(" or ")
            }
        }
        _ => "any".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{PromptBuilder, spaced};
    use crate::ToolInfo;

    #[test]
    fn odd_schemas_are_described_without_failing() {
        let tools = [
            ToolInfo::new("a", "", json!(null)),
            ToolInfo::new(
                "b",
                "B",
                json!({"properties": {"x": {}, "y": {"type": ["string", 3]}}}),
            ),
            ToolInfo::new("c", "C", json!({"properties": [], "required": "x"})),
        ];
        let prompt = PromptBuilder::new().prompt_mode(&tools);
        assert!(prompt.contains("## a\nArguments: none\n"), "{prompt}");
        assert!(prompt.contains("- x (any)\n- y (string)\n"), "{prompt}");
        assert!(
            prompt.contains(r#"{"name": "a", "arguments": {}}"#),
            "{prompt}"
        );
    }

    #[test]
    fn spacing_leaves_strings_alone() {
        assert_eq!(
            spaced(&json!({"a": "x,y:\"z\"", "b": [1, 2]})),
            r#"{"a": "x,y:\"z\"", "b": [1, 2]}"#
        );
    }
}
