//! Read-only classification: what a harness may run concurrently.

use crate::spec::{self, Lookup};

/// What a command does, as far as running it alongside others goes.
///
/// The first four classes only read (or print); a harness may run such
/// calls concurrently. [`CommandClass::Other`] may write or has side effects
/// and runs alone. The classification is conservative: a read-only program
/// with an option that writes (`sort -o`, `sed -i`, `find -delete`) or that
/// the exec tool would refuse is `Other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum CommandClass {
    /// Searches file contents or names: `grep`, `rg`, `find`, `git grep`.
    Search,
    /// Reads files or repository history: `cat`, `head`, `wc`, `git log`.
    Read,
    /// Lists folders: `ls`, `tree`, `du`, `git ls-files`.
    List,
    /// Touches nothing: `echo`, `true`, `printf`, `pwd`, `--version` queries.
    Neutral,
    /// Anything else: may write or have side effects.
    Other,
}

impl CommandClass {
    /// Whether the command only reads, so it may run concurrently with
    /// other read-only calls.
    pub fn is_read_only(self) -> bool {
        !matches!(self, CommandClass::Other)
    }

    /// `search`, `read`, `list`, `neutral` or `other`.
    pub fn as_str(self) -> &'static str {
        match self {
            CommandClass::Search => "search",
            CommandClass::Read => "read",
            CommandClass::List => "list",
            CommandClass::Neutral => "neutral",
            CommandClass::Other => "other",
        }
    }
}

impl std::fmt::Display for CommandClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Classifies an argv (program first) without any I/O.
///
/// A program the exec tool has no table for, a launcher, a program written
/// as a path, or a command its table refuses is [`CommandClass::Other`].
/// Path confinement is not checked here (it needs the workspace); the class
/// of a command that the exec tool accepts is the class
/// reported in [`Invocation::read_only`](jig_lineage::Invocation::read_only).
///
/// ```
/// use jig_programs::{CommandClass, classify};
///
/// assert_eq!(classify(&["grep", "-rn", "TODO", "src"]), CommandClass::Search);
/// assert_eq!(classify(&["git", "log", "-3"]), CommandClass::Read);
/// assert_eq!(classify(&["sort", "-o", "out.txt", "in.txt"]), CommandClass::Other);
/// assert!(!classify(&["git", "commit", "-m", "x"]).is_read_only());
/// ```
pub fn classify<S: AsRef<str>>(argv: &[S]) -> CommandClass {
    let Some((program, args)) = argv.split_first() else {
        return CommandClass::Other;
    };
    let program = program.as_ref();
    if program.contains('/') {
        return CommandClass::Other;
    }
    let args: Vec<String> = args.iter().map(|a| a.as_ref().to_owned()).collect();
    match spec::lookup(program) {
        Lookup::Spec(found) => spec::judge(program, found, &args)
            .map(|judged| judged.class)
            .unwrap_or(CommandClass::Other),
        Lookup::Launcher | Lookup::Generic => CommandClass::Other,
    }
}
