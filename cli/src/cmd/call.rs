//! `jig call`: one call through the registry, printed as the model reads it
//! (or as one JSON object with `--json`).

use jig_lineage::Layer;
use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use jig_kernel::CancelToken;
use jig_lineage::{ErrorCode, Invocation, Refusal, ToolResult};
use jig_presets::DispatchOptions;
use serde_json::{Value, json};

use crate::error::{CliError, EXIT_ERROR, EXIT_OK, EXIT_REFUSED, exit};
use crate::settings::Settings;
use crate::signals::{self, Stop};

/// The most bytes of arguments `jig call NAME -` reads from stdin, unless
/// `--max-stdin-bytes` says otherwise: 1 MiB.
pub(crate) const DEFAULT_MAX_STDIN_BYTES: u64 = 1024 * 1024;

/// How long a command gets to end after a termination signal cancelled it
/// (the kernel's own terminate-then-kill takes far less).
const CANCEL_WAIT: Duration = Duration::from_secs(10);

/// Arguments of `jig call`.
#[derive(Debug, Args)]
#[command(after_help = "\
Exit status: 0 when the tool ran (whatever the command's own exit code), 2 when the call was
refused by any layer (policy, slot validation, exec layers), 1 on a configuration error.

--json prints one object: status (ran, allowed for a dry run, refused, error), code,
error_type, message, argv, exit_code, signal, timed_out, output, dropped_bytes, duration_ms.

SIGINT, SIGTERM and SIGHUP cancel the running command (its whole process group ends) and
exit 130, 143 and 129.")]
pub(crate) struct CallArgs {
    /// The tool to call (see `jig tools`)
    #[arg(value_name = "NAME")]
    name: String,

    /// The arguments, a JSON object; `-` reads them from stdin [default: {}]
    #[arg(value_name = "ARGS_JSON|-")]
    arguments: Option<OsString>,

    /// The most bytes of arguments read from stdin with `-` [default: 1048576, or
    /// max_stdin_bytes of [call] in the configuration file]
    #[arg(long, value_name = "BYTES")]
    max_stdin_bytes: Option<u64>,

    /// Validate the call through every layer and print what would run; run nothing
    #[arg(long)]
    dry_run: bool,

    /// Print one JSON object instead of the model-facing text
    #[arg(long)]
    json: bool,
    /// Workspace options (also accepted before the subcommand).
    #[command(flatten)]
    pub(crate) load: crate::args::LoadArgs,

    /// Call options (also accepted before the subcommand).
    #[command(flatten)]
    pub(crate) run: crate::args::RunArgs,
}

/// Makes the call and prints its result.
pub(crate) fn run(settings: &Settings, args: &CallArgs) -> Result<ExitCode, CliError> {
    match call(settings, args) {
        Ok((report, stop)) => {
            if args.json {
                super::print_json(&report.to_json())?;
            } else {
                super::print_text(&report.text())?;
            }
            Ok(exit(stop.map_or(report.exit_status(), Stop::exit_status)))
        }
        Err(error) if args.json => {
            super::print_json(&error_json(&error))?;
            eprintln!("jig: error: {error}");
            Ok(exit(EXIT_ERROR))
        }
        Err(error) => Err(error),
    }
}

/// What one call came to.
enum Report {
    /// The call ran, or was refused.
    Dispatched(ToolResult),
    /// A dry run passed every layer.
    Allowed(Invocation),
    /// A dry run was refused.
    DryRefused(Refusal),
}

/// Makes the call; a termination signal while it runs cancels it through the
/// kernel and is returned with the report.
fn call(settings: &Settings, args: &CallArgs) -> Result<(Report, Option<Stop>), CliError> {
    let max_stdin = args
        .max_stdin_bytes
        .or(settings.call_max_stdin_bytes.value)
        .unwrap_or(DEFAULT_MAX_STDIN_BYTES);
    let arguments = read_arguments(args.arguments.as_deref(), max_stdin)?;
    let built = crate::preset::build(settings)?;
    let registry = built.registry;
    let arguments = match arguments {
        Ok(arguments) => arguments,
        Err(refusal) if args.dry_run => return Ok((Report::DryRefused(refusal), None)),
        Err(refusal) => return Ok((Report::Dispatched(ToolResult::Refused(refusal)), None)),
    };
    if args.dry_run {
        let report = match registry.dry_run(&args.name, &arguments) {
            Ok(invocation) => Report::Allowed(invocation),
            Err(refusal) => Report::DryRefused(refusal),
        };
        return Ok((report, None));
    }
    let token = CancelToken::new();
    let options = DispatchOptions::with_cancel(token.clone());
    let name = args.name.clone();
    // the job is the command: always waited for
    let (result, stop) = signals::run_cancellable(
        &token,
        CANCEL_WAIT,
        || false,
        move || registry.dispatch_with(&name, &arguments, &options),
    )?;
    match (result, stop) {
        (Some(result), stop) => Ok((Report::Dispatched(result), stop)),
        (None, stop) => Err(CliError::Internal(format!(
            "the command did not end within {CANCEL_WAIT:?} of {}",
            stop.map_or("its cancellation", Stop::name)
        ))),
    }
}

/// The arguments as given, or a refusal (620) when they are not UTF-8. Text
/// that is not JSON is passed on as a string, so the registry refuses it with
/// the same guidance a model would get (620): the binary adds no validation
/// of its own. Stdin is read up to `max_stdin` bytes; more is an error.
fn read_arguments(
    arguments: Option<&OsStr>,
    max_stdin: u64,
) -> Result<Result<Value, Refusal>, CliError> {
    let bytes = match arguments {
        None => return Ok(Ok(Value::Null)),
        Some(dash) if dash == "-" => read_stdin(max_stdin)?,
        Some(text) => text.as_encoded_bytes().to_vec(),
    };
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => return Ok(Err(not_utf8(error.utf8_error().valid_up_to()))),
    };
    Ok(Ok(
        serde_json::from_str(&text).unwrap_or(Value::String(text))
    ))
}

