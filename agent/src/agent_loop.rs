//! The loop: ask the model, read every call of its reply, dispatch them in
//! order, feed the results back, until the model finishes or a bound is
//! reached.

use serde_json::Value;

use crate::batch;
use crate::prompt::{Mode, PromptBuilder};
use crate::transcript::{Action, Event, Round, StopReason, Transcript};
use crate::{ChatModel, Dispatcher, Message, NativeCall, Role, ToolInfo};
use jig_toolcall::{CallError, Reading, ToolCall, ToolSpec, read_calls_with};

/// The default maximum number of rounds (model replies) of a run.
pub const DEFAULT_MAX_ROUNDS: usize = 16;
/// The default number of corrections sent in a row before the loop gives up.
pub const DEFAULT_MAX_CORRECTIONS: usize = 2;
/// The default maximum size of a result fed back to the model, in bytes.
pub const DEFAULT_MAX_RESULT_BYTES: usize = 16 * 1024;
/// The default maximum number of calls run from one reply.
pub const DEFAULT_MAX_CALLS_PER_REPLY: usize = 8;

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoopError {
    /// A visible tool has the name of the finish call (prompt mode).
    #[error(
        "a tool is named `{name}`, the name of the call that ends the task; \
         name the finish call otherwise (PromptBuilder::finish_tool)"
    )]
    FinishToolTaken {
        /// The name.
        name: String,
    },
}

/// The tool-call loop over one [`Dispatcher`].
///
/// Each round sends the conversation to the model and reads every call of
/// its reply (prompt mode: [`read_calls_with`] on the text, with the
/// dispatcher's tools and the finish call; native mode: the reply's
/// `tool_calls`, their argument text repaired the same way). When every
/// call can be read, they are dispatched in order (read-only neighbours
/// overlapping, see [`Dispatcher::is_concurrency_safe`]), at most
/// [`with_max_calls_per_reply`](Self::with_max_calls_per_reply) of them, and
/// their results appended in the same order, each cut to
/// [`with_max_result_bytes`](Self::with_max_result_bytes). When one cannot
/// be read, none runs and the model gets a correction (what was wrong, what
/// to send), at most [`with_max_corrections`](Self::with_max_corrections)
/// times in a row. The run stops on the finish call, on a reply without a
/// call, after [`with_max_rounds`](Self::with_max_rounds) replies, when
/// corrections run out, or when the model fails.
#[derive(Clone)]
pub struct AgentLoop<'d> {
    dispatcher: &'d dyn Dispatcher,
    mode: Mode,
    max_rounds: usize,
    max_corrections: usize,
    max_result_bytes: usize,
    max_calls_per_reply: usize,
    prompt: PromptBuilder,
    system_prompt: Option<String>,
}

impl std::fmt::Debug for AgentLoop<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentLoop")
            .field("mode", &self.mode)
            .field("max_rounds", &self.max_rounds)
            .field("max_corrections", &self.max_corrections)
            .field("max_result_bytes", &self.max_result_bytes)
            .finish_non_exhaustive()
    }
}

impl<'d> AgentLoop<'d> {
    /// A loop in prompt mode with the default bounds, calling through
    /// `dispatcher`.
    pub fn new(dispatcher: &'d dyn Dispatcher) -> Self {
        Self {
            dispatcher,
            mode: Mode::Prompt,
            max_rounds: DEFAULT_MAX_ROUNDS,
            max_corrections: DEFAULT_MAX_CORRECTIONS,
            max_result_bytes: DEFAULT_MAX_RESULT_BYTES,
            max_calls_per_reply: DEFAULT_MAX_CALLS_PER_REPLY,
            prompt: PromptBuilder::new(),
            system_prompt: None,
        }
    }

    /// Sets the mode: prompt (calls in the text) or native (`tool_calls`).
    pub fn with_mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// Sets the maximum number of rounds (model replies, corrections
    /// included).
    pub fn with_max_rounds(mut self, rounds: usize) -> Self {
        self.max_rounds = rounds;
        self
    }

    /// Sets how many corrections may be sent in a row before the run stops
    /// with [`StopReason::Unrepairable`].
    pub fn with_max_corrections(mut self, corrections: usize) -> Self {
        self.max_corrections = corrections;
        self
    }

    /// Sets the maximum size, in bytes, of a result fed back to the model.
    /// Results are already bounded by each tool's output budget; this caps
    /// what one call adds to the conversation whatever the tool.
    pub fn with_max_result_bytes(mut self, bytes: usize) -> Self {
        self.max_result_bytes = bytes;
        self
    }

