//! The texts the model reads: the system prompt of each mode, built from a
//! real registry's tools, and the result and correction messages.

use jig_agent::{
    AgentLoop, ChatError, ChatModel, Dispatcher, LoopError, Message, Mode, PromptBuilder, ToolInfo,
};
use jig_lineage::{ErrorCode, Layer, Refusal, ToolResult};
use jig_presets::FullPreset;
use jig_toolcall::{CallOutcome, extract_call};
use serde_json::{Value, json};

/// A registry with the built-in tools and a descriptor tool with an enum, a
/// number and a default.
fn tools() -> Vec<ToolInfo> {
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join(".jig/tools");
    std::fs::create_dir_all(&tools).unwrap();
    std::fs::write(
        tools.join("sort_lines.tool.json"),
        r#"{
  "name": "sort_lines",
  "description": "Sort the lines of a file",
  "command": "sort {order} -k {column} {path}",
  "arguments": {
    "order": {"type": "string", "description": "Sort order flag", "enum": ["-n", "-r"], "required": true, "allow_leading_dash": true},
    "column": {"type": "number", "description": "Column to sort by", "default": "1"},
    "path": {"type": "path", "description": "File to sort", "required": true}
  }
}"#,
    )
    .unwrap();
    let built = FullPreset::new(dir.path()).build().unwrap();
    assert!(
        built.descriptor_errors.is_empty(),
        "{:?}",
        built.descriptor_errors
    );
    Dispatcher::tools(&built.registry)
}

#[test]
fn system_prompt_in_prompt_mode() {
    insta::assert_snapshot!(PromptBuilder::new().system_prompt(Mode::Prompt, &tools()));
}

#[test]
fn system_prompt_in_native_mode() {
    insta::assert_snapshot!(PromptBuilder::new().system_prompt(Mode::Native, &tools()));
}

/// The example call in the prompt is itself a call the parser reads.
#[test]
fn the_example_in_the_prompt_is_a_call() {
    let prompt = PromptBuilder::new().system_prompt(Mode::Prompt, &tools());
    let example = prompt
        .lines()
        .skip_while(|line| *line != "For example:")
        .nth(1)
        .unwrap();
    match extract_call(example) {
        CallOutcome::Call(call) => assert_eq!(call.name(), "grep"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn result_and_correction_messages() {
    let prompt = PromptBuilder::new().finish_tool("finish");
    let CallOutcome::Unrepairable { reason } = extract_call("{\"thought\": \"x\"}") else {
        panic!("expected an unrepairable call");
    };
    let messages = [
        prompt.result_message("grep", "exit: 0\noutput: 2:TODO\n"),
        prompt.correction_message(Mode::Prompt, &reason, &tools()),
        prompt.correction_message(Mode::Native, &reason, &tools()),
    ];
    insta::assert_snapshot!(messages.join("\n\n---\n\n"));
}

/// A dispatcher with one tool named like the finish call.
struct Done;

impl Dispatcher for Done {
    fn tools(&self) -> Vec<ToolInfo> {
        vec![ToolInfo::new(
            "done",
            "Mark done",
            json!({"type": "object"}),
        )]
    }

    fn dispatch(&self, _: &str, _: &Value) -> ToolResult {
        ToolResult::Refused(Refusal::new(ErrorCode::UnknownTool, Layer::Registry, "no"))
    }
}

struct Silent;

impl ChatModel for Silent {
    fn complete(&mut self, _: &[Message], _: &[ToolInfo]) -> Result<Message, ChatError> {
        Ok(Message::assistant("ok"))
    }
}

#[test]
fn a_tool_named_like_the_finish_call_is_refused_in_prompt_mode() {
    let result = AgentLoop::new(&Done).run(&mut Silent, "task", |_| {});
    assert!(matches!(result, Err(LoopError::FinishToolTaken { name }) if name == "done"));
    let renamed = AgentLoop::new(&Done).with_prompt(PromptBuilder::new().finish_tool("finish"));
    assert!(renamed.run(&mut Silent, "task", |_| {}).is_ok());
    let native = AgentLoop::new(&Done).with_mode(Mode::Native);
    assert!(native.run(&mut Silent, "task", |_| {}).is_ok());
}
