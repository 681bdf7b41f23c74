//! The parent's side of a contained start: prepare everything, clone, and
//! learn whether the program started.

use std::ffi::{CString, OsStr, OsString};
use std::io::PipeWriter;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use nix::fcntl::OFlag;
use nix::sys::stat::Mode;
use nix::unistd::Pid;

use super::spawn::{self, ChildPlan, NsPlan, Stage};
use super::{Access, CallPaths, CallTmp, PidsCgroup, Plan};
use crate::{KernelError, Limits};

/// A contained program that started.
#[derive(Debug)]
pub(crate) struct Started {
    /// The child the parent supervises: the call's init with namespaces,
    /// otherwise the program itself.
    pub(crate) pid: Pid,
    /// Where the init (or, without namespaces, the call's reaper) writes
    /// the program's wait status.
    pub(crate) status: Option<OwnedFd>,
    /// Whether `pid` is the call's reaper (no namespaces), which ends the
    /// call's processes when sent [`spawn::END_THE_CALL`]: a SIGKILL would
    /// end it before them.
    pub(crate) reaper: bool,
    /// The call's temporary folder, removed when this is dropped.
    pub(crate) tmp: CallTmp,
    /// The call's pids cgroup, if it has one, removed when dropped.
    pub(crate) cgroup: Option<PidsCgroup>,
    /// For a call that may write, its protected paths as they stood when
    /// it started: whatever stands there after it and is not what stood
    /// there then is set aside ([`set_aside`]).
    pub(crate) watched: Vec<Watched>,
    /// The record of what it watches, should the integrator be killed
    /// before the set-aside (see [`super::journal`]); removed when dropped,
    /// after it.
    pub(crate) record: Option<super::journal::Record>,
}

/// A protected path of a call that may write, and what stood there when the
/// call started.
#[derive(Debug)]
pub(crate) struct Watched {
    /// The path: a protected path, or the first missing component of one.
    pub(super) path: std::path::PathBuf,
    /// What was found there, `None` when nothing was.
    pub(super) was: Option<Identity>,
}

/// What names one file: its device and inode, its birth time where the
/// file system keeps one, and, for a link, where it leads. An inode freed
/// during a call is soon given to the next file made (a link removed and
/// made again, to lead elsewhere, often gets its old number back).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Identity {
    pub(super) dev: u64,
    pub(super) ino: u64,
    pub(super) born: Option<std::time::SystemTime>,
    pub(super) leads_to: Option<std::path::PathBuf>,
}

/// What one contained start needs from the kernel.
pub(crate) struct Request<'a> {
    pub(crate) plan: &'a Plan,
    pub(crate) root: &'a Path,
    pub(crate) tmp_base: &'a Path,
    pub(crate) program: &'a Path,
    pub(crate) args: &'a [&'a OsStr],
    pub(crate) env: Vec<(&'a OsStr, &'a OsStr)>,
    pub(crate) limits: &'a Limits,
    pub(crate) access: Access,
    pub(crate) helpers: &'a [std::path::PathBuf],
    pub(crate) read_only: &'a [std::path::PathBuf],
    pub(crate) mask: Option<fn(&str) -> bool>,
    /// What the kernel's earlier calls found of the secret files.
    pub(crate) masked: &'a super::masked::Memory,
}

fn supervise(operation: &'static str) -> impl Fn(std::io::Error) -> KernelError {
    move |source| KernelError::Supervise { operation, source }
}

fn errno_error(operation: &'static str) -> impl Fn(nix::errno::Errno) -> KernelError {
    move |errno| KernelError::Supervise {
        operation,
        source: std::io::Error::from(errno),
    }
}

fn c_string(bytes: &[u8], index: usize) -> Result<CString, KernelError> {
    CString::new(bytes).map_err(|_| KernelError::NulInArgument { index })
}

