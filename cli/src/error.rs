//! Errors of the command line itself (configuration, input, internal), and
//! the exit codes.

use std::path::PathBuf;
use std::process::ExitCode;

use jig_presets::PresetError;

/// Exit status when the command did its job (a call ran, whatever its own
/// exit code).
pub(crate) const EXIT_OK: u8 = 0;
/// Exit status of a configuration or internal error.
pub(crate) const EXIT_ERROR: u8 = 1;
/// Exit status when a call was refused by any layer.
pub(crate) const EXIT_REFUSED: u8 = 2;

/// Why `jig` could not do its job: a bad configuration, unreadable input, a
/// failure of the runtime. Refusals of calls are not errors: they are results.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// The preset (kernel, tools, policy) could not be built.
    #[error("{0}")]
    Preset(#[from] PresetError),
    /// A command-line value is unusable.
    #[error("{0}")]
    Usage(String),
    /// The configuration file is unusable (syntax, an unknown key, a bad
    /// value, or it lies inside the workspace).
    #[error("configuration file {}: {message}", path.display())]
    Config {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the key and where in the file when known.
        message: String,
    },
    /// Reading a file or a stream failed.
    #[error("cannot read {what}: {source}")]
    Read {
        /// What was being read.
        what: String,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The descriptor folder to check does not exist.
    #[error("descriptor folder {} does not exist or is not a folder", path.display())]
    NoFolder {
        /// The folder.
        path: PathBuf,
    },
    /// Writing the result failed, or the async runtime failed.
    #[error("{0}")]
    Internal(String),
}

impl CliError {
    /// The exit status of every error ([`EXIT_ERROR`]).
    pub(crate) const EXIT_CODE: ExitCode = ExitCode::FAILURE;
}

/// Exit status from one of the `EXIT_*` constants.
pub(crate) fn exit(code: u8) -> ExitCode {
    ExitCode::from(code)
}
