//! A real registry in a temporary workspace, and transcripts rendered for
//! snapshots.

use std::fmt::Write;
use std::path::Path;

use jig_agent::{Action, Message, Role, Transcript};
use jig_policy::PolicyConfig;
use jig_presets::{FullPreset, Registry};

/// A workspace with a few files; `find` is denied by the runtime policy.
pub(crate) struct Workspace {
    pub(crate) dir: tempfile::TempDir,
    pub(crate) registry: Registry,
}

impl Workspace {
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join("notes.txt"),
            "first line\nTODO: write tests\nlast line\n",
        )
        .unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        std::fs::write(
            root.join("src/main.rs"),
            "fn main() {\n    // TODO: more\n}\n",
        )
        .unwrap();
        let registry = FullPreset::new(root)
            .with_policy(PolicyConfig::new().with_deny(["find"]))
            .build()
            .unwrap()
            .registry;
        Self { dir, registry }
    }

    pub(crate) fn root(&self) -> &Path {
        self.dir.path()
    }

    /// `text` with the temporary root replaced by `[ROOT]`.
    pub(crate) fn redact(&self, text: &str) -> String {
        let canonical = std::fs::canonicalize(self.root()).unwrap();
        text.replace(canonical.to_str().unwrap(), "[ROOT]")
            .replace(self.root().to_str().unwrap(), "[ROOT]")
    }

    /// The transcript as a person reads it: the conversation after the
    /// system prompt (snapshotted on its own), what each round did, and why
    /// the run stopped.
    pub(crate) fn render(&self, transcript: &Transcript) -> String {
        let mut text = String::new();
        for message in &transcript.messages {
            render_message(&mut text, message);
        }
        text.push_str("=== rounds\n");
        for round in &transcript.rounds {
            let actions: Vec<String> = round.actions.iter().map(render_action).collect();
            let actions = if actions.is_empty() {
                "(none)".to_owned()
            } else {
                actions.join("; ")
            };
            writeln!(text, "{}: {actions}", round.number).unwrap();
        }
        writeln!(text, "=== stop: {}", transcript.stop).unwrap();
        self.redact(&text)
    }
}

fn render_message(text: &mut String, message: &Message) {
    let role = message.role.as_str();
    match (&message.role, &message.tool_call_id) {
        (Role::System, _) => {
            writeln!(text, "--- system ({} bytes)", message.content.len()).unwrap();
            return;
        }
        (_, Some(id)) => writeln!(text, "--- {role} [{id}]").unwrap(),
        (_, None) => writeln!(text, "--- {role}").unwrap(),
    }
    if !message.content.is_empty() {
        writeln!(text, "{}", message.content.trim_end()).unwrap();
    }
    for call in &message.tool_calls {
        writeln!(
            text,
            "tool_call [{}] {} {}",
            call.id, call.name, call.arguments
        )
        .unwrap();
    }
}

fn render_action(action: &Action) -> String {
    match action {
        Action::Called { call, result, .. } => {
            let outcome = match result.refusal() {
                Some(refusal) => format!(
                    "refused {} by {}",
                    refusal.code.code(),
                    refusal.layer.as_str()
                ),
                None => "ran".to_owned(),
            };
            format!("called {} -> {outcome}", call.to_json())
        }
        Action::Corrected { reason, .. } => format!("corrected: {reason}"),
        _ => "other".to_owned(),
    }
}