/// Starts the program of `request`, contained; `output` becomes its stdout
/// and stderr.
pub(crate) fn start(request: &Request<'_>, output: PipeWriter) -> Result<Started, KernelError> {
    let plan = request.plan;
    let confinement = &plan.confinement;
    let tmp = match &plan.mount_point {
        Some(mount_point) => CallTmp::on(mount_point),
        None => CallTmp::create(request.tmp_base),
    }
    .map_err(supervise("create the temporary folder"))?;

    let program = c_string(request.program.as_os_str().as_bytes(), 0)?;
    let mut argv_c = vec![program.clone()];
    for (i, arg) in request.args.iter().enumerate() {
        argv_c.push(c_string(arg.as_bytes(), i + 1)?);
    }
    let mut env: Vec<(OsString, OsString)> = Vec::new();
    for (key, value) in &request.env {
        env.retain(|(k, _)| k.as_os_str() != *key);
        env.push((key.to_os_string(), value.to_os_string()));
    }
    env.retain(|(k, _)| k != "TMPDIR");
    env.push(("TMPDIR".into(), tmp.path().as_os_str().to_os_string()));
    let mut envp_c = Vec::with_capacity(env.len());
    for (key, value) in &env {
        let mut entry = key.as_bytes().to_vec();
        entry.push(b'=');
        entry.extend_from_slice(value.as_bytes());
        envp_c.push(CString::new(entry).map_err(|_| KernelError::Supervise {
            operation: "build the environment",
            source: std::io::Error::other("an environment variable holds a NUL byte"),
        })?);
    }
    let argv: Vec<*const libc::c_char> = argv_c
        .iter()
        .map(|a| a.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect();
    let envp: Vec<*const libc::c_char> = envp_c
        .iter()
        .map(|a| a.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect();
    let cwd = super::c_path(request.root).ok_or(KernelError::NulInArgument { index: 0 })?;
    let tmp_c = super::c_path(tmp.path()).ok_or(KernelError::NulInArgument { index: 0 })?;
    let tmpfs_options = CString::new(format!(
        "size={},nr_inodes=65536,mode=0700",
        request.limits.max_tmp
    ))
    .map_err(|_| KernelError::NulInArgument { index: 0 })?;

    let ruleset = match confinement.landlock_abi {
        Some(abi) => {
            let mut executed = super::executed_files(request.program);
            for helper in request.helpers {
                if helper.is_dir() {
                    if let Ok(canonical) = std::fs::canonicalize(helper) {
                        executed.push(canonical);
                    }
                } else {
                    executed.extend(super::executed_files(helper));
                }
            }
            let paths = CallPaths {
                system: &plan.system,
                root: request.root,
                tmp: (!confinement.namespaces).then(|| tmp.path()),
                executed: &executed,
                proc: !confinement.private_proc,
            };
            Some(
                super::ruleset(&paths, request.access, abi).map_err(|message| {
                    KernelError::Supervise {
                        operation: "build the landlock ruleset",
                        source: std::io::Error::other(message),
                    }
                })?,
            )
        }
        None => None,
    };
    // The filter allows exactly one execve: this one, with these pointers.
    let filter = plan.seccomp(request.access).map(|template| {
        if request.helpers.is_empty() {
            super::seccomp::pinned(
                template,
                program_ptr(&program),
                argv.as_ptr() as usize,
                envp.as_ptr() as usize,
            )
        } else {
            super::seccomp::unpinned(template)
        }
    });
    let fprog = filter.as_ref().map(|program| libc::sock_fprog {
        len: u16::try_from(program.len()).unwrap_or(u16::MAX),
        // The filter is only read; the kernel's structure is declared mutable.
        filter: program.as_ptr().cast_mut().cast::<libc::sock_filter>(),
    });

    let writes = request.access == Access::WriteWorkspace;
    let (protected, masked) = if confinement.namespaces {
        let mut protected = protected_mounts(request.root, request.read_only, writes);
        let (hidden, links) =
            super::masked::masked_files(request.root, request.mask, request.masked)?;
        if writes {
            let holding: Vec<_> = hidden.iter().chain(&links).cloned().collect();
            pin_folders_of(request.root, &holding, &mut protected.pinned);
        }
        let masked: Vec<CString> = hidden.iter().filter_map(|f| super::c_path(f)).collect();
        (protected, masked)
    } else {
        (Protected::default(), Vec::new())
    };
    let writable = match request.access {
        Access::WriteWorkspace if confinement.namespaces => super::c_path(request.root)
            .map(|root| (root, kept_mount_flags(request.root).unwrap_or(0))),
        _ => None,
    };
    let (tmp_rights, proc_rights) =
        super::rules::late_rights(confinement.landlock_abi.unwrap_or(0));
    let mut rlimits = vec![
        (libc::RLIMIT_CORE as libc::c_int, rlimit(0)),
        (
            libc::RLIMIT_FSIZE as libc::c_int,
            rlimit(request.limits.max_file_size),
        ),
        (
            libc::RLIMIT_CPU as libc::c_int,
            rlimit(request.limits.cpu_backstop().as_secs().max(1)),
        ),
    ];
    if confinement.namespaces {
        rlimits.push((
            libc::RLIMIT_NPROC as libc::c_int,
            rlimit(request.limits.max_processes),
        ));
    } else if plan.count_user_tasks {
        // The user's every task counts (the reaper, the integrator and its
        // other calls too): the call may add the bound to what runs now.
        let now = super::tasks::of_user(nix::unistd::getuid().as_raw())
            .map_err(supervise("count the user's tasks"))?;
        rlimits.push((
            libc::RLIMIT_NPROC as libc::c_int,
            rlimit(now.saturating_add(request.limits.max_processes)),
        ));
    }
    if let Some(bytes) = request.limits.max_memory {
        rlimits.push((libc::RLIMIT_AS as libc::c_int, rlimit(bytes)));
    }

    let cgroup = match &plan.pids_base {
        Some(base) => Some(
            // the reaper, if any, is one of the cgroup's processes
            PidsCgroup::create(
                base,
                request
                    .limits
                    .max_processes
                    .saturating_add(u64::from(confinement.reaper)),
            )
            .map_err(supervise("create the call's pids cgroup"))?,
        ),
        None => None,
    };
    let (go_r, go_w) = match cgroup {
        Some(_) => {
            let (r, w) =
                nix::unistd::pipe2(OFlag::O_CLOEXEC).map_err(errno_error("create the go pipe"))?;
            (Some(r), Some(w))
        }
        None => (None, None),
    };
    let stdin = nix::fcntl::open(
        "/dev/null",
        OFlag::O_RDONLY | OFlag::O_CLOEXEC,
        Mode::empty(),
    )
    .map_err(errno_error("open /dev/null"))?;
    let (report_r, report_w) =
        nix::unistd::pipe2(OFlag::O_CLOEXEC).map_err(errno_error("create the report pipe"))?;
    // Without namespaces, a reaper between the parent and the program ends
    // what leaves the call's process group (see `spawn::reap_call`).
    let reaper = confinement.reaper;
    let (status_r, status_w) = if confinement.namespaces || reaper {
        let (r, w) =
            nix::unistd::pipe2(OFlag::O_CLOEXEC).map_err(errno_error("create the status pipe"))?;
        (Some(r), Some(w))
    } else {
        (None, None)
    };
    // A call with a reaper (no PID or mount namespace): its metadata
    // changes go to the reaper (see `metadata`), which makes them only in
    // the workspace and the temporary folder, named as `/proc` names the
    // files it resolves (canonical), and so do its signals to processes
    // by number (see `signals`), which it sends only to the call's own.
    let handed_filter = match (&plan.reaper_filter, reaper) {
        (Some(filter), true) => Some(libc::sock_fprog {
            len: u16::try_from(filter.len()).unwrap_or(u16::MAX),
            // Only read; the kernel's structure is declared mutable.
            filter: filter.as_ptr().cast_mut().cast::<libc::sock_filter>(),
        }),
        _ => None,
    };
    let handed_sockets = match handed_filter {
        // Both ends close-on-exec.
        Some(_) => Some(
            std::os::unix::net::UnixStream::pair()
                .map_err(supervise("create the metadata socket pair"))?,
        ),
        None => None,
    };
    let canonical = |path: &Path| {
        std::fs::canonicalize(path)
            .ok()
            .and_then(|path| super::c_path(&path))
            .unwrap_or_default()
    };
    let (inside_root, inside_tmp) = match handed_filter {
        Some(_) => (canonical(request.root), canonical(tmp.path())),
        None => (CString::default(), CString::default()),
    };
    // The program's stack until `execve`: raw memory, never read here.
    let mut program_stack: Vec<u8> = Vec::with_capacity(spawn::PROGRAM_STACK + 16);
    let program_stack_top = {
        let top = program_stack
            .as_mut_ptr()
            .wrapping_add(spawn::PROGRAM_STACK);
        // Stacks grow down from a 16-byte aligned top.
        top.wrapping_sub(top as usize % 16).cast::<libc::c_void>()
    };
    let child = ChildPlan {
        program: &program,
        argv: &argv,
        envp: &envp,
        cwd: &cwd,
        stdin: stdin.as_raw_fd(),
        output: output.as_raw_fd(),
        report: report_w.as_raw_fd(),
        status: status_w.as_ref().map_or(-1, AsRawFd::as_raw_fd),
        landlock: ruleset.as_ref().map_or(-1, AsRawFd::as_raw_fd),
        go: go_r.as_ref().map_or(-1, AsRawFd::as_raw_fd),
        seccomp: fprog.as_ref(),
        rlimits: &rlimits,
        namespaces: confinement.namespaces.then(|| NsPlan {
            uid_map: &plan.uid_map,
            gid_map: &plan.gid_map,
            tmp: &tmp_c,
            tmpfs_options: &tmpfs_options,
            proc: confinement.private_proc,
            tmp_rights,
            proc_rights,
            writable: writable.as_ref(),
            pinned: &protected.pinned,
            read_only: &protected.read_only,
            masked: &masked,
            watch_processes: plan.watch_processes.then_some(request.limits.max_processes),
            max_processes: request.limits.max_processes,
            linger: lingers(),
        }),
        program_stack: if confinement.namespaces || reaper {
            program_stack_top
        } else {
            std::ptr::null_mut()
        },
        probe: false,
        prepared: false,
        started: -1,
        template: plan.seccomp(request.access).map(|program| spawn::Template {
            program,
            pinned: request.helpers.is_empty(),
        }),
        armed: None,
        tmp_mounted: false,
        handed: match (&handed_filter, &handed_sockets) {
            (Some(filter), Some((reaper_socket, program_socket))) => Some(spawn::HandedPlan {
                filter,
                reaper_socket: reaper_socket.as_raw_fd(),
                program_socket: program_socket.as_raw_fd(),
                inside: super::metadata::Inside {
                    workspace: &inside_root,
                    tmp: &inside_tmp,
                },
            }),
            _ => None,
        },
    };
    // Recorded before the program starts: if the integrator is killed
    // before this call's set-aside, the next kernel on this root does it.
    let record = if writes {
        // Nothing of the call outlives its timeout, grace and teardown.
        let ends_by = std::time::SystemTime::now()
            + request.limits.timeout
            + request.limits.grace
            + std::time::Duration::from_secs(10);
        super::journal::begin(request.tmp_base, request.root, &protected.watched, ends_by)
    } else {
        None
    };
    let pid = spawn::clone_init_shared(&child).map_err(|source| KernelError::Spawn {
        path: request.program.to_path_buf(),
        source,
    })?;
    // The child holds its own copies; the pipes reach end-of-file when the
    // child's copies close.
    drop((
        output,
        report_w,
        status_w,
        ruleset,
        stdin,
        go_r,
        handed_sockets,
    ));
    if let (Some(cgroup), Some(go)) = (&cgroup, go_w) {
        let entered = cgroup.enter(pid);
        // The go byte (or, on failure, end-of-file) lets the child go on.
        if entered.is_ok() {
            let _ = nix::unistd::write(&go, b"g");
        }
        drop(go);
        if let Err(source) = entered {
            let _ = nix::sys::signal::kill(Pid::from_raw(pid), nix::sys::signal::Signal::SIGKILL);
            let _ = nix::sys::wait::waitpid(Pid::from_raw(pid), None);
            return Err(supervise("enter the call's pids cgroup")(source));
        }
    }
    let pid = Pid::from_raw(pid);
    if let Some((stage, errno)) = spawn::read_report(&report_r) {
        let _ = nix::sys::wait::waitpid(pid, None);
        return Err(start_error(request.program, stage, errno));
    }
    Ok(Started {
        pid,
        status: status_r,
        reaper,
        tmp,
        cgroup,
        watched: if writes {
            protected.watched
        } else {
            Vec::new()
        },
        record,
    })
}

/// A call's protected paths, as its init mounts them.
#[derive(Default)]
struct Protected {
    /// Those that exist now, inside the root, with the mount flags of their
    /// file system (a remount in a user namespace must keep them): mounted
    /// read-only, which also keeps them from being renamed or removed.
    read_only: Vec<(CString, libc::c_ulong)>,
    /// For a call that may write, the folders between the root and a
    /// protected path (or, for one missing, its first missing component),
    /// each bound on itself: a mount point cannot be renamed or removed, so
    /// the call cannot move a protected path away with a folder above it
    /// and put a writable one (or a link) in its place.
    pinned: Vec<CString>,
    /// For a call that may write, every protected path and what stands
    /// there now (see [`Watched`]).
    watched: Vec<Watched>,
}

/// What `path` names (not following a last link).
pub(super) fn identity(path: &Path) -> Option<Identity> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(path).ok()?;
    let leads_to = if meta.file_type().is_symlink() {
        std::fs::read_link(path).ok()
    } else {
        None
    };
    Some(Identity {
        dev: meta.dev(),
        ino: meta.ino(),
        born: meta.created().ok(),
        leads_to,
    })
}

/// The protected paths of a call under `root` (see [`Protected`]); `writes`:
/// whether the call may write.
fn protected_mounts(root: &Path, paths: &[std::path::PathBuf], writes: bool) -> Protected {
    let mut protected = Protected::default();
    let mut existing: Vec<std::path::PathBuf> = Vec::new();
    // Folders found missing: the paths under them are not looked up again
    // (several protected paths can share one).
    let mut missing = Vec::new();
    let mut links = Vec::new();
    for path in paths {
        let Some(canonical) = canonical_below(root, path, &mut missing, &mut links) else {
            continue;
        };
        if !canonical.starts_with(root) || canonical == root {
            continue;
        }
        let Some(kept) = kept_mount_flags(&canonical) else {
            continue;
        };
        if let Some(c) = super::c_path(&canonical) {
            protected.read_only.push((c, kept));
            existing.push(canonical);
        }
    }
    if writes {
        let mut pins: Vec<&Path> = existing
            .iter()
            .chain(&missing)
            .chain(&links)
            .flat_map(|path| path.ancestors().skip(1))
            .filter(|folder| folder.starts_with(root) && *folder != root)
            .filter(|folder| !existing.iter().any(|p| folder.starts_with(p)))
            .collect();
        // Outer folders first: each bind is made inside the one above it.
        pins.sort_by_key(|folder| folder.components().count());
        pins.dedup();
        protected.pinned = pins.into_iter().filter_map(super::c_path).collect();
        protected.watched = existing
            .iter()
            .chain(&links)
            .map(|path| Watched {
                was: identity(path),
                path: path.clone(),
            })
            .chain(missing.into_iter().map(|path| Watched { path, was: None }))
            .collect();
    }
    protected
}

/// What a call that may write left at its protected paths that is not what
/// stood there when it started (`watched`): made where nothing was (the
/// operating system has nothing to cover a missing path with), or put in
/// the place of what was there (a call running meanwhile set that aside).
/// Each is renamed to a name of its own beside it (`.git` to
/// `.git.jig-set-aside-1`), which nothing reads, so that no later git
/// command or jig start honours what the call put there (a `.git/config`
/// naming a program, a descriptor tool), and nothing of it is lost; where
/// no name can be had, it is removed. Every process of the call has ended:
/// nothing of it can race this.
///
/// `recovering`, for a call cut short with its integrator (see
/// [`super::journal`]): when it was over at the latest; what was made after
/// that is someone's since, and is left, and nothing is removed.
pub(crate) fn set_aside(
    root: &Path,
    watched: &[Watched],
    recovering: Option<std::time::SystemTime>,
) -> Vec<crate::SetAside> {
    let mut done = Vec::new();
    for Watched { path, was } in watched {
        let now = identity(path);
        if now.is_none() || now == *was {
            continue;
        }
        // For a call cut short (see `journal`), made after it was over is
        // not its doing: someone's since.
        if let (Some(ends_by), Some(Some(born))) = (recovering, now.as_ref().map(|now| now.born))
            && born > ends_by
        {
            continue;
        }
        let from = path.strip_prefix(root).unwrap_or(path).to_path_buf();
        // The folder above is pinned (a mount point) for the call; only
        // something outside the call could have moved it since.
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            continue;
        };
        let unchanged = std::fs::canonicalize(parent).is_ok_and(|now| now == parent);
        if !unchanged || !parent.starts_with(root) {
            let error = "the folder above it changed during the call".to_owned();
            done.push(crate::SetAside::Left { from, error });
            continue;
        }
        let named = |suffix: String| {
            let mut new_name = name.to_os_string();
            new_name.push(format!(".jig-set-aside-{suffix}"));
            parent.join(new_name)
        };
        // Short names first; past them (all taken: perhaps on purpose),
        // names no call can guess.
        let nonce = || {
            let time = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            format!("{}-{}", std::process::id(), time.as_nanos())
        };
        let candidates = (1..=100)
            .map(|n| named(n.to_string()))
            .chain((0..3).map(|_| named(nonce())));
        let mut moved = None;
        for target in candidates {
            if std::fs::symlink_metadata(&target).is_ok() {
                continue;
            }
            if std::fs::rename(path, &target).is_ok() {
                moved = Some(target);
                break;
            }
        }
        let outcome = match moved {
            Some(target) => crate::SetAside::Moved {
                from,
                to: target.strip_prefix(root).unwrap_or(&target).to_path_buf(),
            },
            // For a call cut short, nothing is removed: what stands there
            // may be someone's since.
            None if recovering.is_some() => crate::SetAside::Left {
                from,
                error: "no name beside it was free".to_owned(),
            },
            None => {
                let removed = match std::fs::symlink_metadata(path) {
                    Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
                    _ => std::fs::remove_file(path),
                };
                match removed {
                    Ok(()) => crate::SetAside::Removed { from },
                    Err(error) => crate::SetAside::Left {
                        from,
                        error: error.to_string(),
                    },
                }
            }
        };
        done.push(outcome);
    }
    done
}