    /// Sets how many calls of one reply are run; the others are answered
    /// with a message asking to send them again.
    pub fn with_max_calls_per_reply(mut self, calls: usize) -> Self {
        self.max_calls_per_reply = calls;
        self
    }

    /// Sets the texts of the protocol (the finish call's name, the opening
    /// paragraph).
    pub fn with_prompt(mut self, prompt: PromptBuilder) -> Self {
        self.prompt = prompt;
        self
    }

    /// Replaces the whole system prompt. In prompt mode it must then state
    /// the tools and the reply protocol itself.
    pub fn with_system_prompt(mut self, text: impl Into<String>) -> Self {
        self.system_prompt = Some(text.into());
        self
    }

    /// Runs the loop on `task`, telling `observer` of each reply, action and
    /// the stop as they happen.
    ///
    /// # Errors
    ///
    /// [`LoopError`] when the run cannot start; once started, every ending
    /// (a failing model included) is a [`StopReason`] in the transcript.
    pub fn run(
        &self,
        model: &mut dyn ChatModel,
        task: &str,
        mut observer: impl FnMut(&Event<'_>),
    ) -> Result<Transcript, LoopError> {
        let tools = self.dispatcher.tools();
        let finish = self.prompt.finish_name();
        if self.mode == Mode::Prompt && tools.iter().any(|t| t.name == finish) {
            return Err(LoopError::FinishToolTaken {
                name: finish.to_owned(),
            });
        }
        let system = self
            .system_prompt
            .clone()
            .unwrap_or_else(|| self.prompt.system_prompt(self.mode, &tools));
        let mut run = Run {
            agent: self,
            native_tools: if self.mode == Mode::Native {
                tools.clone()
            } else {
                Vec::new()
            },
            specs: self.specs(&tools),
            tools,
            messages: vec![Message::system(system), Message::user(task)],
            rounds: Vec::new(),
            corrections: 0,
        };
        let stop = run.go(model, &mut observer);
        observer(&Event::Stop { reason: &stop });
        Ok(Transcript {
            rounds: run.rounds,
            messages: run.messages,
            stop,
        })
    }
}

impl AgentLoop<'_> {
    /// The reader's tool list: the visible tools and, in prompt mode, the
    /// finish call.
    fn specs(&self, tools: &[ToolInfo]) -> Vec<ToolSpec> {
        let mut specs: Vec<ToolSpec> = tools
            .iter()
            .map(|tool| ToolSpec::new(tool.name.clone(), tool.input_schema.clone()))
            .collect();
        specs.push(ToolSpec::new(
            self.prompt.finish_name(),
            serde_json::json!({"type": "object", "properties": {"answer": {"type": "string"}}}),
        ));
        specs
    }
}

/// The state of one run.
struct Run<'a, 'd> {
    agent: &'a AgentLoop<'d>,
    tools: Vec<ToolInfo>,
    native_tools: Vec<ToolInfo>,
    /// What the reader is told in prompt mode: the tools and the finish
    /// call, with their schemas.
    specs: Vec<ToolSpec>,
    messages: Vec<Message>,
    rounds: Vec<Round>,
    /// Corrections sent in a row.
    corrections: usize,
}

