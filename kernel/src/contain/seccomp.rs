//! The seccomp filters: no network, no kernel-facing escape hatches, and no
//! metadata writes in read-only calls.
//!
//! The filters are compiled once per kernel (with `seccompiler`) and applied
//! in the child after fork by one raw `prctl`. The default action is to allow:
//! Landlock bounds files, this filter closes what Landlock does not cover.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch, sock_filter,
};

use crate::contain::Access;

/// The errno a refused system call returns (`EPERM`: programs report it as
/// "operation not permitted", which is what happened).
const REFUSED: u32 = libc::EPERM as u32;

/// System calls that are new enough to be missing from `libc`; their numbers
/// are the same on every architecture (allocated after the tables merged).
pub(crate) const SYS_SETXATTRAT: i64 = 463;
pub(crate) const SYS_REMOVEXATTRAT: i64 = 466;
pub(crate) const SYS_FILE_SETATTR: i64 = 469;

/// `ioprio_set`'s "every process of a user" (`IOPRIO_WHO_USER`), which
/// `libc` does not name.
const IOPRIO_WHO_USER: u64 = 3;

/// On x86-64, system calls of the x32 ABI carry this bit; the filter's number
/// checks would not see them, so they are refused as a whole.
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

/// The audit architecture of the running target.
#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;

/// Where the six 32-bit halves of the pinned `execve` pointers sit in the
/// compiled program (see [`with_prefix`]).
const PIN_SLOTS: [usize; 6] = [10, 12, 14, 16, 18, 20];
/// Where the `execve` number check sits in the compiled program.
const EXECVE_CHECK: usize = 8;

/// Calls refused in every contained run: every way to open a network or
/// kernel socket, io_uring (whose operations bypass this filter), the
/// calls that reach other processes or the kernel itself (its log
/// included), the integrator's IPC objects, and file watches.
fn always_refused() -> Vec<i64> {
    // `c_long` is `i64` on every 64-bit Linux target this filter knows.
    let mut calls: Vec<i64> = vec![
        libc::SYS_socket,
        // Only a pair of connected sockets can exist here (see the
        // `socketpair` rule): naming one (an abstract name is held in the
        // integrator's network namespace) or connecting it elsewhere is
        // refused.
        libc::SYS_bind,
        libc::SYS_connect,
        libc::SYS_listen,
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
        libc::SYS_ptrace,
        libc::SYS_process_vm_readv,
        libc::SYS_process_vm_writev,
        libc::SYS_bpf,
        libc::SYS_perf_event_open,
        libc::SYS_userfaultfd,
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_kexec_load,
        libc::SYS_kexec_file_load,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_setns,
        libc::SYS_open_by_handle_at,
        libc::SYS_name_to_handle_at,
        libc::SYS_reboot,
        libc::SYS_syslog,
        libc::SYS_swapon,
        libc::SYS_swapoff,
        libc::SYS_acct,
    ];
    calls.extend([libc::SYS_fsopen, libc::SYS_fsmount, libc::SYS_move_mount]);
    // System V IPC and POSIX message queues: the objects of the IPC
    // namespace the call shares with the integrator (its shared memory,
    // queues and semaphores), and new ones that would outlive the call
    // holding memory no process owns.
    calls.extend([
        libc::SYS_msgget,
        libc::SYS_msgsnd,
        libc::SYS_msgrcv,
        libc::SYS_msgctl,
        libc::SYS_semget,
        libc::SYS_semop,
        libc::SYS_semtimedop,
        libc::SYS_semctl,
        libc::SYS_shmget,
        libc::SYS_shmat,
        libc::SYS_shmdt,
        libc::SYS_shmctl,
        libc::SYS_mq_open,
        libc::SYS_mq_unlink,
        libc::SYS_mq_timedsend,
        libc::SYS_mq_timedreceive,
        libc::SYS_mq_notify,
        libc::SYS_mq_getsetattr,
    ]);
    // Watches, which Landlock does not check: the names of the files made
    // or opened in any folder the program can name.
    calls.extend([
        libc::SYS_inotify_init1,
        libc::SYS_inotify_add_watch,
        libc::SYS_fanotify_init,
        libc::SYS_fanotify_mark,
    ]);
    #[cfg(target_arch = "x86_64")]
    calls.push(libc::SYS_inotify_init);
    calls
}

/// Calls that change a file's metadata, which Landlock does not cover (and
/// `truncate`, which it covers from ABI 3 only): refused in read-only
/// runs.
fn metadata_writes() -> Vec<i64> {
    let mut calls = metadata_calls();
    calls.extend(attribute_calls());
    calls
}

/// The calls that set a file's mode, each with the index of its mode
/// argument.
fn privileged_mode_calls() -> Vec<(i64, u8)> {
    let mut calls = vec![
        (libc::SYS_fchmod, 1),
        (libc::SYS_fchmodat, 2),
        (libc::SYS_fchmodat2, 2),
    ];
    #[cfg(target_arch = "x86_64")]
    calls.push((libc::SYS_chmod, 1));
    calls
}

/// The calls that make a file with a mode, each with the index of its mode
/// argument and, where the mode counts only when a flag says the call
/// makes a file, of its flags argument.
fn creating_calls() -> Vec<(i64, u8, Option<u8>)> {
    let mut calls = vec![(libc::SYS_openat, 3, Some(2)), (libc::SYS_mknodat, 2, None)];
    #[cfg(target_arch = "x86_64")]
    calls.extend([
        (libc::SYS_open, 2, Some(1)),
        (libc::SYS_creat, 1, None),
        (libc::SYS_mknod, 1, None),
    ]);
    calls
}

/// The flags with which `open` makes a file: `O_CREAT`, and `O_TMPFILE`'s
/// own bit (the file made unnamed, then linked in).
const MAKES_A_FILE: [u64; 2] = [libc::O_CREAT as u64, 0o2000_0000];