/// The mount flags of the file system `path` is on that a remount of a bind
/// of it must keep (a user namespace may not drop them; a workspace on a
/// read-only file system stays read-only); `None` when they cannot be
/// read.
fn kept_mount_flags(path: &Path) -> Option<libc::c_ulong> {
    use nix::sys::statvfs::{FsFlags, statvfs};
    let flags = statvfs(path).ok()?.flags();
    let mut kept: libc::c_ulong = 0;
    for (st, ms) in [
        (FsFlags::ST_RDONLY, libc::MS_RDONLY),
        (FsFlags::ST_NOSUID, libc::MS_NOSUID),
        (FsFlags::ST_NODEV, libc::MS_NODEV),
        (FsFlags::ST_NOEXEC, libc::MS_NOEXEC),
        (FsFlags::ST_NOATIME, libc::MS_NOATIME),
        (FsFlags::ST_NODIRATIME, libc::MS_NODIRATIME),
        (FsFlags::ST_RELATIME, libc::MS_RELATIME),
    ] {
        if flags.contains(st) {
            kept |= ms;
        }
    }
    Some(kept)
}

/// The canonical form of `path` (relative to `root`, or absolute), `None`
/// when it does not exist. Below the canonical `root`, a path none of whose
/// components is a symbolic link is its own canonical form: one `lstat` per
/// component instead of a `readlink` of every component from `/` (a call
/// checks every protected path, most of which do not exist). A link found
/// on the way below the root is added to `links` (a call that may write
/// could replace it: the link is watched, not only where it leads), then
/// resolved as `realpath` resolves it, and the walk goes on from there. A
/// component found missing on the walk is added to `missing`, and a path
/// below one already there is missing without a look.
fn canonical_below(
    root: &Path,
    path: &Path,
    missing: &mut Vec<std::path::PathBuf>,
    links: &mut Vec<std::path::PathBuf>,
) -> Option<std::path::PathBuf> {
    resolve_below(root, &root.join(path), missing, links, 0)
}