/// At most `limit` bytes of stdin; more is an error that says how to raise it.
fn read_stdin(limit: u64) -> Result<Vec<u8>, CliError> {
    let mut bytes = Vec::new();
    super::Patient(std::io::stdin().lock())
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|source| CliError::Read {
            what: "the arguments from stdin".to_owned(),
            source,
        })?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > limit {
        return Err(CliError::Usage(format!(
            "the arguments on stdin are longer than {limit} bytes; pass smaller arguments, \
             or raise the limit with --max-stdin-bytes"
        )));
    }
    Ok(bytes)
}

/// The refusal of arguments that are not UTF-8 (620).
fn not_utf8(valid_up_to: usize) -> Refusal {
    Refusal::new(
        ErrorCode::InvalidArguments,
        Layer::Arguments,
        format!(
            "the arguments are not valid UTF-8 (the byte at offset {valid_up_to} is not); \
             send them as a JSON object in UTF-8, with any other text escaped as \\uXXXX"
        ),
    )
}

impl Report {
    fn exit_status(&self) -> u8 {
        match self {
            Report::Dispatched(ToolResult::Ran { .. }) | Report::Allowed(_) => EXIT_OK,
            Report::Dispatched(_) | Report::DryRefused(_) => EXIT_REFUSED,
        }
    }

    /// The text printed without `--json`: the model-facing string, or for a
    /// dry run what would run.
    fn text(&self) -> String {
        match self {
            Report::Dispatched(result) => result.text(),
            Report::Allowed(invocation) => dry_run_text(invocation),
            Report::DryRefused(refusal) => refusal.render(),
        }
    }

