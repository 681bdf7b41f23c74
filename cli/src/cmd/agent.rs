//! `jig agent`: the tool-call loop against an OpenAI-compatible chat
//! completions endpoint, every call through the registry.

use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Args;
use jig_agent::{
    Action, AgentLoop, ChatError, ChatModel, DEFAULT_MAX_RESULT_BYTES, DEFAULT_MAX_ROUNDS, Event,
    Message, Mode, OpenAiClient, OpenAiConfig, StopReason,
};

use jig_kernel::CancelToken;
use jig_lineage::{Dispatcher, ToolInfo, ToolResult};
use jig_presets::{DispatchOptions, Registry};
use serde_json::Value;

use crate::error::{CliError, EXIT_ERROR, EXIT_OK, exit};
use crate::settings::Settings;
use crate::signals;

/// Exit status when the run stopped before the model finished.
const EXIT_UNFINISHED: u8 = 4;
/// Lines of a result printed per round.
const SHOWN_LINES: usize = 6;
/// Characters of a result printed per round.
const SHOWN_CHARS: usize = 400;

/// Arguments of `jig agent`.
#[derive(Debug, Args)]
#[command(after_help = "\
Runs a model on a task: the model's calls go through the same registry as `jig call` (the
workspace and call options set the workspace, the tools, the policy and the exec tool), each round is
printed as it happens, and the run stops when the model finishes, replies without a call,
or reaches --max-rounds.

Prompt mode (the default) lists the tools in the system prompt and reads every call of each
reply in any model's format (as `jig parse --registry` does), for models without native tool
calling. --native uses the endpoint's own tool calling (`tools`, `tool_calls`). Either way the
calls of a reply run in order (read-only ones may overlap) and none runs when one of them
cannot be read.

Exit status: 0 when the model finished, 4 when the run stopped first (maximum of rounds,
calls that stayed unusable after corrections), 1 on a configuration error or when the endpoint
failed; 130, 143 or 129 after SIGINT, SIGTERM or SIGHUP, which cancel the running command.

Examples:
  llama-server -m model.gguf --port 8080
  jig --root . agent --endpoint http://127.0.0.1:8080/v1 --model local \"Find the TODOs\"
  jig --root . agent --endpoint http://127.0.0.1:11434/v1 --model qwen2.5:7b --native \"...\"
  OPENAI_API_KEY=... jig agent --endpoint https://api.openai.com/v1 --model gpt-4o-mini \\
      --native --api-key-env OPENAI_API_KEY \"...\"")]
pub(crate) struct AgentArgs {
    /// The task, in words; `-` reads it from stdin
    #[arg(value_name = "TASK")]
    task: String,

    /// Base URL of an OpenAI-compatible API, such as http://127.0.0.1:8080/v1
    #[arg(long, value_name = "URL")]
    endpoint: String,

    /// The model name the endpoint expects
    #[arg(long, value_name = "NAME")]
    model: String,

    /// Use the endpoint's native tool calling instead of JSON in the text
    #[arg(long)]
    native: bool,

    /// Stop after this many model replies
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_ROUNDS)]
    max_rounds: usize,

    /// Read the API key from this environment variable (sent as a bearer token)
    #[arg(long, value_name = "VAR")]
    api_key_env: Option<String>,

    /// Time allowed for one model reply, in seconds
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    model_timeout: u64,

    /// Most bytes of one result fed back to the model (on top of each tool's output budget)
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_RESULT_BYTES)]
    max_result_bytes: usize,
    /// Workspace options (also accepted before the subcommand).
    #[command(flatten)]
    pub(crate) load: crate::args::LoadArgs,

    /// Call options (also accepted before the subcommand).
    #[command(flatten)]
    pub(crate) run: crate::args::RunArgs,
}

/// Runs the loop, printing each round.
pub(crate) fn run(settings: &Settings, args: &AgentArgs) -> Result<ExitCode, CliError> {
    let task = if args.task == "-" {
        super::repair::read_stdin()?
    } else {
        args.task.clone()
    };
    let mut config = OpenAiConfig::new(&args.endpoint, &args.model)
        .with_timeout(Duration::from_secs(args.model_timeout.max(1)));
    if let Some(var) = &args.api_key_env {
        config = config.with_api_key(api_key(var)?);
    }
    let client = OpenAiClient::new(config);
    let built = crate::preset::build(settings)?;
    let mode = if args.native {
        Mode::Native
    } else {
        Mode::Prompt
    };
    let (max_rounds, max_result_bytes) = (args.max_rounds, args.max_result_bytes);
    let token = CancelToken::new();
    let gate = Arc::new(Mutex::new(()));
    let dispatcher = Cancellable {
        registry: built.registry,
        token: token.clone(),
        gate: Arc::clone(&gate),
    };
    // A termination signal cancels the running command through the kernel;
    // the model is not asked again (`UntilStopped`), the loop is not waited
    // for past a short bound, and not at all when no command runs (it is
    // waiting on the model): the gate, taken then and kept until the
    // process exits, keeps the loop from starting one meanwhile.
    let idle = move || match gate.try_lock() {
        Ok(guard) => {
            std::mem::forget(guard);
            true
        }
        Err(_) => false,
    };
    let mut client = UntilStopped {
        model: client,
        token: token.clone(),
        endpoint: args.endpoint.clone(),
    };
    let (done, stop) = signals::run_cancellable(&token, STOP_WAIT, idle, move || {
        let agent = AgentLoop::new(&dispatcher)
            .with_mode(mode)
            .with_max_rounds(max_rounds)
            .with_max_result_bytes(max_result_bytes);
        let mut printed = Ok(());
        let transcript = agent
            .run(&mut client, &task, |event| {
                if printed.is_ok() {
                    printed = print_event(event);
                }
            })
            .map_err(|error| CliError::Usage(error.to_string()))?;
        printed?;
        Ok::<_, CliError>(transcript.stop)
    })?;
    if let Some(stop) = stop {
        eprintln!(
            "jig: stopped by {}; a running command is cancelled, the model is not asked again",
            stop.name()
        );
        return Ok(exit(stop.exit_status()));
    }
    let Some(stop_reason) = done else {
        return Err(CliError::Internal(
            "the agent loop ended without a result".to_owned(),
        ));
    };
    Ok(exit(match stop_reason? {
        StopReason::Finished { .. } | StopReason::NoCall { .. } => EXIT_OK,
        StopReason::ModelFailed(_) => EXIT_ERROR,
        _ => EXIT_UNFINISHED,
    }))
}