/// When `socketpair` is refused: a pair of connected Unix stream or
/// seqpacket sockets reaches nothing outside the call (the operating system
/// ignores or refuses an address given to their `sendto` and `sendmsg`);
/// any other family is refused, and so is every other type: a datagram
/// socket sends to any socket file it names, whatever its pair (and
/// `SOCK_RAW` is a datagram socket in the Unix family).
fn socketpair_refused() -> Option<Vec<SeccompRule>> {
    let mut rules = vec![when(0, SeccompCmpOp::Ne, libc::AF_UNIX as u64)?];
    // The type is its low four bits (the rest are flags). Stream (1) and
    // seqpacket (5) are the two with bit 0 set and bits 1 and 3 clear:
    // every other type has one of those three bits as they are not.
    for (bit, refused_when) in [(1, 0), (2, 2), (8, 8)] {
        rules.push(when(1, SeccompCmpOp::MaskedEq(bit), refused_when)?);
    }
    Some(rules)
}

/// The rule that holds when the 32-bit argument `arg` compares to `value`
/// by `op`.
fn when(arg: u8, op: SeccompCmpOp, value: u64) -> Option<SeccompRule> {
    when_all(&[(arg, op, value)])
}

/// The rule that holds when each 32-bit argument compares to its value.
fn when_all(checks: &[(u8, SeccompCmpOp, u64)]) -> Option<SeccompRule> {
    let mut conditions = Vec::new();
    for (arg, op, value) in checks {
        conditions
            .push(SeccompCondition::new(*arg, SeccompCmpArgLen::Dword, op.clone(), *value).ok()?);
    }
    SeccompRule::new(conditions).ok()
}

/// Compiles the filter for runs of `access`; `None` on an architecture the
/// filter compiler does not know.
pub(crate) fn compile(access: Access) -> Option<BpfProgram> {
    compile_with(access, true)
}

/// [`compile`]: the calls refused by number are decided by a [`tree`] in
/// front of the rules that `seccompiler` compiles (those that look at
/// arguments). Without the tree (`tree` false, only to check in tests that
/// the tree changes no verdict), `seccompiler` compiles every rule.
fn compile_with(access: Access, tree: bool) -> Option<BpfProgram> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).ok()?;
    let mut refused = always_refused();
    if access == Access::ReadOnly {
        refused.extend(metadata_writes());
    }
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    if !tree {
        for call in &refused {
            rules.insert(*call, Vec::new());
        }
    }
    rules.insert(libc::SYS_socketpair, socketpair_refused()?);
    if access == Access::WriteWorkspace {
        // A mode with the set-user-id or set-group-id bit: a program of the
        // integrator's user (root's, when jig runs as root) that any local
        // user could run with that user's rights. Other modes are the
        // program's to set in the workspace (a read-only run sets none).
        let bits = [u64::from(libc::S_ISUID), u64::from(libc::S_ISGID)];
        for (call, mode) in privileged_mode_calls() {
            let mut refused_when = Vec::new();
            for bit in bits {
                refused_when.push(when(mode, SeccompCmpOp::MaskedEq(bit), bit)?);
            }
            rules.insert(call, refused_when);
        }
        // Nor does a file made with such a mode (empty, but a root process
        // writing into it afterwards keeps the bit).
        for (call, mode, flags) in creating_calls() {
            let mut refused_when = Vec::new();
            for bit in bits {
                let mode_bit = (mode, SeccompCmpOp::MaskedEq(bit), bit);
                match flags {
                    None => refused_when.push(when_all(&[mode_bit])?),
                    Some(flags) => {
                        for makes in MAKES_A_FILE {
                            let made = (flags, SeccompCmpOp::MaskedEq(makes), makes);
                            refused_when.push(when_all(&[made, mode_bit.clone()])?);
                        }
                    }
                }
            }
            rules.insert(call, refused_when);
        }
        // `openat2` carries its mode in a structure the filter cannot read.
        rules.insert(libc::SYS_openat2, Vec::new());
    }
    // Input pushed into a terminal (`TIOCSTI`) or pasted from a console's
    // selection (`TIOCLINUX`): typed into the integrator's shell once it
    // has the terminal back. A call has no controlling terminal (its init
    // leads a session of its own), which `TIOCSTI` needs; this holds where
    // a terminal's descriptor reaches a program all the same. The request
    // is read as the operating system reads it, as 32 bits.
    let mut ioctl_refused = vec![
        when(1, SeccompCmpOp::Eq, libc::TIOCSTI)?,
        when(1, SeccompCmpOp::Eq, libc::TIOCLINUX)?,
    ];
    // A file's inode flags (`chattr`: no access times, synchronous
    // writes...), which a read-only call could set on any file of its user
    // it may read (a folder of the search path) where no read-only mount
    // keeps it from them.
    if access == Access::ReadOnly {
        for request in INODE_FLAG_REQUESTS {
            ioctl_refused.push(when(1, SeccompCmpOp::Eq, request)?);
        }
    }
    rules.insert(libc::SYS_ioctl, ioctl_refused);
    // Limits and scheduling of another process of the same user: the
    // call's init is one (it counts the call's processes where nothing else
    // bounds them, and a program could lower its descriptor limit or its
    // priority to nothing), and without a PID namespace of its own the
    // integrator and every process of its user are others. A program sets
    // its own (pid 0) freely.
    for (call, target) in [
        (libc::SYS_prlimit64, 0),
        (libc::SYS_setpriority, 1),
        (libc::SYS_sched_setscheduler, 0),
        (libc::SYS_sched_setparam, 0),
        (libc::SYS_sched_setattr, 0),
        (libc::SYS_sched_setaffinity, 0),
        (libc::SYS_ioprio_set, 1),
    ] {
        rules.insert(call, vec![when(target, SeccompCmpOp::Ne, 0)?]);
    }
    // The priority of every process of the user at once (`PRIO_USER`,
    // `IOPRIO_WHO_USER`, whose 0 means the caller's own user, not itself):
    // without a PID namespace of the call's own, the integrator's too.
    // Those of its own process group (the call's: it leads a session of its
    // own) stay its to set.
    for (call, user) in [
        (libc::SYS_setpriority, libc::PRIO_USER as u64),
        (libc::SYS_ioprio_set, IOPRIO_WHO_USER),
    ] {
        if let Some(refused) = rules.get_mut(&call) {
            refused.push(when(0, SeccompCmpOp::Eq, user)?);
        }
    }
    let by_rule: Vec<u32> = rules
        .keys()
        .filter_map(|call| u32::try_from(*call).ok())
        .collect();
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(REFUSED),
        arch,
    )
    .ok()?;
    let program: BpfProgram = filter.try_into().ok()?;
    let mut head = if tree {
        let refused: Vec<u32> = refused
            .iter()
            .map(|call| u32::try_from(*call).ok())
            .collect::<Option<_>>()?;
        self::tree(&refused, &by_rule)?
    } else {
        Vec::new()
    };
    head.extend(program);
    Some(with_prefix(head))
}