/// [`canonical_below`] of the absolute `joined`, `depth` links deep.
fn resolve_below(
    root: &Path,
    joined: &Path,
    missing: &mut Vec<std::path::PathBuf>,
    links: &mut Vec<std::path::PathBuf>,
    depth: usize,
) -> Option<std::path::PathBuf> {
    use std::path::Component;
    /// As many links as `realpath` follows.
    const MAX_LINKS: usize = 40;
    let Ok(rest) = joined.strip_prefix(root) else {
        return std::fs::canonicalize(joined).ok();
    };
    if depth > MAX_LINKS {
        return std::fs::canonicalize(joined).ok();
    }
    if missing.iter().any(|gone| joined.starts_with(gone)) {
        return None;
    }
    let mut walked = root.to_path_buf();
    let mut components = rest.components();
    while let Some(component) = components.next() {
        let Component::Normal(name) = component else {
            return std::fs::canonicalize(joined).ok();
        };
        walked.push(name);
        let Ok(meta) = std::fs::symlink_metadata(&walked) else {
            missing.push(walked);
            return None;
        };
        if meta.file_type().is_symlink() {
            if !links.contains(&walked) {
                links.push(walked.clone());
            }
            let target = std::fs::canonicalize(&walked).ok()?;
            let below: std::path::PathBuf = components.collect();
            return resolve_below(root, &target.join(below), missing, links, depth + 1);
        }
    }
    Some(walked)
}

