use std::path::PathBuf;

/// Why the kernel could not be built or could not start a program.
///
/// Once a program has started, every way it can end (exit, signal, timeout,
/// cancellation) is an [`Outcome`](crate::Outcome), not an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KernelError {
    /// The workspace root does not exist (or cannot be read).
    #[error("workspace root {path} does not exist or cannot be read: {source}")]
    RootMissing {
        /// The root as configured.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The workspace root exists but is not a directory.
    #[error("workspace root {path} is not a directory")]
    RootNotDirectory {
        /// The root, canonicalized.
        path: PathBuf,
    },
    /// The argv was empty: there is no program to run.
    #[error("empty command: there is no program to run")]
    EmptyArgv,
    /// An argument holds a NUL byte, which no argv element can carry.
    #[error("argument {index} holds a NUL byte, which a command line cannot carry")]
    NulInArgument {
        /// Position of the argument in the argv (0 is the program).
        index: usize,
    },
    /// The program was not found on the kernel's search path.
    #[error("program `{program}` not found on the search path {search_path}")]
    ProgramNotFound {
        /// The program as given.
        program: String,
        /// The search path, `:`-separated.
        search_path: String,
    },
    /// The program exists but is not an executable file.
    #[error("`{}` is not an executable file", path.display())]
    NotExecutable {
        /// The resolved path.
        path: PathBuf,
    },
    /// The operating system refused to start the program.
    #[error("could not start `{}`: {source}", path.display())]
    Spawn {
        /// The resolved path.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// A system call needed to supervise the child failed.
    #[error("could not supervise the child process ({operation}): {source}")]
    Supervise {
        /// The operation that failed.
        operation: &'static str,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The kernel was asked to require containment that this system lacks.
    #[error("containment is required but this system lacks: {missing}")]
    ContainmentUnavailable {
        /// What is missing.
        missing: String,
    },
    /// The workspace holds more secret files (`.env`, private keys...) in
    /// its root and the folders right below it than a call hides: no
    /// program runs, as one could read those past the limit.
    #[error(
        "the workspace has more than {limit} secret files (.env, private keys...) in its root \
         and the folders right below it, more than a command can run with hidden: move some \
         out of the workspace or deeper down, then call again"
    )]
    TooManySecretFiles {
        /// The most files a call hides.
        limit: usize,
    },
    /// A folder of the workspace where secret files are hidden (the root,
    /// or one right below it) cannot be listed by the integrator's user,
    /// who can still open files in it by name: no program runs, as one
    /// could read a secret file there that could not be hidden.
    #[error(
        "cannot list {} to hide the secret files in it ({source}), though a command could open \
         them by name: give the integrator's user read access to that folder, or take away its \
         search access, then call again",
        folder.display()
    )]
    UnlistableFolder {
        /// The folder.
        folder: std::path::PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// A step of containing the program failed before it could start.
    #[error("could not contain the command ({stage}): {source}")]
    Contain {
        /// The step that failed.
        stage: &'static str,
        /// What the operating system said.
        source: std::io::Error,
    },
}