/// A decision tree over system-call numbers: a number of `refused` returns
/// `EPERM`, a number of `by_rule` goes on to the instruction right after the
/// tree (the compiled rules), every other number is allowed, each in a few
/// comparisons.
///
/// This matters at install time more than at run time, and keeps the
/// program short: the operating system precomputes, per system-call number,
/// whether a filter always allows it by running the filter once per number,
/// and compiles the filter to machine code. Through a chain of one
/// comparison per refused call (as `seccompiler` compiles them), the two
/// cost a quarter of a millisecond per call; through this tree,
/// microseconds.
fn tree(refused: &[u32], by_rule: &[u32]) -> Option<BpfProgram> {
    const BPF_JEQ_K: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
    const BPF_JGE_K: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
    const BPF_RET_K: u16 = 0x06;
    const RET_ALLOW: u32 = 0x7fff_0000;
    const RET_ERRNO: u32 = 0x0005_0000;
    /// Numbers tested one by one at a leaf of the tree.
    const LEAF: usize = 4;
    /// Where each kind of number goes: absolute indices after the tree.
    struct Targets {
        allow: usize,
        refuse: usize,
        rules: usize,
    }
    fn size(numbers: &[(u32, bool)]) -> usize {
        if numbers.len() <= LEAF {
            numbers.len()
        } else {
            let (low, high) = numbers.split_at(numbers.len() / 2);
            1 + size(low) + size(high)
        }
    }
    /// Emits the subtree for `numbers` (each with whether it is refused
    /// outright) at `out.len()`, as (code, k, true target, false target).
    fn emit(numbers: &[(u32, bool)], out: &mut Vec<(u16, u32, usize, usize)>, to: &Targets) {
        if numbers.len() <= LEAF {
            for (i, &(number, refused)) in numbers.iter().enumerate() {
                let here = out.len();
                let hit = if refused { to.refuse } else { to.rules };
                let miss = if i + 1 == numbers.len() {
                    to.allow
                } else {
                    here + 1
                };
                out.push((BPF_JEQ_K, number, hit, miss));
            }
            return;
        }
        let (low, high) = numbers.split_at(numbers.len() / 2);
        let here = out.len();
        // `nr >= high[0]`: the high half, placed after the low one.
        out.push((BPF_JGE_K, high[0].0, here + 1 + size(low), here + 1));
        emit(low, out, to);
        emit(high, out, to);
    }
    let mut numbers: Vec<(u32, bool)> = refused
        .iter()
        .map(|&n| (n, true))
        .chain(by_rule.iter().map(|&n| (n, false)))
        .collect();
    numbers.sort_unstable();
    numbers.dedup_by_key(|(n, _)| *n);
    // Each number once: a number both refused and ruled would be ambiguous.
    if numbers.len() != refused.len() + by_rule.len() {
        return None;
    }
    let allow = size(&numbers);
    let to = Targets {
        allow,
        refuse: allow + 1,
        rules: allow + 2,
    };
    let mut symbolic = Vec::with_capacity(allow);
    emit(&numbers, &mut symbolic, &to);
    let mut tree = Vec::with_capacity(allow + 2);
    for (here, (code, k, to_true, to_false)) in symbolic.into_iter().enumerate() {
        let jt = u8::try_from(to_true.checked_sub(here + 1)?).ok()?;
        let jf = u8::try_from(to_false.checked_sub(here + 1)?).ok()?;
        tree.push(jump(code, k, jt, jf));
    }
    tree.push(stmt(BPF_RET_K, RET_ALLOW));
    tree.push(stmt(BPF_RET_K, RET_ERRNO | REFUSED));
    Some(tree)
}

/// The call's filter: `program` with the pointers of the one `execve` the
/// child makes written in. Any other `execve` of the call (by `find -exec`,
/// `sed e`, a repository's filter, the dynamic loader run directly, a
/// program copied into memory) is refused: its pointers differ, and the
/// filter cannot be read to learn them.
pub(crate) fn pinned(program: &[sock_filter], path: usize, argv: usize, envp: usize) -> BpfProgram {
    let mut pinned = program.to_vec();
    let halves = [path, argv, envp].into_iter().flat_map(|p| {
        let p = p as u64;
        [(p & 0xFFFF_FFFF) as u32, (p >> 32) as u32]
    });
    for (slot, half) in PIN_SLOTS.into_iter().zip(halves) {
        if let Some(instruction) = pinned.get_mut(slot) {
            instruction.k = half;
        }
    }
    pinned
}

/// The call's filter when it may execute helpers: any `execve` goes on to
/// the compiled program (`execveat` stays refused).
pub(crate) fn unpinned(program: &[sock_filter]) -> BpfProgram {
    let mut unpinned = program.to_vec();
    if let Some(check) = unpinned.get_mut(EXECVE_CHECK) {
        check.jt = check.jf;
    }
    unpinned
}

