//! One structured audit event per call: through `tracing`, and optionally
//! into a JSON-lines file.

use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use jig_lineage::{Layer, ToolResult};
use serde_json::{Value, json};

/// What happened to one call, for the audit trail.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuditEvent {
    /// The tool called.
    pub tool: String,
    /// `ran` or `refused`.
    pub verdict: &'static str,
    /// The layer that refused (`policy.denylist`, `slot`, `exec.operator`...).
    pub layer: Option<Layer>,
    /// The refusal's code (614, 615, 616...).
    pub code: Option<u16>,
    /// The refusal's `error_type`.
    pub error_type: Option<&'static str>,
    /// The argv that ran.
    pub argv: Option<Vec<String>>,
    /// The exit code, when the command exited.
    pub exit_code: Option<i32>,
    /// The signal that ended the command, if one did.
    pub signal: Option<i32>,
    /// Whether the timeout ended the command.
    pub timed_out: bool,
    /// Time the call took, in milliseconds.
    pub duration_ms: u64,
    /// Bytes of output the command wrote in all.
    pub output_bytes: u64,
    /// Bytes of output dropped from the result.
    pub dropped_bytes: u64,
    /// What the command was allowed to change (`read-only`,
    /// `write-workspace`), when it ran.
    pub access: Option<&'static str>,
    /// What contained the command, when it ran (`landlock abi 6, seccomp,
    /// ...`, or `none: ...`).
    pub containment: Option<String>,
}

impl AuditEvent {
    /// The event of `tool`'s call that came to `result` in `duration`.
    pub fn new(tool: &str, result: &ToolResult, duration: Duration) -> Self {
        let mut event = AuditEvent {
            tool: tool.to_owned(),
            verdict: "refused",
            layer: None,
            code: None,
            error_type: None,
            argv: None,
            exit_code: None,
            signal: None,
            timed_out: false,
            duration_ms: u64::try_from(duration.as_millis()).unwrap_or(u64::MAX),
            output_bytes: 0,
            dropped_bytes: 0,
            access: None,
            containment: None,
        };
        if let Some(refusal) = result.refusal() {
            event.layer = Some(refusal.layer);
            event.code = Some(refusal.code.code());
            event.error_type = Some(refusal.code.error_type());
        }
        if let ToolResult::Ran {
            invocation,
            outcome,
        } = result
        {
            event.verdict = "ran";
            event.argv = Some(invocation.argv.clone());
            event.exit_code = outcome.exit_code();
            event.signal = outcome.signal();
            event.timed_out = outcome.timed_out();
            event.output_bytes = outcome.output.total_bytes();
            event.dropped_bytes = outcome.output.dropped_bytes();
            event.access = Some(outcome.access.as_str());
            event.containment = Some(outcome.confinement.to_string());
        }
        event
    }

    /// The event as one JSON object.
    pub fn to_json(&self) -> Value {
        json!({
            "tool": self.tool,
            "verdict": self.verdict,
            "layer": self.layer.map(Layer::as_str),
            "code": self.code,
            "error_type": self.error_type,
            "argv": self.argv,
            "exit_code": self.exit_code,
            "signal": self.signal,
            "timed_out": self.timed_out,
            "duration_ms": self.duration_ms,
            "output_bytes": self.output_bytes,
            "dropped_bytes": self.dropped_bytes,
            "access": self.access,
            "containment": self.containment,
        })
    }

    /// Whether [`emit`](Self::emit) reaches a subscriber (one that takes
    /// `jig::audit` events at the `INFO` level): without one, and without an
    /// audit sink, nobody reads the event and it need not be made.
    pub fn traced() -> bool {
        tracing::enabled!(target: "jig::audit", tracing::Level::INFO)
    }

    /// Emits the event through `tracing` (target `jig::audit`, level INFO).
    pub fn emit(&self) {
        tracing::info!(
            target: "jig::audit",
            tool = %self.tool,
            verdict = self.verdict,
            layer = self.layer.map_or("", Layer::as_str),
            code = self.code.unwrap_or(0),
            argv = ?self.argv,
            exit_code = ?self.exit_code,
            signal = ?self.signal,
            timed_out = self.timed_out,
            duration_ms = self.duration_ms,
            output_bytes = self.output_bytes,
            dropped_bytes = self.dropped_bytes,
            access = self.access.unwrap_or(""),
            containment = self.containment.as_deref().unwrap_or(""),
            "tool call"
        );
    }
}

/// Somewhere audit events are kept.
pub trait AuditSink: Send + Sync {
    /// Keeps one event; a sink that fails must not fail the call.
    fn record(&self, event: &AuditEvent);
}

/// Appends one JSON object per line to a file.
#[derive(Debug)]
pub struct JsonLinesAudit {
    file: Mutex<std::fs::File>,
}

impl JsonLinesAudit {
    /// Opens (or creates) `path` for appending.
    pub fn open(path: &Path) -> std::io::Result<Self> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        Ok(Self {
            file: Mutex::new(file),
        })
    }
}

impl AuditSink for JsonLinesAudit {
    fn record(&self, event: &AuditEvent) {
        let mut line = event.to_json().to_string();
        line.push('\n');
        if let Ok(mut file) = self.file.lock()
            && let Err(error) = file.write_all(line.as_bytes())
        {
            tracing::warn!(target: "jig::audit", %error, "could not write the audit file");
        }
    }
}
