use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use std::sync::Arc;

use crate::contain::{self, Containment, Level, Mechanism, Plan};
use crate::run::{RunOptions, supervise};
use crate::{Confinement, KernelError, Limits, Outcome, fds};

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
    tmp_base: PathBuf,
    containment: Containment,
    plan: Option<Arc<Plan>>,
    read_only: Vec<PathBuf>,
    mask: Option<fn(&str) -> bool>,
    /// What calls cut short with their integrator had left at protected
    /// paths, set aside when this kernel was built.
    recovered: Vec<crate::SetAside>,
    /// What this kernel's calls (and its clones') found of the secret
    /// files: those hidden because a link led to them, hidden in every
    /// later call though the link goes, and what each folder searched held
    /// (see `contain::masked`).
    masked: Arc<crate::contain::masked::Memory>,
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
    containment: Containment,
    without: Vec<Mechanism>,
    read_only: Vec<PathBuf>,
    mask: Option<fn(&str) -> bool>,
}

/// The default `HOME` of children: a folder that does not exist, so no
/// program reads configuration from a home the model could have written to
/// (the workspace) or from the integrator's own.
pub const DEFAULT_HOME: &str = "/nonexistent";

/// The locale every child gets unless `LANG` is named for it: UTF-8
/// characters, and every other category C's (which C.UTF-8 shares). Only
/// the character type is named, not `LANG`, so a program loads one locale
/// file instead of a dozen (about 0.4 ms of each call on a small machine).
const DEFAULT_CTYPE: (&str, &str) = ("LC_CTYPE", "C.UTF-8");

fn is_default_ctype((key, value): &(OsString, OsString)) -> bool {
    key == DEFAULT_CTYPE.0 && value == DEFAULT_CTYPE.1
}

/// The folder under which each call gets its own temporary folder, unless
/// [`KernelBuilder::tmpdir`] says otherwise.
pub const DEFAULT_TMPDIR: &str = "/tmp";