/// The system calls that change a file's metadata: where no mount
/// namespace makes the rest of the system read-only, a call that may write
/// reaches every file of its user through them (Landlock covers none: by
/// path, by an `O_PATH` descriptor, which any path opens, or by a
/// descriptor of a file Landlock lets it read, such as a program in a
/// folder of the search path), so they go to the call's reaper
/// (`SECCOMP_RET_USER_NOTIF`), which makes them only inside the workspace
/// and the call's temporary folder ([`super::metadata`]).
pub(crate) fn metadata_calls() -> Vec<i64> {
    let mut calls = vec![
        libc::SYS_fchmod,
        libc::SYS_fchmodat,
        libc::SYS_fchmodat2,
        libc::SYS_fchown,
        libc::SYS_fchownat,
        libc::SYS_utimensat,
        // Before Landlock's ABI 3 (Linux 6.2) nothing else keeps a path
        // outside from being cut short.
        libc::SYS_truncate,
    ];
    #[cfg(target_arch = "x86_64")]
    calls.extend([
        libc::SYS_chmod,
        libc::SYS_chown,
        libc::SYS_lchown,
        libc::SYS_utime,
        libc::SYS_utimes,
        libc::SYS_futimesat,
    ]);
    calls
}

/// The calls that set or remove extended attributes (and `file_setattr`'s
/// flags): answered "not supported" by the same filter, wherever the file
/// is (copying programs take it as a file system without them), with no
/// trip to the reaper.
pub(crate) fn attribute_calls() -> Vec<i64> {
    vec![
        libc::SYS_setxattr,
        libc::SYS_lsetxattr,
        libc::SYS_fsetxattr,
        libc::SYS_removexattr,
        libc::SYS_lremovexattr,
        libc::SYS_fremovexattr,
        SYS_SETXATTRAT,
        SYS_REMOVEXATTRAT,
        SYS_FILE_SETATTR,
    ]
}

/// The `ioctl` requests that change a file's inode flags and attributes
/// (`FS_IOC_SETFLAGS`, in its 32-bit form too, `FS_IOC_FSSETXATTR`,
/// `FS_IOC_SETVERSION`, in both forms: what `chattr` sends), or make its
/// content permanently read-only (`FS_IOC_ENABLE_VERITY`, which its owner
/// may send on a descriptor open for reading) or an empty folder encrypted
/// (`FS_IOC_SET_ENCRYPTION_POLICY`).
pub(crate) const INODE_FLAG_REQUESTS: [u64; 7] = [
    0x4008_6602,
    0x4004_6602,
    0x401c_5820,
    0x4008_7602,
    0x4004_7602,
    0x4080_6685,
    0x800c_6613,
];

/// The calls that send a signal to a process or thread named by number or
/// by descriptor (`kill`, but to the caller's own process group, is
/// checked apart): without a PID namespace and without Landlock's signal
/// scoping (Linux 6.12) they reach every process of the user (`kill -9
/// -1` ends the user's session), so they go to the call's reaper, which
/// sends them only to the call's own processes ([`super::signals`]).
pub(crate) fn signal_calls() -> Vec<i64> {
    vec![
        libc::SYS_tkill,
        libc::SYS_tgkill,
        libc::SYS_rt_sigqueueinfo,
        libc::SYS_rt_tgsigqueueinfo,
        libc::SYS_pidfd_send_signal,
    ]
}

/// The filter of a call with a reaper (no PID or mount namespace): it
/// hands [`metadata_calls`], [`signal_calls`] and `kill` (but to the
/// caller's own process group, 0) to the reaper, answers
/// [`attribute_calls`] and the [`INODE_FLAG_REQUESTS`] "not supported",
/// and allows everything else (the call's own filter, installed after it,
/// decides the rest, and its refusals come first).
pub(crate) fn reaper_filter() -> Vec<sock_filter> {
    const BPF_LD_W_ABS: u16 = 0x20;
    const BPF_JEQ_K: u16 = 0x15;
    const BPF_RET_K: u16 = 0x06;
    const RET_ALLOW: u32 = 0x7fff_0000;
    const RET_USER_NOTIF: u32 = 0x7fc0_0000;
    const RET_ERRNO: u32 = 0x0005_0000;
    const NR: u32 = 0;
    const ARCH: u32 = 4;
    const ARG0: u32 = 16;
    const ARG1: u32 = 24;
    let mut handed = metadata_calls();
    handed.extend(signal_calls());
    let refused = attribute_calls();
    let n = handed.len() + refused.len();
    let m = INODE_FLAG_REQUESTS.len();
    // 0 arch, 1 its check, 2 nr, 3..3+n one jump each, then `kill`'s
    // check and its pid's, then `ioctl`'s check, its request, one check
    // per flag request; then allow, notify, not supported.
    let kill_at = 3 + n;
    let ioctl_at = kill_at + 3;
    let allow = ioctl_at + 2 + m;
    let (notify, not_supported) = (allow + 1, allow + 2);
    let offset = |from: usize, to: usize| u8::try_from(to - from - 1).unwrap_or(0);
    let mut program = vec![
        stmt(BPF_LD_W_ABS, ARCH),
        jump(BPF_JEQ_K, AUDIT_ARCH, 0, offset(1, allow)),
        stmt(BPF_LD_W_ABS, NR),
    ];
    for (i, (call, to)) in handed
        .iter()
        .map(|call| (call, notify))
        .chain(refused.iter().map(|call| (call, not_supported)))
        .enumerate()
    {
        program.push(jump(BPF_JEQ_K, *call as u32, offset(3 + i, to), 0));
    }
    program.extend([
        jump(
            BPF_JEQ_K,
            libc::SYS_kill as u32,
            0,
            offset(kill_at, ioctl_at),
        ),
        stmt(BPF_LD_W_ABS, ARG0),
        jump(
            BPF_JEQ_K,
            0,
            offset(kill_at + 2, allow),
            offset(kill_at + 2, notify),
        ),
    ]);
    program.push(jump(
        BPF_JEQ_K,
        libc::SYS_ioctl as u32,
        0,
        offset(ioctl_at, allow),
    ));
    program.push(stmt(BPF_LD_W_ABS, ARG1));
    for (j, request) in INODE_FLAG_REQUESTS.iter().enumerate() {
        let at = ioctl_at + 2 + j;
        program.push(jump(
            BPF_JEQ_K,
            *request as u32,
            offset(at, not_supported),
            0,
        ));
    }
    program.extend([
        stmt(BPF_RET_K, RET_ALLOW),
        stmt(BPF_RET_K, RET_USER_NOTIF),
        stmt(BPF_RET_K, RET_ERRNO | libc::EOPNOTSUPP as u32),
    ]);
    program
}