/// How long the loop gets to return after a termination signal (the
/// kernel ends a cancelled command within its grace period; a request to the
/// model in flight is not waited for).
const STOP_WAIT: Duration = Duration::from_secs(3);

/// The model, asked only while no termination signal has cancelled the run:
/// after one, the loop ends at its next turn instead of sending the model
/// the cancelled command's result.
struct UntilStopped<M> {
    model: M,
    token: CancelToken,
    endpoint: String,
}

impl<M: ChatModel> ChatModel for UntilStopped<M> {
    fn complete(&mut self, messages: &[Message], tools: &[ToolInfo]) -> Result<Message, ChatError> {
        if self.token.is_cancelled() {
            return Err(ChatError::Transport {
                endpoint: self.endpoint.clone(),
                message: "not asked: jig is stopping on a termination signal".to_owned(),
            });
        }
        self.model.complete(messages, tools)
    }
}

/// The registry, every call of it holding one cancel token and, while it
/// runs, the gate (see [`run`]).
struct Cancellable {
    registry: Registry,
    token: CancelToken,
    gate: Arc<Mutex<()>>,
}

impl Dispatcher for Cancellable {
    fn tools(&self) -> Vec<ToolInfo> {
        Dispatcher::tools(&self.registry)
    }

    fn dispatch(&self, name: &str, arguments: &Value) -> ToolResult {
        // a gate poisoned by a panicking call still keeps its place
        let _running = self
            .gate
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let options = DispatchOptions::with_cancel(self.token.clone());
        self.registry.dispatch_with(name, arguments, &options)
    }
}

/// The key in `var`; an unset or empty variable is a configuration error.
/// The key itself is never printed.
fn api_key(var: &str) -> Result<String, CliError> {
    match std::env::var(var) {
        Ok(key) if !key.trim().is_empty() => Ok(key.trim().to_owned()),
        _ => Err(CliError::Usage(format!(
            "--api-key-env: the environment variable {var} is not set or empty"
        ))),
    }
}

/// One event, printed: a call and its result (shortened), a correction, the
/// end of the run.
fn print_event(event: &Event<'_>) -> Result<(), CliError> {
    match event {
        Event::Action { round, action } => match action {
            Action::Called { call, fed_back, .. } => {
                let arguments = serde_json::Value::Object(call.arguments().clone());
                super::print_text(&format!(
                    "[{round}] {} {arguments}\n{}",
                    call.name(),
                    shortened(fed_back)
                ))
            }
            Action::Corrected { reason, .. } => {
                super::print_text(&format!("[{round}] unusable call, asked again: {reason}"))
            }
            _ => Ok(()),
        },
        Event::Stop { reason } => match reason {
            StopReason::Finished { answer } => super::print_text(&format!("done: {answer}")),
            StopReason::NoCall { text } => super::print_text(&format!("answer: {}", text.trim())),
            StopReason::ModelFailed(error) => {
                eprintln!("jig: error: {error}");
                Ok(())
            }
            other => {
                eprintln!("jig: {other}");
                Ok(())
            }
        },
        _ => Ok(()),
    }
}

/// The first lines of a result, indented, with a note of what was left out.
fn shortened(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut shown = String::new();
    for line in lines.iter().take(SHOWN_LINES) {
        shown.push_str("    ");
        shown.push_str(line);
        shown.push('\n');
    }
    let mut cut = false;
    if shown.chars().count() > SHOWN_CHARS {
        shown = shown.chars().take(SHOWN_CHARS).collect();
        shown.push('\n');
        cut = true;
    }
    if lines.len() > SHOWN_LINES || cut {
        shown.push_str(&format!(
            "    [... {} lines, {} bytes in all]",
            lines.len(),
            text.len()
        ));
    }
    shown.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::shortened;

    #[test]
    fn results_are_shortened_for_the_terminal() {
        assert_eq!(
            shortened("exit: 0\noutput: a"),
            "    exit: 0\n    output: a"
        );
        let long: String = (1..=20).map(|n| format!("line {n}\n")).collect();
        let short = shortened(&long);
        assert_eq!(short.lines().count(), 7, "{short}");
        assert!(
            short.ends_with("[... 20 lines, 151 bytes in all]"),
            "{short}"
        );
    }
}