impl Kernel {
    /// Starts configuring a kernel whose every run happens in `root`.
    pub fn builder(root: impl Into<PathBuf>) -> KernelBuilder {
        KernelBuilder {
            root: root.into(),
            search_path: DEFAULT_SEARCH_PATH.iter().map(PathBuf::from).collect(),
            limits: Limits::default(),
            tmpdir: PathBuf::from(DEFAULT_TMPDIR),
            home: PathBuf::from(DEFAULT_HOME),
            extra_env: Vec::new(),
            containment: Containment::best_effort(),
            without: Vec::new(),
            read_only: Vec::new(),
            mask: None,
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

    /// What calls that may write on this root, cut short with their
    /// integrator (a process killed before their end), had left at their
    /// protected paths, set aside as their own end would have (see
    /// [`Outcome::set_aside`](crate::Outcome::set_aside)) when this kernel
    /// was built; empty when there were none. Worth telling the user: a
    /// protected path made by hand after the integrator was killed and
    /// before this kernel was built is set aside too.
    pub fn recovered(&self) -> &[crate::SetAside] {
        &self.recovered
    }

    /// What contains every call of this kernel, as probed when it was built
    /// ([`Confinement::none`] after
    /// [`dangerous_no_containment`](KernelBuilder::dangerous_no_containment)).
    pub fn confinement(&self) -> Confinement {
        let mut confinement = self
            .plan
            .as_ref()
            .map_or_else(Confinement::none, |plan| plan.confinement.clone());
        confinement.protected_paths =
            confinement.namespaces && (!self.read_only.is_empty() || self.mask.is_some());
        confinement
    }

    /// The containment this kernel was asked for.
    pub fn containment(&self) -> Containment {
        self.containment
    }

    pub(crate) fn plan(&self) -> Option<&Plan> {
        self.plan.as_deref()
    }

    /// The paths (relative to the root, or absolute inside it) that every
    /// call sees read-only, where a mount namespace is available.
    pub fn read_only_paths(&self) -> &[PathBuf] {
        &self.read_only
    }

    /// Whether the kernel hides secret files from every call (where a
    /// mount namespace is available).
    pub fn masks_files(&self) -> bool {
        self.mask.is_some()
    }

    pub(crate) fn mask(&self) -> Option<fn(&str) -> bool> {
        self.mask
    }

    /// What earlier calls found of the secret files (see the field).
    pub(crate) fn masked_memory(&self) -> &crate::contain::masked::Memory {
        &self.masked
    }

    /// The folder under which each call gets its private temporary folder.
    pub fn tmp_base(&self) -> &Path {
        &self.tmp_base
    }

    /// The environment every child gets (and nothing else).
    pub fn environment(&self) -> &[(OsString, OsString)] {
        &self.env
    }

    /// The environment of one run: the kernel's, then the run's own
    /// variables (a later one replaces an earlier one of the same name). A
    /// `LANG` named for the run also removes the default `LC_CTYPE`, which
    /// would otherwise outrank it.
    pub(crate) fn run_environment<'a>(
        &'a self,
        run: &'a [(OsString, OsString)],
    ) -> impl Iterator<Item = (&'a OsStr, &'a OsStr)> {
        let lang_named = run.iter().any(|(key, _)| key == "LANG");
        self.env
            .iter()
            .filter(move |entry| !(lang_named && is_default_ctype(entry)))
            .chain(run)
            .map(|(key, value)| (key.as_os_str(), value.as_os_str()))
    }

    /// Resolves a program name to the absolute path that would run.
    ///
    /// A bare name is looked up on the search path; an absolute path is taken
    /// as it is; a relative path with a `/` is taken relative to the root.
    /// The result must be an executable regular file.
    pub fn resolve(&self, program: &OsStr) -> Result<PathBuf, KernelError> {
        resolve_program(program, &self.root, &self.search_path)
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

    /// Sets the folder under which each call gets its own private temporary
    /// folder, its `TMPDIR` (default `/tmp`). With mount namespaces every
    /// call has the same `TMPDIR` path, one empty folder `jig-<uid>` made
    /// once per user and left in place, where each call mounts its own
    /// tmpfs that no other call sees (if that name is taken by something
    /// else, a folder of the kernel's own, removed with it); otherwise each
    /// call makes and removes its own folder. Without containment, `TMPDIR`
    /// is this folder itself.
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
    /// `HOME`, `LC_CTYPE`, `TERM` and `TMPDIR`; a `LANG` named here
    /// replaces the default `LC_CTYPE`). Nothing of the parent's
    /// environment reaches a child unless it is named here.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.extra_env.push((key.into(), value.into()));
        self
    }

    /// Sets the containment asked for (default
    /// [`Containment::best_effort`]).
    pub fn containment(mut self, containment: Containment) -> Self {
        self.containment = containment;
        self
    }

    /// Keeps these paths (relative to the root, or absolute inside it)
    /// read-only in every call, whatever its access, by read-only bind
    /// mounts in the call's mount namespace (where there is one). A path
    /// that does not exist when a call starts is skipped for that call.
    pub fn read_only_paths<I, P>(mut self, paths: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: Into<PathBuf>,
    {
        self.read_only.extend(paths.into_iter().map(Into::into));
        self
    }

    /// Hides the files of the workspace whose names `matcher` accepts (in
    /// the root and the folders right below it) behind `/dev/null` in every
    /// call, where the call has a mount namespace: reading them gives
    /// nothing, writing them changes nothing. A link whose name it accepts
    /// hides the workspace file it leads to, in that call and in every
    /// later call of the kernel (and its clones), though the link goes.
    /// The kernel keeps what it found in each folder and lists the folder
    /// again once it has changed; a listing is kept only once the folder's
    /// last change is a few seconds older than it, on a local file system
    /// that keeps exact times (ext4, XFS, Btrfs, tmpfs, F2FS, overlayfs):
    /// elsewhere every call lists every folder. A folder there that the
    /// integrator's user can search but not list (`chmod 311`, which a call
    /// that may write can do to a folder of its own) fails every call with
    /// [`KernelError::UnlistableFolder`] until its mode changes: a program
    /// could open a secret file in it by name that the kernel could not
    /// find to hide.
    pub fn mask_files(mut self, matcher: fn(&str) -> bool) -> Self {
        self.mask = Some(matcher);
        self
    }

    /// Runs every call without operating-system containment: no Landlock,
    /// no seccomp, no namespaces. Only the argument layers above and the
    /// process group bound what a program does. For systems where
    /// containment cannot work and whose own sandbox contains the agent.
    pub fn dangerous_no_containment(mut self) -> Self {
        self.containment = Containment::off();
        self
    }

    /// Runs every call without `mechanism`, as on a system that lacks it:
    /// the kernel's [`Confinement`] reports it missing, and a kernel that
    /// asks for [`Containment::required`] is not built. For measuring what
    /// each mechanism costs (`cargo xtask bench` reports one figure per
    /// tier) and for reproducing a weaker system's behaviour.
    pub fn dangerous_without(mut self, mechanism: Mechanism) -> Self {
        self.without.push(mechanism);
        self
    }

    /// Checks and canonicalizes the root and builds the kernel.
    ///
    /// Unless containment is off, building probes (once per process) what
    /// the system offers: the Landlock ABI, seccomp, user namespaces. With
    /// [`Containment::required`], anything missing is
    /// [`KernelError::ContainmentUnavailable`].
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
        let plan = match self.containment.level() {
            Level::Off => None,
            level => {
                let mut mechanisms = contain::mechanisms(&self.tmpdir);
                for mechanism in &self.without {
                    mechanisms.remove(*mechanism);
                }
                let plan = Plan::new(mechanisms, &self.search_path, &self.limits, &self.tmpdir);
                if level == Level::Required && !plan.confinement.is_complete() {
                    return Err(KernelError::ContainmentUnavailable {
                        missing: plan.confinement.missing().join("; "),
                    });
                }
                Some(plan)
            }
        };
        let tmp_base = self.tmpdir.clone();
        let mut env: Vec<(OsString, OsString)> = vec![
            ("PATH".into(), join_paths(&self.search_path).into()),
            ("HOME".into(), self.home.into_os_string()),
            (DEFAULT_CTYPE.0.into(), DEFAULT_CTYPE.1.into()),
            ("TERM".into(), "dumb".into()),
            ("TMPDIR".into(), self.tmpdir.into_os_string()),
        ];
        for (key, value) in self.extra_env {
            if key == "LANG" {
                env.retain(|entry| !is_default_ctype(entry));
            }
            env.retain(|(k, _)| *k != key);
            env.push((key, value));
        }
        // A call that may write on this root, cut short with its
        // integrator (killed before the call's end), may have left
        // something at a protected path that only the set-aside at its end
        // would have moved: done now, before any call or host command of
        // this integrator honours it, contained or not.
        let recovered = contain::recover(&tmp_base, &root);
        Ok(Kernel {
            root,
            search_path: self.search_path,
            limits: self.limits,
            env,
            tmp_base,
            containment: self.containment,
            plan,
            read_only: self.read_only,
            mask: self.mask,
            recovered,
            masked: Arc::default(),
        })
    }
}

/// Resolves a program name to the absolute path a kernel rooted at `root`
/// with `search_path` would run (see [`Kernel::resolve`]); for checks that
/// must see the same file the kernel will start, without holding a kernel.
pub fn resolve_program(
    program: &OsStr,
    root: &Path,
    search_path: &[PathBuf],
) -> Result<PathBuf, KernelError> {
    if program.is_empty() {
        return Err(KernelError::EmptyArgv);
    }
    let executable = |path: &Path| match std::fs::metadata(path) {
        Ok(meta) => Some(meta.is_file() && meta.permissions().mode() & 0o111 != 0),
        Err(_) => None,
    };
    let not_found = || KernelError::ProgramNotFound {
        program: program.to_string_lossy().into_owned(),
        search_path: join_paths(search_path),
    };
    if program.as_bytes().contains(&b'/') {
        let path = root.join(program);
        return match executable(&path) {
            Some(true) => Ok(path),
            Some(false) => Err(KernelError::NotExecutable { path }),
            None => Err(not_found()),
        };
    }
    let mut non_executable = None;
    for dir in search_path {
        let path = dir.join(program);
        match executable(&path) {
            Some(true) => return Ok(path),
            Some(false) => {
                non_executable.get_or_insert(path);
            }
            None => {}
        }
    }
    match non_executable {
        Some(path) => Err(KernelError::NotExecutable { path }),
        None => Err(not_found()),
    }
}

fn join_paths(dirs: &[PathBuf]) -> String {
    dirs.iter()
        .map(|d| d.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(":")
}
