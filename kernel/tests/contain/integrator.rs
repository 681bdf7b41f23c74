//! The integrator as a separate process: this binary started again with
//! `integrator WORKSPACE TMP_BASE on|off read|write ARGV...`. It probes
//! ahead (contained), builds a kernel, prints its confinement, runs the argv and prints the rendered
//! outcome.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use jig_kernel::{Access, RunOptions};

use crate::support;

pub(crate) fn main(args: &[String]) -> ExitCode {
    let [workspace, tmp_base, mode, access, argv @ ..] = args else {
        eprintln!("usage: integrator WORKSPACE TMP_BASE on|off read|write ARGV...");
        return ExitCode::from(2);
    };
    let contained = mode == "on";
    let access = if access == "write" {
        Access::WriteWorkspace
    } else {
        Access::ReadOnly
    };
    let millis = |name: &str| {
        std::env::var(name)
            .ok()
            .and_then(|ms| ms.parse().ok())
            .map(std::time::Duration::from_millis)
    };
    let mut limits = support::limits();
    if let Some(timeout) = millis(TIMEOUT_MS) {
        limits = limits.with_timeout(timeout);
    }
    if let Some(grace) = millis(GRACE_MS) {
        limits = limits.with_grace(grace);
    }
    // A descriptor without close-on-exec, as a foreign library might leave
    // it: no process of a call may hold it.
    let canary = std::env::var_os(CANARY_FILE).and_then(|path| std::fs::File::create(path).ok());
    if let Some(file) = &canary {
        let _ = nix::fcntl::fcntl(
            file,
            nix::fcntl::FcntlArg::F_SETFD(nix::fcntl::FdFlag::empty()),
        );
    }
    if contained {
        // As `jig call` does: the probe runs on its own thread while the
        // kernel is prepared; the build waits for it. The cases that read
        // this process's confinement check what the probe found.
        let expect = if std::env::var_os(EXPECT_ONE_CALL).is_some() {
            jig_kernel::Expect::OneCall
        } else {
            jig_kernel::Expect::Calls
        };
        jig_kernel::probe_ahead(tmp_base, expect);
    }
    let read_only: Vec<String> = std::env::var(READ_ONLY)
        .map(|list| list.split(',').map(str::to_owned).collect())
        .unwrap_or_default();
    let without: Vec<jig_kernel::Mechanism> = std::env::var(WITHOUT)
        .map(|list| list.split(',').filter_map(mechanism).collect())
        .unwrap_or_default();
    let kernel = if std::env::var_os(MASK).is_some() {
        let builder = jig_kernel::Kernel::builder(workspace)
            .tmpdir(tmp_base)
            .limits(limits)
            .mask_files(|name| name == ".env");
        if contained {
            builder.containment(jig_kernel::Containment::required())
        } else {
            builder.dangerous_no_containment()
        }
        .build()
        .unwrap_or_else(|e| panic!("the kernel cannot be built: {e}"))
    } else if without.is_empty() {
        support::kernel_protecting(
            Path::new(workspace),
            Path::new(tmp_base),
            contained,
            limits,
            &read_only,
        )
    } else {
        let search = std::env::var_os(SEARCH).map(std::path::PathBuf::from);
        support::kernel_without(
            Path::new(workspace),
            Path::new(tmp_base),
            limits,
            &without,
            search.as_deref(),
        )
    };
    let mut stdout = std::io::stdout();
    let _ = writeln!(stdout, "confinement: {}", kernel.confinement());
    let _ = writeln!(stdout, "integrator mask: {}", processor_mask());
    let _ = stdout.flush();
    let calls: usize = std::env::var(CALLS)
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    // Each call's access: the command line's, or the turns listed.
    let turns: Vec<Access> = std::env::var(ACCESS_TURNS)
        .map(|list| {
            list.split(',')
                .map(|turn| {
                    if turn == "write" {
                        Access::WriteWorkspace
                    } else {
                        Access::ReadOnly
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    let access_of = |call: usize| {
        turns
            .get(call % turns.len().max(1))
            .copied()
            .unwrap_or(access)
    };
    for call in 0..calls.saturating_sub(1) {
        let access = access_of(call);
        match kernel.run_with(argv, &RunOptions::new(limits).with_access(access)) {
            Ok(outcome) => {
                let _ = writeln!(stdout, "{}", outcome.render());
            }
            Err(e) => {
                let _ = writeln!(stdout, "error: {e}");
                return ExitCode::from(1);
            }
        }
        // Time for the next call's init to be made, as between a model's
        // calls.
        std::thread::sleep(std::time::Duration::from_millis(30));
    }
    let access = access_of(calls.saturating_sub(1));
    match kernel.run_with(argv, &RunOptions::new(limits).with_access(access)) {
        Ok(outcome) => {
            let _ = writeln!(stdout, "{}", outcome.render());
            if std::env::var_os(SHOW_WAITING).is_some() {
                // The next call's init, made while this one ran (the wait
                // is short when none is expected).
                let limit = if std::env::var_os(EXPECT_ONE_CALL).is_some() {
                    std::time::Duration::from_millis(300)
                } else {
                    std::time::Duration::from_secs(5)
                };
                let waiting = support::waiting_inits(limit);
                // Each one's armed program process, made with it.
                let armed: Vec<support::ChildInit> = waiting
                    .iter()
                    .flat_map(|init| support::children_of_named(&init.pid.to_string(), "jig-armed"))
                    .collect();
                print_inits(&mut stdout, "waiting", waiting);
                print_inits(&mut stdout, "armed", armed);
                // The inits of calls still there (a one-call process's
                // lingers until the process ends).
                print_inits(
                    &mut stdout,
                    "call-init",
                    support::children_named("jig-call"),
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            let _ = writeln!(stdout, "error: {e}");
            ExitCode::from(1)
        }
    }
}

/// The mechanism `name` (as [`WITHOUT`] lists it) stands for.
fn mechanism(name: &str) -> Option<jig_kernel::Mechanism> {
    match name {
        "namespaces" => Some(jig_kernel::Mechanism::Namespaces),
        "landlock" => Some(jig_kernel::Mechanism::Landlock),
        "seccomp" => Some(jig_kernel::Mechanism::Seccomp),
        _ => None,
    }
}

/// The processors this thread may run on, as a sorted list (`0, 1`).
fn processor_mask() -> String {
    let set = nix::sched::sched_getaffinity(nix::unistd::Pid::from_raw(0)).unwrap();
    (0..nix::sched::CpuSet::count())
        .filter(|&cpu| set.is_set(cpu).unwrap_or(false))
        .map(|cpu| cpu.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// One line per init: `LABEL PID START DESCRIPTOR...`.
fn print_inits(stdout: &mut impl Write, label: &str, inits: Vec<support::ChildInit>) {
    for init in inits {
        let _ = writeln!(
            stdout,
            "{label} {} {} {}",
            init.pid,
            init.start,
            init.descriptors.join(" ")
        );
    }
}

/// Set in an integrator's environment: after its call it lists the waiting
/// inits it has (`waiting PID START DESCRIPTOR...`) and their armed
/// program processes (`armed PID START DESCRIPTOR...`).
pub(crate) const SHOW_WAITING: &str = "JIG_TEST_SHOW_WAITING";

/// Set in an integrator's environment: how many times it runs its argv
/// (one by default), each call's outcome printed.
pub(crate) const CALLS: &str = "JIG_TEST_CALLS";

/// Set in an integrator's environment: the access of its calls in turn
/// (`write,read`: the first call writes, the second reads, the third
/// writes...), instead of the command line's for every call.
pub(crate) const ACCESS_TURNS: &str = "JIG_TEST_ACCESS_TURNS";

/// Set in an integrator's environment: it tells the kernel it makes one
/// call ([`jig_kernel::Expect::OneCall`]) rather than any number.
pub(crate) const EXPECT_ONE_CALL: &str = "JIG_TEST_EXPECT_ONE_CALL";

/// Set in an integrator's environment: a file it creates and keeps open,
/// inheritable, for its whole life.
pub(crate) const CANARY_FILE: &str = "JIG_TEST_CANARY_FILE";
/// Set in an integrator's environment: the mechanisms its (contained)
/// kernel runs without, comma-separated (`landlock,seccomp`), as on a
/// system that lacks them.
pub(crate) const WITHOUT: &str = "JIG_TEST_WITHOUT";
/// Set in an integrator's environment: its calls' timeout, in milliseconds
/// (the suite's otherwise).
pub(crate) const TIMEOUT_MS: &str = "JIG_TEST_TIMEOUT_MS";
/// Set in an integrator's environment: the grace between its calls'
/// SIGTERM and their end, in milliseconds (the suite's otherwise).
pub(crate) const GRACE_MS: &str = "JIG_TEST_GRACE_MS";
/// Set in an integrator's environment (with [`WITHOUT`]): a folder its
/// kernel adds to its search path, where every call may read.
pub(crate) const SEARCH: &str = "JIG_TEST_SEARCH";
/// Paths the integrator's kernel keeps read-only, comma-separated.
pub(crate) const READ_ONLY: &str = "JIG_TEST_READ_ONLY";
/// Set in an integrator's environment: its kernel hides the files named
/// `.env` (and keeps no path read-only).
pub(crate) const MASK: &str = "JIG_TEST_MASK";

/// How to start an integrator process.
pub(crate) struct Launch<'a> {
    pub(crate) workspace: &'a Path,
    pub(crate) tmp_base: &'a Path,
    pub(crate) contained: bool,
    pub(crate) access: Access,
    pub(crate) argv: &'a [&'a str],
    /// Extra environment of the integrator (a canary variable).
    pub(crate) env: &'a [(&'a str, &'a str)],
    /// Run the integrator as this user and group (through `setpriv`).
    pub(crate) user: Option<(u32, u32)>,
    /// The binary to start (a copy the unprivileged user can execute).
    pub(crate) exe: PathBuf,
}

impl<'a> Launch<'a> {
    /// An integrator of `world` running `argv`: contained, read-only, with
    /// no extra environment, as this user, from this binary.
    pub(crate) fn in_world(world: &'a support::World, argv: &'a [&'a str]) -> Self {
        Launch {
            workspace: world.workspace.path(),
            tmp_base: world.tmp_base.path(),
            contained: true,
            access: Access::ReadOnly,
            argv,
            env: &[],
            user: None,
            exe: std::env::current_exe().expect("this test binary"),
        }
    }

    pub(crate) fn command(&self) -> Command {
        let mut command = match self.user {
            Some((uid, gid)) => {
                let mut c = Command::new("setpriv");
                c.arg(format!("--reuid={uid}"))
                    .arg(format!("--regid={gid}"))
                    .arg("--clear-groups")
                    .arg("--")
                    .arg(&self.exe);
                c
            }
            None => Command::new(&self.exe),
        };
        command
            .arg("integrator")
            .arg(self.workspace)
            .arg(self.tmp_base)
            .arg(if self.contained { "on" } else { "off" })
            .arg(match self.access {
                Access::WriteWorkspace => "write",
                _ => "read",
            })
            .args(self.argv)
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .envs(self.env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// Runs the integrator to its end and returns what it printed.
    pub(crate) fn output(&self) -> String {
        let output = self.command().output().expect("start the integrator");
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            output.status.success(),
            "integrator failed: {text}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        text
    }
}