impl Run<'_, '_> {
    fn go(
        &mut self,
        model: &mut dyn ChatModel,
        observer: &mut dyn FnMut(&Event<'_>),
    ) -> StopReason {
        for number in 1..=self.agent.max_rounds {
            let reply = match model.complete(&self.messages, &self.native_tools) {
                Ok(reply) => normalize_reply(reply, number),
                Err(error) => return StopReason::ModelFailed(error),
            };
            observer(&Event::Reply {
                round: number,
                message: &reply,
            });
            self.messages.push(reply.clone());
            let (actions, stop) = match self.agent.mode {
                Mode::Native => self.native_round(&reply),
                Mode::Prompt => self.prompt_round(&reply),
            };
            for action in &actions {
                observer(&Event::Action {
                    round: number,
                    action,
                });
            }
            self.rounds.push(Round {
                number,
                reply,
                actions,
            });
            if let Some(stop) = stop {
                return stop;
            }
        }
        StopReason::MaxRounds {
            rounds: self.agent.max_rounds,
        }
    }

    fn prompt_round(&mut self, reply: &Message) -> (Vec<Action>, Option<StopReason>) {
        match read_calls_with(&reply.content, &self.specs) {
            Reading::Calls(calls) => self.run_prompt_calls(calls),
            Reading::Unreadable { reason } => match self.correct(&reason) {
                Err(stop) => (Vec::new(), Some(stop)),
                Ok(message) => {
                    self.messages.push(Message::user(message.clone()));
                    let action = Action::Corrected {
                        id: None,
                        reason: reason.to_string(),
                        message,
                    };
                    (vec![action], None)
                }
            },
            _ => (
                Vec::new(),
                Some(StopReason::NoCall {
                    text: reply.content.clone(),
                }),
            ),
        }
    }

    /// Runs the calls of a prompt-mode reply in order, up to the finish
    /// call (which ends the run) and the maximum per reply; their results
    /// go back in one message, in the order of the calls.
    fn run_prompt_calls(&mut self, mut calls: Vec<ToolCall>) -> (Vec<Action>, Option<StopReason>) {
        let finish = calls
            .iter()
            .position(|call| call.name() == self.agent.prompt.finish_name())
            .map(|at| {
                let finish = calls.split_off(at);
                StopReason::Finished {
                    answer: finish.first().map(answer).unwrap_or_default(),
                }
            });
        let not_run = calls.split_off(calls.len().min(self.agent.max_calls_per_reply));
        if calls.is_empty() && finish.is_some() {
            return (Vec::new(), finish);
        }
        self.corrections = 0;
        let results = batch::run_in_order(self.agent.dispatcher, &calls);
        let actions: Vec<Action> = calls
            .into_iter()
            .zip(results)
            .map(|(call, result)| {
                let fed_back = bounded(&result.text(), self.agent.max_result_bytes);
                Action::Called {
                    call,
                    id: None,
                    result,
                    fed_back,
                }
            })
            .collect();
        let fed: Vec<(&str, &str)> = actions
            .iter()
            .filter_map(|action| match action {
                Action::Called { call, fed_back, .. } => Some((call.name(), fed_back.as_str())),
                Action::Corrected { .. } => None,
            })
            .collect();
        let not_run: Vec<&str> = not_run.iter().map(ToolCall::name).collect();
        let message = self.agent.prompt.results_message(&fed, &not_run);
        self.messages.push(Message::user(message));
        (actions, finish)
    }

    /// Runs the native calls of a reply: every one of them, in order, when
    /// all can be read (up to the maximum per reply); none when one cannot,
    /// and every call is answered.
    fn native_round(&mut self, reply: &Message) -> (Vec<Action>, Option<StopReason>) {
        if reply.tool_calls.is_empty() {
            let stop = StopReason::NoCall {
                text: reply.content.clone(),
            };
            return (Vec::new(), Some(stop));
        }
        let max = self.agent.max_calls_per_reply;
        let (taken, past) = reply.tool_calls.split_at(reply.tool_calls.len().min(max));
        let read: Vec<(&NativeCall, Result<ToolCall, CallError>)> = taken
            .iter()
            .map(|native| (native, native_call(native)))
            .collect();
        let mut actions = Vec::new();
        if read.iter().any(|(_, read)| read.is_err()) {
            let mut problem = None;
            for (native, read) in read {
                let message = match read {
                    Ok(_) => "not run: another call of this reply could not be used, so no \
                              call of the reply ran: send them again"
                        .to_owned(),
                    Err(reason) => {
                        let message = self.agent.prompt.correction_message(
                            Mode::Native,
                            &reason,
                            &self.tools,
                        );
                        actions.push(Action::Corrected {
                            id: Some(native.id.clone()),
                            reason: reason.to_string(),
                            message: message.clone(),
                        });
                        problem.get_or_insert(reason);
                        message
                    }
                };
                self.messages.push(Message::tool(&native.id, message));
            }
            self.answer_past_the_maximum(past);
            let stop = problem.and_then(|problem| self.count_correction(&problem).err());
            return (actions, stop);
        }
        self.corrections = 0;
        let (natives, calls): (Vec<&NativeCall>, Vec<ToolCall>) = read
            .into_iter()
            .filter_map(|(native, read)| Some((native, read.ok()?)))
            .unzip();
        let results = batch::run_in_order(self.agent.dispatcher, &calls);
        for ((native, call), result) in natives.into_iter().zip(calls).zip(results) {
            let fed_back = bounded(&result.text(), self.agent.max_result_bytes);
            self.messages
                .push(Message::tool(&native.id, fed_back.clone()));
            actions.push(Action::Called {
                call,
                id: Some(native.id.clone()),
                result,
                fed_back,
            });
        }
        self.answer_past_the_maximum(past);
        (actions, None)
    }

    /// Answers the native calls past the maximum per reply without running
    /// them.
    fn answer_past_the_maximum(&mut self, past: &[NativeCall]) {
        for native in past {
            let message = format!(
                "not run: at most {} calls are run from one reply; send this call again",
                self.agent.max_calls_per_reply
            );
            self.messages.push(Message::tool(&native.id, message));
        }
    }

    /// The correction to send, or the stop when corrections ran out.
    fn correct(&mut self, reason: &CallError) -> Result<String, StopReason> {
        self.count_correction(reason)?;
        Ok(self
            .agent
            .prompt
            .correction_message(Mode::Prompt, reason, &self.tools))
    }

    fn count_correction(&mut self, reason: &CallError) -> Result<(), StopReason> {
        if self.corrections >= self.agent.max_corrections {
            return Err(StopReason::Unrepairable {
                reason: reason.to_string(),
            });
        }
        self.corrections += 1;
        Ok(())
    }
}

/// The reply as an assistant message whose native calls all have an id.
fn normalize_reply(mut reply: Message, round: usize) -> Message {
    reply.role = Role::Assistant;
    reply.tool_call_id = None;
    for (index, call) in reply.tool_calls.iter_mut().enumerate() {
        if call.id.trim().is_empty() {
            call.id = format!("call_{round}_{index}");
        }
    }
    reply
}

/// A native call normalized like any other: its argument text repaired.
fn native_call(native: &NativeCall) -> Result<ToolCall, CallError> {
    let mut map = serde_json::Map::new();
    map.insert("name".to_owned(), Value::String(native.name.clone()));
    map.insert(
        "arguments".to_owned(),
        Value::String(native.arguments.clone()),
    );
    ToolCall::from_json(Value::Object(map))
}

/// The finish call's answer: its `answer` text, or its arguments as JSON.
fn answer(call: &ToolCall) -> String {
    let arguments = call.arguments();
    match arguments.get("answer") {
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None if arguments.is_empty() => String::new(),
        None => Value::Object(arguments.clone()).to_string(),
    }
}

/// `text` cut to at most `max` bytes (at a character boundary), with a note
/// of what was cut.
pub(crate) fn bounded(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}\n[result cut: {end} of {} bytes shown]",
        text.get(..end).unwrap_or_default(),
        text.len()
    )
}