/// Pins (binds on itself, so that it cannot be renamed) every folder below
/// the root above a hidden file or a link to one: a call that may write
/// could otherwise move one, the hidden file or the link with it, deeper
/// than the next call's search for them looks. Outer folders stay first.
fn pin_folders_of(root: &Path, hidden: &[std::path::PathBuf], pinned: &mut Vec<CString>) {
    for path in hidden {
        // Every folder between the root and the file, by the names a
        // program could rename (the path as found) and where the file is
        // (through links: a link's target, a folder reached through one).
        let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
        for folder in path.ancestors().skip(1).chain(real.ancestors().skip(1)) {
            if !folder.starts_with(root) || folder == root {
                continue;
            }
            if let Some(c) = super::c_path(folder)
                && !pinned.contains(&c)
            {
                pinned.push(c);
            }
        }
    }
    pinned.sort_by_key(|folder| folder.as_bytes().iter().filter(|&&b| b == b'/').count());
}

fn program_ptr(program: &CString) -> usize {
    program.as_ptr() as usize
}

fn rlimit(value: u64) -> libc::rlimit {
    libc::rlimit {
        rlim_cur: value as libc::rlim_t,
        rlim_max: value as libc::rlim_t,
    }
}

fn start_error(program: &Path, stage: Stage, errno: i32) -> KernelError {
    let source = std::io::Error::from_raw_os_error(errno);
    let path = program.to_path_buf();
    match (stage, errno) {
        (Stage::Exec, libc::ENOENT) => KernelError::ProgramNotFound {
            program: path.to_string_lossy().into_owned(),
            search_path: String::new(),
        },
        (Stage::Exec, libc::EACCES | libc::ENOEXEC) => KernelError::NotExecutable { path },
        (Stage::Exec, _) => KernelError::Spawn { path, source },
        (stage, _) => KernelError::Contain {
            stage: stage.as_str(),
            source,
        },
    }
}

