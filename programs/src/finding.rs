//! Why a program's table refused an argv: one variant per reason, each
//! carrying the offending input, each rendered as guidance for the model.

use std::borrow::Cow;

use jig_lineage::{ErrorCode, Layer, PathRefusal, Refusal};

/// One reason a program's table refuses an argv. `Display` is the guidance
/// the model reads; [`Finding::layer`] says which layer refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Finding {
    /// A program that launches the command given in its arguments.
    #[error(
        "`{program}` runs another program given in its arguments; run the program you need directly, one simple command per call"
    )]
    Launcher {
        /// The program, by the name it was invoked by.
        program: String,
    },

    /// A refused option.
    #[error("{program}: the option `{option}` {reason}")]
    Option {
        /// The program, by the name it was invoked by.
        program: String,
        /// The option as written.
        option: String,
        /// Why it is refused.
        reason: Cow<'static, str>,
    },

    /// A refused operand (non-option argument) or command form.
    #[error("{program}: {reason}")]
    Operand {
        /// The program, by the name it was invoked by.
        program: String,
        /// The operand as written.
        operand: String,
        /// Why it is refused.
        reason: Cow<'static, str>,
    },

    /// A path argument outside the workspace (or a special file).
    #[error("{program}: {source}")]
    Path {
        /// The program, by the name it was invoked by.
        program: String,
        /// What the path check found.
        #[source]
        source: PathRefusal,
    },

    /// The program would read standard input, which is closed.
    #[error(
        "{program}: with no file to read it reads standard input, which is always empty here; name the file to read (and `-` is standard input too)"
    )]
    Stdin {
        /// The program, by the name it was invoked by.
        program: String,
    },

    /// The repository git would use keeps its data outside the workspace.
    #[error(
        "git: this repository keeps its data in {gitdir:?}, outside the workspace; the exec tool runs git only on repositories stored inside the workspace"
    )]
    Repository {
        /// Where the repository keeps its data.
        gitdir: String,
    },

    /// Git could not tell, or told in a way jig cannot read exactly, which
    /// of the repository's configuration keys name programs (asked at run
    /// time, right before the run).
    #[error("git: {reason}")]
    GitConfig {
        /// What went wrong and what to do.
        reason: String,
    },
}

impl Finding {
    /// The layer that refuses for this reason, as the exec tool names it
    /// ([`Layer::at_run_point`] gives the run point's name).
    pub fn layer(&self) -> Layer {
        match self {
            Finding::Launcher { .. } | Finding::Option { .. } | Finding::Operand { .. } => {
                Layer::ExecFlags
            }
            Finding::Path { .. }
            | Finding::Stdin { .. }
            | Finding::Repository { .. }
            | Finding::GitConfig { .. } => Layer::ExecPath,
        }
    }

    /// The refusal the model reads, with `code`, at the exec tool's layer.
    pub fn into_refusal(self, code: ErrorCode) -> Refusal {
        Refusal::new(code, self.layer(), self.to_string())
    }

    /// A refused option of `program`.
    pub fn option(program: &str, option: &str, reason: impl Into<Cow<'static, str>>) -> Self {
        Finding::Option {
            program: program.to_owned(),
            option: option.to_owned(),
            reason: reason.into(),
        }
    }

    /// A refused operand or form of `program`.
    pub fn operand(program: &str, operand: &str, reason: impl Into<Cow<'static, str>>) -> Self {
        Finding::Operand {
            program: program.to_owned(),
            operand: operand.to_owned(),
            reason: reason.into(),
        }
    }
}
