//! Why a command line was refused: one variant per reason, each carrying the
//! offending input, each rendered as guidance for the model.

use jig_lineage::{ErrorCode, Layer, Refusal};

/// One reason to refuse a command line. `Display` is the guidance the model
/// reads; [`Finding::layer`] says which layer refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Finding {
    /// The arguments are not `{"command": "<text>"}`.
    #[error("{problem}; call this tool with {{\"command\": \"<one command line>\"}}")]
    Arguments { problem: String },

    /// Nothing but blanks.
    #[error("the command is empty; give one command line, for example `ls -la`")]
    Empty,

    /// A quote that is never closed, or a lone trailing backslash.
    #[error(
        "the command has {what}; close every quote, or write the command without quotes if it needs none"
    )]
    Unterminated { what: &'static str },

    /// An unquoted operator.
    #[error("{}", operator_guidance(op))]
    Operator { op: String },

    /// An unquoted `#` at the start of a word.
    #[error(
        "`#` at the start of a word starts a comment in a shell, so everything after it would be dropped; quote it ('#') if it is part of an argument, or remove the comment"
    )]
    Comment,

    /// A control character, a line break or an invisible formatting
    /// character.
    #[error(
        "the argument {word:?} contains a control or invisible character ({code}); write the command on one line with visible characters only"
    )]
    Control { word: String, code: String },

    /// `$` outside single quotes.
    #[error(
        "the argument {word:?} uses `$`, which a shell expands (variables, $(...) command substitution, ${{...}}); nothing is expanded here: write the value itself, and put a literal `$` inside single quotes"
    )]
    Dollar { word: String },

    /// A backtick outside single quotes.
    #[error(
        "the argument {word:?} uses a backtick, which a shell reads as command substitution; run the inner command on its own call and write its result literally"
    )]
    Backtick { word: String },

    /// An unquoted glob character.
    #[error(
        "the argument {word:?} has an unquoted `{c}`, which a shell would expand to matching file names; quote the pattern (for example '*.rs') to pass it to the program, or name the files"
    )]
    Glob { word: String, c: char },

    /// Unquoted brace expansion.
    #[error(
        "the argument {word:?} uses brace expansion ({{a,b}} or {{1..3}}), which a shell would turn into several words; write each word out, or quote the braces"
    )]
    Brace { word: String },

    /// An unquoted leading `~`.
    #[error(
        "the argument {word:?} has a `~` that a shell expands to a home directory (at the start, or after `=` or `:`); write paths relative to the workspace root, or quote the `~`"
    )]
    Tilde { word: String },

    /// A backslash before an ordinary character.
    #[error(
        "the argument {word:?} escapes the ordinary character `{c}` with a backslash, which only hides what the command says; remove the backslash"
    )]
    Escape { word: String, c: char },

    /// A leading `NAME=value` word.
    #[error(
        "`{word}` sets an environment variable, which this tool does not allow (the environment is fixed); pass settings as the program's own options"
    )]
    Assignment { word: String },

    /// Quotes or backslashes in the program name.
    #[error(
        "the program name {word:?} is quoted or escaped; write the program name plainly, for example `ls`"
    )]
    ProgramQuoted { word: String },

    /// A shell keyword or builtin in program position.
    #[error(
        "`{word}` is a shell keyword or builtin, not a program, and no shell runs here; run the program you need directly, one simple command per call"
    )]
    Builtin { word: String },

    /// The program is on the deny-binaries list.
    #[error(
        "the program `{program}` is never allowed (it is on the deny list of destructive programs, shells, interpreters and launchers); use a tool made for the task"
    )]
    Denied { program: String },

    /// The program is written as a path.
    #[error(
        "give the program by its bare name (`{name}`), not as the path `{program}`; programs are looked up on a fixed search path"
    )]
    ProgramPath { program: String, name: String },

    /// The program is not on the allow list.
    #[error(
        "the program `{program}` is not on this tool's allow list ({allowed}); use one of those, or a tool made for the task"
    )]
    NotAllowed { program: String, allowed: String },

    /// A permission rule with the `deny` effect matched.
    #[error("the command matches the rule `{rule}`, which refuses it; do not retry it")]
    RuleDenied { rule: String },

    /// The program's table refused the command (layer 4 and its path
    /// confinement).
    #[error(transparent)]
    Program(#[from] jig_programs::Finding),
}

fn operator_guidance(op: &str) -> String {
    let what = match op {
        "|" | "|&" => {
            "a pipe: no pipes here; use the program's own options instead (for example grep -c rather than | wc -l), or make two calls"
        }
        ";" | "&&" | "||" | ";;" | ";&" => {
            "a command separator: one command per call; make one call for each command"
        }
        "\n" => "a line break: one command per call, on one line",
        "&" => {
            "which runs a command in the background: commands run in the foreground only, one per call"
        }
        "(" | ")" => {
            "a subshell or group: no subshells; make one call per command, and quote parentheses that belong to an argument"
        }
        op if op.starts_with("<<") => {
            "a here-document or here-string: no input redirection; write the text to a file with a tool made for writing, then pass the file name"
        }
        op if op.starts_with('<') => {
            "an input redirection: pass the file name as an argument instead"
        }
        _ => {
            "an output redirection: no redirects; the output comes back to you, and files are written with a tool made for writing"
        }
    };
    format!("the command contains `{}`, {what}", op.escape_debug())
}

impl Finding {
    /// The layer that refuses for this reason.
    pub(crate) fn layer(&self) -> Layer {
        match self {
            Finding::Arguments { .. } => Layer::ExecArguments,
            Finding::Empty
            | Finding::Unterminated { .. }
            | Finding::Operator { .. }
            | Finding::Comment
            | Finding::Control { .. }
            | Finding::Dollar { .. }
            | Finding::Backtick { .. }
            | Finding::Glob { .. }
            | Finding::Brace { .. }
            | Finding::Tilde { .. }
            | Finding::Escape { .. }
            | Finding::Assignment { .. }
            | Finding::ProgramQuoted { .. }
            | Finding::Builtin { .. } => Layer::ExecOperator,
            Finding::Denied { .. } => Layer::ExecDenyList,
            Finding::ProgramPath { .. } | Finding::NotAllowed { .. } => Layer::ExecAllowList,
            Finding::Program(finding) => finding.layer(),
            Finding::RuleDenied { .. } => Layer::ExecRule,
        }
    }

    /// The refusal the model reads.
    pub(crate) fn into_refusal(self) -> Refusal {
        let code = match self {
            Finding::Arguments { .. } => ErrorCode::InvalidArguments,
            _ => ErrorCode::ExecRefused,
        };
        Refusal::new(code, self.layer(), self.to_string()).with_slot("command")
    }
}