#[cfg(test)]
mod tests {
    use jig_lineage::{ErrorCode, Refusal, ToolResult};
    use serde_json::{Value, json};

    use super::{AgentLoop, bounded};
    use crate::{
        Action, ChatError, ChatModel, Dispatcher, Message, Mode, NativeCall, Role, StopReason,
        ToolInfo,
    };

    /// Refuses every call, naming it.
    struct Echo;

    impl Dispatcher for Echo {
        fn tools(&self) -> Vec<ToolInfo> {
            vec![ToolInfo::new("ls", "List", json!({"type": "object"}))]
        }

        fn dispatch(&self, name: &str, arguments: &Value) -> ToolResult {
            let text = format!("{name} {arguments}");
            ToolResult::Refused(Refusal::new(
                ErrorCode::UnknownTool,
                jig_lineage::Layer::Registry,
                text,
            ))
        }
    }

    /// Plays its replies in order.
    struct Script(std::vec::IntoIter<Message>);

    impl Script {
        fn new(replies: Vec<Message>) -> Self {
            Self(replies.into_iter())
        }
    }

    impl ChatModel for Script {
        fn complete(&mut self, _: &[Message], _: &[ToolInfo]) -> Result<Message, ChatError> {
            self.0.next().ok_or_else(|| ChatError::BadResponse {
                endpoint: "script".to_owned(),
                reason: "played out".to_owned(),
            })
        }
    }

    #[test]
    fn native_calls_past_the_maximum_are_answered_not_run() {
        let calls = (0..3).map(|i| NativeCall::new(format!("c{i}"), "ls", "{}"));
        let mut model = Script::new(vec![
            Message::user("wrong role").with_tool_calls(calls),
            Message::assistant("finished"),
        ]);
        let transcript = AgentLoop::new(&Echo)
            .with_mode(Mode::Native)
            .with_max_calls_per_reply(2)
            .run(&mut model, "task", |_| {})
            .unwrap();
        assert_eq!(transcript.rounds[0].actions.len(), 2);
        assert_eq!(transcript.rounds[0].reply.role, Role::Assistant);
        let answers: Vec<(&str, &str)> = transcript
            .messages
            .iter()
            .filter_map(|m| Some((m.tool_call_id.as_deref()?, m.content.as_str())))
            .collect();
        assert_eq!(answers.len(), 3);
        assert_eq!(answers[2].0, "c2");
        assert!(
            answers[2].1.starts_with("not run: at most 2 calls"),
            "{answers:?}"
        );
        assert!(matches!(transcript.stop, StopReason::NoCall { .. }));
    }

