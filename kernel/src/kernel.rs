use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::run::{RunOptions, supervise};
use crate::{KernelError, Limits, Outcome, fds};

/// The default search path for programs.
pub const DEFAULT_SEARCH_PATH: &[&str] = &["/usr/local/bin", "/usr/bin", "/bin"];

/// Runs one argv at a time (or many at once from several threads), bounded,
/// in a fixed working directory, with a clean environment and no shell.
///
/// Build one with [`Kernel::builder`]. A `Kernel` is cheap to clone and is
/// `Send + Sync`.
#[derive(Debug, Clone)]
pub struct Kernel {
    root: PathBuf,
    search_path: Vec<PathBuf>,
    limits: Limits,
    env: Vec<(OsString, OsString)>,
}

/// Configures a [`Kernel`]; `build` checks the root.
#[derive(Debug, Clone)]
pub struct KernelBuilder {
    root: PathBuf,
    search_path: Vec<PathBuf>,
    limits: Limits,
    tmpdir: PathBuf,
    home: PathBuf,
    extra_env: Vec<(OsString, OsString)>,
}

/// The default `HOME` of children: a folder that does not exist, so no
/// program reads configuration from a home the model could have written to
/// (the workspace) or from the integrator's own.
pub const DEFAULT_HOME: &str = "/nonexistent";

impl Kernel {
    /// Starts configuring a kernel whose every run happens in `root`.
    pub fn builder(root: impl Into<PathBuf>) -> KernelBuilder {
        KernelBuilder {
            root: root.into(),
            search_path: DEFAULT_SEARCH_PATH.iter().map(PathBuf::from).collect(),
            limits: Limits::default(),
            tmpdir: PathBuf::from("/tmp"),
            home: PathBuf::from(DEFAULT_HOME),
            extra_env: Vec::new(),
        }
    }

    /// The canonical workspace root: the working directory of every run.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The directories searched for programs, in order.
    pub fn search_path(&self) -> &[PathBuf] {
        &self.search_path
    }

    /// The default limits of a run.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The environment every child gets (and nothing else).
    pub fn environment(&self) -> &[(OsString, OsString)] {
        &self.env
    }

    /// Resolves a program name to the absolute path that would run.
    ///
    /// A bare name is looked up on the search path; an absolute path is taken
    /// as it is; a relative path with a `/` is taken relative to the root.
    /// The result must be an executable regular file.
    pub fn resolve(&self, program: &OsStr) -> Result<PathBuf, KernelError> {
        if program.is_empty() {
            return Err(KernelError::EmptyArgv);
        }
        if program.as_bytes().contains(&b'/') {
            let path = self.root.join(program);
            return match std::fs::metadata(&path) {
                Ok(meta) if meta.is_file() && meta.permissions().mode() & 0o111 != 0 => Ok(path),
                Ok(_) => Err(KernelError::NotExecutable { path }),
                Err(_) => Err(self.not_found(program)),
            };
        }
        let mut non_executable = None;
        for dir in &self.search_path {
            let path = dir.join(program);
            match std::fs::metadata(&path) {
                Ok(meta) if meta.is_file() && meta.permissions().mode() & 0o111 != 0 => {
                    return Ok(path);
                }
                Ok(_) => {
                    non_executable.get_or_insert(path);
                }
                Err(_) => {}
            }
        }
        match non_executable {
            Some(path) => Err(KernelError::NotExecutable { path }),
            None => Err(self.not_found(program)),
        }
    }

    fn not_found(&self, program: &OsStr) -> KernelError {
        KernelError::ProgramNotFound {
            program: program.to_string_lossy().into_owned(),
            search_path: join_paths(&self.search_path),
        }
    }

    /// Runs `argv` with the kernel's default limits.
    pub fn run<S: AsRef<OsStr>>(&self, argv: &[S]) -> Result<Outcome, KernelError> {
        self.run_with(argv, &RunOptions::new(self.limits))
    }

    /// Runs `argv` with the given options (limits, cancellation, extra
    /// environment variables).
    pub fn run_with<S: AsRef<OsStr>>(
        &self,
        argv: &[S],
        options: &RunOptions,
    ) -> Result<Outcome, KernelError> {
        let (program, args) = argv.split_first().ok_or(KernelError::EmptyArgv)?;
        for (index, arg) in argv.iter().enumerate() {
            if arg.as_ref().as_bytes().contains(&0) {
                return Err(KernelError::NulInArgument { index });
            }
        }
        let path = self.resolve(program.as_ref())?;
        supervise(self, &path, args, options)
    }
}

impl KernelBuilder {
    /// Replaces the directories searched for programs.
    pub fn search_path<I, P>(mut self, dirs: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: Into<PathBuf>,
    {
        self.search_path = dirs.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the default limits of every run.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets `TMPDIR` for children (default `/tmp`).
    pub fn tmpdir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.tmpdir = dir.into();
        self
    }

    /// Sets `HOME` for children (default [`DEFAULT_HOME`], which does not
    /// exist). Programs read their configuration from `HOME`: point it at a
    /// folder the model cannot write to.
    pub fn home(mut self, dir: impl Into<PathBuf>) -> Self {
        self.home = dir.into();
        self
    }

    /// Adds one variable to the children's environment (beyond `PATH`,
    /// `HOME`, `LANG`, `TERM` and `TMPDIR`). Nothing of the parent's
    /// environment reaches a child unless it is named here.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.extra_env.push((key.into(), value.into()));
        self
    }

    /// Checks and canonicalizes the root and builds the kernel.
    ///
    /// Building also marks every file descriptor above 2 that the process
    /// holds close-on-exec, so none leaks into a child.
    pub fn build(self) -> Result<Kernel, KernelError> {
        let root =
            std::fs::canonicalize(&self.root).map_err(|source| KernelError::RootMissing {
                path: self.root.clone(),
                source,
            })?;
        if !root.is_dir() {
            return Err(KernelError::RootNotDirectory { path: root });
        }
        fds::mark_inherited_close_on_exec();
        let mut env: Vec<(OsString, OsString)> = vec![
            ("PATH".into(), join_paths(&self.search_path).into()),
            ("HOME".into(), self.home.into_os_string()),
            ("LANG".into(), "C.UTF-8".into()),
            ("TERM".into(), "dumb".into()),
            ("TMPDIR".into(), self.tmpdir.into_os_string()),
        ];
        for (key, value) in self.extra_env {
            env.retain(|(k, _)| *k != key);
            env.push((key, value));
        }
        Ok(Kernel {
            root,
            search_path: self.search_path,
            limits: self.limits,
            env,
        })
    }
}

fn join_paths(dirs: &[PathBuf]) -> String {
    dirs.iter()
        .map(|d| d.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(":")
}