    fn to_json(&self) -> Value {
        match self {
            Report::Dispatched(
                result @ ToolResult::Ran {
                    invocation,
                    outcome,
                },
            ) => json!({
                "status": "ran",
                "code": null,
                "error_type": null,
                "message": result.text(),
                "argv": invocation.argv,
                "exit_code": outcome.exit_code(),
                "signal": outcome.signal(),
                "timed_out": outcome.timed_out(),
                "output": outcome.output.text(),
                "dropped_bytes": outcome.output.dropped_bytes(),
                "duration_ms": millis(outcome.duration),
            }),
            Report::Dispatched(result) => match result.refusal() {
                Some(refusal) => refused_json(refusal),
                None => error_json(&CliError::Internal(format!(
                    "the call came to an unknown kind of result: {}",
                    result.text()
                ))),
            },
            Report::Allowed(invocation) => {
                let mut value = empty("allowed");
                value["message"] = Value::String(dry_run_text(invocation));
                value["argv"] = json!(invocation.argv);
                value
            }
            Report::DryRefused(refusal) => refused_json(refusal),
        }
    }
}

/// An object with every field, `status` set and the rest null.
fn empty(status: &str) -> Value {
    json!({
        "status": status,
        "code": null,
        "error_type": null,
        "message": null,
        "argv": null,
        "exit_code": null,
        "signal": null,
        "timed_out": null,
        "output": null,
        "dropped_bytes": null,
        "duration_ms": null,
    })
}

fn refused_json(refusal: &Refusal) -> Value {
    let mut value = empty("refused");
    value["code"] = json!(refusal.code.code());
    value["error_type"] = json!(refusal.code.error_type());
    value["message"] = json!(refusal.render());
    value
}

fn error_json(error: &CliError) -> Value {
    let mut value = empty("error");
    value["message"] = json!(error.to_string());
    value
}

/// Milliseconds, to the microsecond.
fn millis(duration: std::time::Duration) -> f64 {
    (duration.as_secs_f64() * 1_000_000.0).round() / 1_000.0
}

/// `allowed: would run grep -rn TODO .` and the details of the invocation.
fn dry_run_text(invocation: &Invocation) -> String {
    let mut text = format!("allowed: would run {}", shell_words(&invocation.argv));
    for (key, value) in &invocation.env {
        text.push_str(&format!("\nwith environment {key}={}", quote(value)));
    }
    if invocation.read_only {
        text.push_str("\nread-only: yes");
    }
    if let Some(rule) = &invocation.needs_approval {
        text.push_str(&format!("\nneeds approval: {rule}"));
    }
    text
}

/// The argv as a person would type it (quoted for reading only: jig never
/// runs a shell).
fn shell_words(argv: &[String]) -> String {
    argv.iter()
        .map(|word| quote(word))
        .collect::<Vec<_>>()
        .join(" ")
}

fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./,:=+@%^".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_only_when_needed() {
        let argv = ["grep", "-rn", "a b", "it's", "", "x;y"].map(str::to_owned);
        assert_eq!(shell_words(&argv), r#"grep -rn 'a b' 'it'\''s' '' 'x;y'"#);
    }

    #[test]
    fn arguments_that_are_not_json_go_on_as_text() {
        let read = |text: Option<&str>| read_arguments(text.map(OsStr::new), 10).unwrap();
        assert_eq!(read(None), Ok(Value::Null));
        assert_eq!(read(Some(r#"{"a":1}"#)), Ok(json!({"a": 1})));
        assert_eq!(read(Some("{oops")), Ok(Value::String("{oops".to_owned())));
    }

    #[test]
    fn arguments_that_are_not_utf8_are_refused_with_620() {
        use std::os::unix::ffi::OsStrExt;
        let refusal = read_arguments(Some(OsStr::from_bytes(b"{\"a\":\"\xff\"}")), 10)
            .unwrap()
            .unwrap_err();
        assert_eq!(refusal.code, ErrorCode::InvalidArguments);
        assert!(refusal.message.contains("offset 6"), "{}", refusal.message);
    }
}