    #[test]
    fn the_finish_call_gives_its_answer() {
        for (reply, answer) in [
            (r#"{"name": "done", "arguments": {"answer": "yes"}}"#, "yes"),
            (r#"{"name": "done", "arguments": {"answer": 42}}"#, "42"),
            (
                r#"{"name": "done", "arguments": {"result": "ok"}}"#,
                r#"{"result":"ok"}"#,
            ),
            (r#"{"name": "done"}"#, ""),
        ] {
            let mut model = Script::new(vec![Message::assistant(reply)]);
            let transcript = AgentLoop::new(&Echo).run(&mut model, "t", |_| {}).unwrap();
            let expected = StopReason::Finished {
                answer: answer.to_owned(),
            };
            assert_eq!(transcript.stop, expected, "{reply}");
        }
    }

    #[test]
    fn a_good_call_resets_the_corrections() {
        let bad = || Message::assistant("{\"thought\": 1}");
        let good = || Message::assistant("{\"name\": \"ls\"}");
        let mut model = Script::new(vec![bad(), good(), bad(), good(), bad(), bad()]);
        let transcript = AgentLoop::new(&Echo)
            .with_max_corrections(1)
            .run(&mut model, "t", |_| {})
            .unwrap();
        assert_eq!(transcript.rounds.len(), 6);
        assert!(matches!(transcript.stop, StopReason::Unrepairable { .. }));
        let called = transcript.rounds.iter().flat_map(|r| &r.actions);
        let called = called
            .filter(|a| matches!(a, Action::Called { .. }))
            .count();
        assert_eq!(called, 2);
    }

    /// Echoes its calls; `count` takes an integer.
    struct Typed;

    impl Dispatcher for Typed {
        fn tools(&self) -> Vec<ToolInfo> {
            let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
            vec![ToolInfo::new("count", "Count", schema)]
        }

        fn dispatch(&self, name: &str, arguments: &Value) -> ToolResult {
            let text = format!("{name} {arguments}");
            ToolResult::Refused(Refusal::new(
                ErrorCode::UnknownTool,
                jig_lineage::Layer::Registry,
                text,
            ))
        }
    }

    fn dispatched(transcript: &crate::Transcript) -> Vec<String> {
        let actions = transcript.rounds.iter().flat_map(|r| &r.actions);
        actions
            .filter_map(|a| match a {
                Action::Called { result, .. } => Some(result.refusal()?.message.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn prompt_mode_types_text_values_by_the_tools_schema() {
        let mut model = Script::new(vec![
            Message::assistant("<function=count><parameter=n>42</parameter></function>"),
            Message::assistant("[count(n=\"7\")]"),
        ]);
        let transcript = AgentLoop::new(&Typed).run(&mut model, "t", |_| {}).unwrap();
        assert_eq!(
            dispatched(&transcript),
            [r#"count {"n":42}"#, r#"count {"n":7}"#]
        );
    }

    #[test]
    fn prompt_mode_runs_at_most_the_maximum_of_calls_and_says_so() {
        let mut model = Script::new(vec![Message::assistant(
            "[count(n=1), count(n=2), count(n=3)]",
        )]);
        let transcript = AgentLoop::new(&Typed)
            .with_max_calls_per_reply(2)
            .run(&mut model, "t", |_| {})
            .unwrap();
        assert_eq!(
            dispatched(&transcript),
            [r#"count {"n":1}"#, r#"count {"n":2}"#]
        );
        let fed = &transcript.messages[3].content;
        assert!(fed.contains("Not run: count (at most 2 calls"), "{fed}");
    }

    #[test]
    fn results_are_cut_at_a_character_boundary() {
        assert_eq!(bounded("short", 5), "short");
        assert_eq!(
            bounded("abcdef", 3),
            "abc\n[result cut: 3 of 6 bytes shown]"
        );
        assert_eq!(bounded("aéb", 2), "a\n[result cut: 1 of 4 bytes shown]");
        assert_eq!(bounded("é", 0), "\n[result cut: 0 of 2 bytes shown]");
    }
}