/// Reads the program's wait status that the init wrote, once the init has
/// been reaped: `None` when the init was killed before it could write.
/// The program's wait status, and whether the init ended the call for
/// going over the process bound.
pub(crate) fn program_status(status: &OwnedFd) -> Option<(i32, bool)> {
    let mut record = [0u8; 8];
    (spawn::read_record(status, &mut record) == record.len()).then(|| {
        let raw = i32::from_ne_bytes([record[0], record[1], record[2], record[3]]);
        let over = i32::from_ne_bytes([record[4], record[5], record[6], record[7]]);
        (raw, over != 0)
    })
}

/// Whether this call's init lingers (see `NsPlan::linger`): only the first
/// call of a process that said it makes one. A process that makes more
/// than it said (or was guessed to make one) would otherwise keep one
/// waiting init, with its namespaces, for each call until it ends.
fn lingers() -> bool {
    static LINGERING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    super::expected() == super::Expect::OneCall
        && !LINGERING.swap(true, std::sync::atomic::Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_protected_path_resolves_as_realpath_resolves_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.join("real/hooks")).unwrap();
        std::fs::create_dir_all(root.join("plain/sub")).unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("linked")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("away")).unwrap();
        let (mut missing, mut links) = (Vec::new(), Vec::new());
        for path in [
            "plain",
            "plain/sub",
            "linked",
            "linked/hooks",
            "away",
            "missing",
            "missing/below",
            "plain/../real",
            "linked/missing",
            "missing/../plain",
        ] {
            // One list of missing folders for all, as a call's protected
            // paths share one.
            assert_eq!(
                canonical_below(&root, Path::new(path), &mut missing, &mut links),
                std::fs::canonicalize(root.join(path)).ok(),
                "{path}"
            );
        }
        // An absolute path outside the root is resolved too (the caller
        // keeps only what lies inside).
        assert_eq!(
            canonical_below(&root, outside.path(), &mut missing, &mut links),
            std::fs::canonicalize(outside.path()).ok()
        );
        // Each missing component once, behind a link too.
        assert_eq!(missing, [root.join("missing"), root.join("real/missing")]);
        // Each link met below the root, once, wherever it leads.
        assert_eq!(links, [root.join("linked"), root.join("away")]);
    }
}