fn stmt(code: u16, k: u32) -> sock_filter {
    sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> sock_filter {
    sock_filter { code, jt, jf, k }
}

/// Prefixes `program` with: the architecture check; a refusal of every
/// x32 system call (their numbers would slip past the checks by number);
/// a refusal of `execveat`; an `execve` allowed only with the pinned
/// pointers (zero until [`pinned`] writes them in); and the refusal of
/// every new namespace.
fn with_prefix(program: BpfProgram) -> BpfProgram {
    const BPF_LD_W_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const BPF_JEQ_K: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
    const BPF_JSET_K: u16 = 0x45; // BPF_JMP | BPF_JSET | BPF_K
    const BPF_RET_K: u16 = 0x06;
    const BPF_JA: u16 = 0x05; // BPF_JMP | BPF_JA
    const RET_KILL_PROCESS: u32 = 0x8000_0000;
    const RET_ERRNO: u32 = 0x0005_0000;
    const NR: u32 = 0;
    const ARCH: u32 = 4;
    const ARG0: u32 = 16;
    let refuse_exec = RET_ERRNO | libc::EACCES as u32;
    let execve = libc::SYS_execve as u32;
    let execveat = libc::SYS_execveat as u32;
    let mut prefixed = vec![
        /* 0 */ stmt(BPF_LD_W_ABS, ARCH),
        /* 1 */ jump(BPF_JEQ_K, AUDIT_ARCH, 1, 0),
        /* 2 */ stmt(BPF_RET_K, RET_KILL_PROCESS),
        /* 3 */ stmt(BPF_LD_W_ABS, NR),
        /* 4 */ jump(BPF_JSET_K, X32_SYSCALL_BIT, 0, 1),
        /* 5 */ stmt(BPF_RET_K, RET_ERRNO | REFUSED),
        /* 6 */ jump(BPF_JEQ_K, execveat, 0, 1),
        /* 7 */ stmt(BPF_RET_K, refuse_exec),
        /* 8 */ jump(BPF_JEQ_K, execve, 0, 13),
    ];
    // 9..=20: each half of path, argv and envp must equal its pin; any
    // mismatch jumps to the refusal at 21; a full match skips it.
    for (n, slot) in PIN_SLOTS.into_iter().enumerate() {
        prefixed.push(stmt(BPF_LD_W_ABS, ARG0 + 4 * n as u32));
        let to_refusal = u8::try_from(20 - slot).unwrap_or(0);
        prefixed.push(if slot == 20 {
            jump(BPF_JEQ_K, 0, 1, 0)
        } else {
            jump(BPF_JEQ_K, 0, 0, to_refusal)
        });
    }
    /* 21 */
    prefixed.push(stmt(BPF_RET_K, refuse_exec));
    // 22..=32: no namespace of the program's own. `clone3` carries its
    // flags in a structure the filter cannot read: it is "not
    // implemented", so that the C library falls back to `clone`, whose
    // flags it reads (as the operating system does, their low 32 bits; for
    // `clone` the low byte is the exit signal, not `CLONE_NEWTIME`).
    let refused = RET_ERRNO | REFUSED;
    prefixed.extend([
        /* 22 */ jump(BPF_JEQ_K, libc::SYS_clone3 as u32, 0, 1),
        /* 23 */ stmt(BPF_RET_K, RET_ERRNO | libc::ENOSYS as u32),
        /* 24 */ jump(BPF_JEQ_K, libc::SYS_unshare as u32, 0, 2),
        /* 25 */ stmt(BPF_LD_W_ABS, ARG0),
        /* 26 */ jump(BPF_JSET_K, NEW_NAMESPACES | CLONE_NEWTIME, 5, 3),
        /* 27 */ jump(BPF_JEQ_K, libc::SYS_clone as u32, 0, 5),
        /* 28 */ stmt(BPF_LD_W_ABS, ARG0),
        /* 29 */ jump(BPF_JSET_K, NEW_NAMESPACES, 2, 0),
        /* 30 */ stmt(BPF_LD_W_ABS, NR),
        /* 31 */ stmt(BPF_JA, 1),
        /* 32 */ stmt(BPF_RET_K, refused),
    ]);
    prefixed.extend(program);
    prefixed
}

/// The `clone` and `unshare` flags that make a namespace, but
/// `CLONE_NEWTIME`: a user namespace of the program's own would give it
/// every capability there, and with them the parts of the operating system
/// that only a namespace's root reaches (mounts, network configuration),
/// where most of its exploitable flaws have been.
const NEW_NAMESPACES: u32 = (libc::CLONE_NEWNS
    | libc::CLONE_NEWCGROUP
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET) as u32;

/// `CLONE_NEWTIME`, a flag of `unshare` (in `clone`'s flags, that bit is
/// part of the exit signal).
const CLONE_NEWTIME: u32 = 0x80;

#[cfg(test)]
mod tests {
    use super::*;

    /// The verdict of `program` for one system call, and how many
    /// instructions ran (a classic-BPF interpreter for the instructions
    /// these filters use).
    fn run(program: &[sock_filter], arch: u32, nr: u32, args: [u64; 6]) -> (u32, usize) {
        let word = |offset: u32| -> u32 {
            match offset {
                0 => nr,
                4 => arch,
                16..=63 => {
                    let arg = args[(offset as usize - 16) / 8];
                    if offset.is_multiple_of(8) {
                        arg as u32
                    } else {
                        (arg >> 32) as u32
                    }
                }
                other => panic!("load at {other}"),
            }
        };
        let (mut pc, mut a, mut steps) = (0usize, 0u32, 0usize);
        loop {
            let i = &program[pc];
            steps += 1;
            let taken = |cond: bool| if cond { i.jt } else { i.jf } as usize;
            pc = match i.code {
                0x20 => {
                    a = word(i.k);
                    pc + 1
                }
                0x54 => {
                    a &= i.k;
                    pc + 1
                }
                0x05 => pc + 1 + i.k as usize,
                0x15 => pc + 1 + taken(a == i.k),
                0x25 => pc + 1 + taken(a > i.k),
                0x35 => pc + 1 + taken(a >= i.k),
                0x45 => pc + 1 + taken(a & i.k != 0),
                0x06 => return (i.k, steps),
                code => panic!("instruction {code:#x} at {pc}"),
            };
        }
    }

    #[test]
    fn the_metadata_filter_hands_over_metadata_calls_only() {
        const NOTIFY: u32 = 0x7fc0_0000;
        const ALLOW: u32 = 0x7fff_0000;
        const NOT_SUPPORTED: u32 = 0x0005_0000 | libc::EOPNOTSUPP as u32;
        let program = reaper_filter();
        let handed: Vec<u32> = metadata_calls()
            .iter()
            .chain(&signal_calls())
            .map(|call| *call as u32)
            .collect();
        let refused: Vec<u32> = attribute_calls().iter().map(|call| *call as u32).collect();
        let kill = libc::SYS_kill as u32;
        for nr in (0..1024u32).filter(|nr| *nr != kill) {
            let want = if handed.contains(&nr) {
                NOTIFY
            } else if refused.contains(&nr) {
                NOT_SUPPORTED
            } else {
                ALLOW
            };
            assert_eq!(run(&program, AUDIT_ARCH, nr, [0; 6]).0, want, "nr {nr}");
            // Another architecture's numbers are the call's own filter's
            // to refuse.
            assert_eq!(run(&program, 0x4000_0003, nr, [0; 6]).0, ALLOW);
        }
        for call in [libc::SYS_fchmod, libc::SYS_utimensat, libc::SYS_fchownat] {
            assert_eq!(run(&program, AUDIT_ARCH, call as u32, [0; 6]).0, NOTIFY);
        }
        assert_eq!(
            run(&program, AUDIT_ARCH, libc::SYS_fsetxattr as u32, [0; 6]).0,
            NOT_SUPPORTED
        );
        let ioctl = libc::SYS_ioctl as u32;
        for request in INODE_FLAG_REQUESTS {
            assert_eq!(
                run(&program, AUDIT_ARCH, ioctl, [3, request, 0x1000, 0, 0, 0]).0,
                NOT_SUPPORTED
            );
        }
        // A signal to the caller's own process group goes; to any other
        // process or group (-1: all), the reaper decides.
        assert_eq!(run(&program, AUDIT_ARCH, kill, [0, 9, 0, 0, 0, 0]).0, ALLOW);
        for pid in [1u64, 4242, u64::from(u32::MAX), (-4242i64) as u64] {
            assert_eq!(
                run(&program, AUDIT_ARCH, kill, [pid, 9, 0, 0, 0, 0]).0,
                NOTIFY
            );
        }
        // FS_IOC_GETFLAGS, FIONREAD: read, allowed.
        for request in [0x8008_6601, libc::FIONREAD] {
            assert_eq!(
                run(&program, AUDIT_ARCH, ioctl, [3, request, 0x1000, 0, 0, 0]).0,
                ALLOW
            );
        }
        for call in [libc::SYS_openat, libc::SYS_write, libc::SYS_execve] {
            assert_eq!(run(&program, AUDIT_ARCH, call as u32, [0; 6]).0, ALLOW);
        }
    }

    #[test]
    fn the_tree_changes_no_verdict_and_decides_in_few_steps() {
        for access in [Access::ReadOnly, Access::WriteWorkspace] {
            let plain = compile_with(access, false).expect("filter");
            let fast = compile_with(access, true).expect("filter");
            let pins = |p: &[sock_filter]| pinned(p, 0x1000, 0x2000, 0x3000);
            let (plain, fast) = (pins(&plain), pins(&fast));
            let mut longest = 0;
            for nr in (0..1024).chain([X32_SYSCALL_BIT, X32_SYSCALL_BIT + 41]) {
                for args in [
                    [0; 6],
                    [libc::AF_UNIX as u64, 1, 0, 0, 0, 0],
                    [libc::AF_UNIX as u64, 2, 0, 0, 0, 0],
                    [libc::AF_INET as u64, 1, 0, 0, 0, 0],
                    [0x1000, 0x2000, 0x3000, 0, 0, 0],
                ] {
                    for arch in [AUDIT_ARCH, 0x4000_0003] {
                        let (want, _) = run(&plain, arch, nr, args);
                        let (got, steps) = run(&fast, arch, nr, args);
                        assert_eq!(got, want, "{access:?} nr {nr} args {args:?}");
                        // The calls with rules on their arguments (made
                        // once or twice by a program) take longer.
                        let ruled = [
                            libc::SYS_execve,
                            libc::SYS_socketpair,
                            libc::SYS_ioctl,
                            libc::SYS_prlimit64,
                            libc::SYS_setpriority,
                            libc::SYS_sched_setscheduler,
                            libc::SYS_sched_setparam,
                            libc::SYS_sched_setattr,
                            libc::SYS_sched_setaffinity,
                            libc::SYS_ioprio_set,
                        ]
                        .map(|call| call as u32);
                        let mode_call = privileged_mode_calls()
                            .iter()
                            .any(|(call, _)| *call as u32 == nr)
                            || creating_calls().iter().any(|(call, ..)| *call as u32 == nr);
                        if got == 0x7fff_0000 && !ruled.contains(&nr) && !mode_call {
                            longest = longest.max(steps);
                        }
                    }
                }
            }
            // The namespace checks in front take four of them.
            assert!(longest <= 28, "{access:?}: {longest} steps to allow");
            // Short, so that compiling it to machine code stays cheap: the
            // refused calls cost a few instructions each, not a chain.
            assert!(
                fast.len() <= 440 && fast.len() * 4 < plain.len() * 3,
                "{} instructions, {} without the tree",
                fast.len(),
                plain.len()
            );
        }
    }

    #[test]
    fn no_namespace_of_the_programs_own_and_clone3_falls_back_to_clone() {
        const ALLOW: u32 = 0x7fff_0000;
        const ERRNO: u32 = 0x0005_0000 | REFUSED;
        const NOT_IMPLEMENTED: u32 = 0x0005_0000 | libc::ENOSYS as u32;
        let sigchld = libc::SIGCHLD as u64;
        for access in [Access::ReadOnly, Access::WriteWorkspace] {
            let program = compile(access).expect("filter");
            for filter in [unpinned(&program), pinned(&program, 0x1000, 0x2000, 0x3000)] {
                let verdict = |nr: i64, args: [u64; 6]| run(&filter, AUDIT_ARCH, nr as u32, args).0;
                assert_eq!(
                    verdict(libc::SYS_clone3, [0x1000, 88, 0, 0, 0, 0]),
                    NOT_IMPLEMENTED
                );
                // A fork, a thread, a vfork go.
                let thread = (libc::CLONE_VM
                    | libc::CLONE_FS
                    | libc::CLONE_FILES
                    | libc::CLONE_SIGHAND
                    | libc::CLONE_THREAD
                    | libc::CLONE_SYSVSEM
                    | libc::CLONE_SETTLS
                    | libc::CLONE_PARENT_SETTID
                    | libc::CLONE_CHILD_CLEARTID) as u64;
                let vfork = (libc::CLONE_VM | libc::CLONE_VFORK) as u64 | sigchld;
                for flags in [sigchld, thread, vfork, 0x80 | sigchld] {
                    assert_eq!(verdict(libc::SYS_clone, [flags, 0, 0, 0, 0, 0]), ALLOW);
                }
                let files = libc::CLONE_FILES as u64;
                assert_eq!(verdict(libc::SYS_unshare, [files, 0, 0, 0, 0, 0]), ALLOW);
                for namespace in [
                    libc::CLONE_NEWUSER,
                    libc::CLONE_NEWNS,
                    libc::CLONE_NEWPID,
                    libc::CLONE_NEWNET,
                    libc::CLONE_NEWIPC,
                    libc::CLONE_NEWUTS,
                    libc::CLONE_NEWCGROUP,
                ] {
                    let flags = namespace as u64;
                    assert_eq!(verdict(libc::SYS_unshare, [flags, 0, 0, 0, 0, 0]), ERRNO);
                    let flags = flags | sigchld;
                    assert_eq!(verdict(libc::SYS_clone, [flags, 0, 0, 0, 0, 0]), ERRNO);
                }
                assert_eq!(verdict(libc::SYS_unshare, [0x80, 0, 0, 0, 0, 0]), ERRNO);
                // The calls after them are decided as before.
                assert_eq!(verdict(libc::SYS_getpid, [0; 6]), ALLOW);
                assert_eq!(verdict(libc::SYS_syslog, [3, 0, 0, 0, 0, 0]), ERRNO);
            }
        }
    }

    #[test]
    fn only_unix_stream_pairs_are_made_and_other_processes_left_alone() {
        const ALLOW: u32 = 0x7fff_0000;
        const ERRNO: u32 = 0x0005_0000 | REFUSED;
        let pair = libc::SYS_socketpair as u32;
        let (unix, inet) = (libc::AF_UNIX as u64, libc::AF_INET as u64);
        let flags = (libc::SOCK_CLOEXEC | libc::SOCK_NONBLOCK) as u64;
        for access in [Access::ReadOnly, Access::WriteWorkspace] {
            let filter = unpinned(&compile(access).expect("filter"));
            let verdict = |nr: u32, args: [u64; 6]| run(&filter, AUDIT_ARCH, nr, args).0;
            for kind in [libc::SOCK_STREAM, libc::SOCK_SEQPACKET] {
                for extra in [0, flags] {
                    let args = [unix, kind as u64 | extra, 0, 0, 0, 0];
                    assert_eq!(verdict(pair, args), ALLOW, "{access:?} {args:?}");
                }
            }
            for kind in [libc::SOCK_DGRAM, libc::SOCK_RAW, libc::SOCK_RDM, 0, 15] {
                for extra in [0, flags] {
                    let args = [unix, kind as u64 | extra, 0, 0, 0, 0];
                    assert_eq!(verdict(pair, args), ERRNO, "{access:?} {args:?}");
                }
            }
            let stream = [inet, libc::SOCK_STREAM as u64, 0, 0, 0, 0];
            assert_eq!(verdict(pair, stream), ERRNO);
            for call in [libc::SYS_bind, libc::SYS_connect, libc::SYS_listen] {
                assert_eq!(verdict(call as u32, [3, 0x1000, 110, 0, 0, 0]), ERRNO);
            }
            // Its own limits and priority, not another process's.
            let prlimit = libc::SYS_prlimit64 as u32;
            assert_eq!(verdict(prlimit, [0, 7, 0x1000, 0, 0, 0]), ALLOW);
            assert_eq!(verdict(prlimit, [1, 7, 0x1000, 0, 0, 0]), ERRNO);
            let setpriority = libc::SYS_setpriority as u32;
            assert_eq!(verdict(setpriority, [0, 0, 19, 0, 0, 0]), ALLOW);
            assert_eq!(verdict(setpriority, [0, 1, 19, 0, 0, 0]), ERRNO);
            // Not every process of its user at once (`PRIO_USER` and
            // `IOPRIO_WHO_USER`, for which 0 is the caller's user), only
            // those of its own process group.
            let user = libc::PRIO_USER as u64;
            assert_eq!(verdict(setpriority, [user, 0, 19, 0, 0, 0]), ERRNO);
            let group = libc::PRIO_PGRP as u64;
            assert_eq!(verdict(setpriority, [group, 0, 19, 0, 0, 0]), ALLOW);
            let ioprio = libc::SYS_ioprio_set as u32;
            let idle = 3 << 13;
            assert_eq!(verdict(ioprio, [1, 0, idle, 0, 0, 0]), ALLOW);
            assert_eq!(verdict(ioprio, [2, 0, idle, 0, 0, 0]), ALLOW);
            assert_eq!(verdict(ioprio, [1, 1, idle, 0, 0, 0]), ERRNO);
            assert_eq!(verdict(ioprio, [IOPRIO_WHO_USER, 0, idle, 0, 0, 0]), ERRNO);
            let affinity = libc::SYS_sched_setaffinity as u32;
            assert_eq!(verdict(affinity, [0, 8, 0x1000, 0, 0, 0]), ALLOW);
            assert_eq!(verdict(affinity, [1, 8, 0x1000, 0, 0, 0]), ERRNO);
            let scheduler = libc::SYS_sched_setscheduler as u32;
            assert_eq!(verdict(scheduler, [0, 5, 0x1000, 0, 0, 0]), ALLOW);
            assert_eq!(verdict(scheduler, [1, 5, 0x1000, 0, 0, 0]), ERRNO);
            // No input pushed into a terminal, whatever the request's upper
            // 32 bits (the operating system reads 32); other requests go.
            let ioctl = libc::SYS_ioctl as u32;
            for request in [libc::TIOCSTI, libc::TIOCLINUX] {
                for high in [0, 1 << 32, 0xffff_ffff << 32] {
                    assert_eq!(verdict(ioctl, [0, request | high, 0x1000, 0, 0, 0]), ERRNO);
                }
            }
            for request in [
                libc::TCGETS,
                libc::TIOCGWINSZ,
                libc::FIONREAD,
                libc::FIONBIO,
            ] {
                assert_eq!(verdict(ioctl, [1, request, 0x1000, 0, 0, 0]), ALLOW);
            }
            // A file's inode flags: not in a read-only call.
            for request in INODE_FLAG_REQUESTS {
                let want = if access == Access::ReadOnly {
                    ERRNO
                } else {
                    ALLOW
                };
                assert_eq!(verdict(ioctl, [3, request, 0x1000, 0, 0, 0]), want);
            }
        }
    }

    #[test]
    fn both_filters_compile_and_read_only_refuses_more() {
        let read_only = compile(Access::ReadOnly).expect("read-only filter");
        let write = compile(Access::WriteWorkspace).expect("write filter");
        // A mode change: any in a read-only run; in a write run, only one
        // without the set-user-id or set-group-id bit.
        let verdict = |program: &[sock_filter], nr: i64, args: [u64; 6]| {
            run(&unpinned(program), AUDIT_ARCH, nr as u32, args).0
        };
        for (nr, at) in privileged_mode_calls() {
            let with_mode = |mode: u32| {
                let mut args = [3, 0x1000, 0x2000, 0, 0, 0];
                args[usize::from(at)] = u64::from(mode);
                args
            };
            for mode in [0o755, 0o644, 0o1777, 0o4755, 0o2755, 0o6777] {
                let refused = mode & 0o6000 != 0;
                let want = if refused {
                    0x0005_0000 | REFUSED
                } else {
                    0x7fff_0000
                };
                assert_eq!(verdict(&write, nr, with_mode(mode)), want, "{nr} {mode:o}");
                assert_eq!(
                    verdict(&read_only, nr, with_mode(mode)),
                    0x0005_0000 | REFUSED,
                    "{nr} {mode:o}"
                );
            }
        }
        // A file made with such a mode, in a write run: refused only when
        // the call makes a file (a mode passed without O_CREAT is noise).
        for (nr, at, flags) in creating_calls() {
            for (made, mode) in [
                (true, 0o644),
                (true, 0o4755),
                (true, 0o2755),
                (false, 0o4755),
            ] {
                for makes in MAKES_A_FILE {
                    let mut args = [3, 0x1000, 0x2000, 0, 0, 0];
                    args[usize::from(at)] = mode;
                    if let Some(flags) = flags {
                        args[usize::from(flags)] = if made { makes | 1 } else { 1 };
                    }
                    let refused = mode & 0o6000 != 0 && (made || flags.is_none());
                    let want = if refused {
                        0x0005_0000 | REFUSED
                    } else {
                        0x7fff_0000
                    };
                    assert_eq!(verdict(&write, nr, args), want, "{nr} {mode:o} {made}");
                }
            }
        }
        assert_eq!(
            verdict(&write, libc::SYS_openat2, [3, 0x1000, 0x2000, 24, 0, 0]),
            0x0005_0000 | REFUSED
        );
        assert_eq!(read_only[4].k, X32_SYSCALL_BIT);
        let pinned = pinned(
            &read_only,
            0x1122_3344_5566_7788,
            0x99aa_bbcc_ddee_ff00,
            0x10,
        );
        let pins: Vec<u32> = PIN_SLOTS.iter().map(|&i| pinned[i].k).collect();
        assert_eq!(
            pins,
            [0x5566_7788, 0x1122_3344, 0xddee_ff00, 0x99aa_bbcc, 0x10, 0]
        );
        // Every jump lands inside the prefix or on the compiled program.
        for (i, instruction) in pinned.iter().enumerate().take(22) {
            if instruction.code & 0x07 == 0x05 {
                assert!(i + 1 + usize::from(instruction.jt) <= 22, "{i}");
                assert!(i + 1 + usize::from(instruction.jf) <= 22, "{i}");
            }
        }
    }
}
