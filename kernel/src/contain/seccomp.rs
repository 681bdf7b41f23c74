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
const SYS_SETXATTRAT: i64 = 463;
const SYS_REMOVEXATTRAT: i64 = 466;
const SYS_FILE_SETATTR: i64 = 469;

/// On x86-64, system calls of the x32 ABI carry this bit; the filter's number
/// checks would not see them, so they are refused as a whole.
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

/// Calls refused in every contained run: every way to open a network or
/// kernel socket, io_uring (whose operations bypass this filter), and the
/// calls that reach other processes or the kernel itself.
fn always_refused() -> Vec<i64> {
    // `c_long` is `i64` on every 64-bit Linux target this filter knows.
    let mut calls: Vec<i64> = vec![
        libc::SYS_socket,
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
        libc::SYS_swapon,
        libc::SYS_swapoff,
        libc::SYS_acct,
    ];
    calls.extend([libc::SYS_fsopen, libc::SYS_fsmount, libc::SYS_move_mount]);
    calls
}

/// Calls that change a file's metadata, which Landlock does not cover:
/// refused in read-only runs.
fn metadata_writes() -> Vec<i64> {
    let mut calls: Vec<i64> = [
        libc::SYS_fchmod,
        libc::SYS_fchmodat,
        libc::SYS_fchmodat2,
        libc::SYS_fchown,
        libc::SYS_fchownat,
        libc::SYS_utimensat,
        libc::SYS_setxattr,
        libc::SYS_lsetxattr,
        libc::SYS_fsetxattr,
        libc::SYS_removexattr,
        libc::SYS_lremovexattr,
        libc::SYS_fremovexattr,
    ]
    .to_vec();
    #[cfg(target_arch = "x86_64")]
    calls.extend([
        libc::SYS_chmod,
        libc::SYS_chown,
        libc::SYS_lchown,
        libc::SYS_utime,
        libc::SYS_utimes,
        libc::SYS_futimesat,
    ]);
    calls.extend([SYS_SETXATTRAT, SYS_REMOVEXATTRAT, SYS_FILE_SETATTR]);
    calls
}

/// Compiles the filter for runs of `access`; `None` on an architecture the
/// filter compiler does not know.
pub(crate) fn compile(access: Access) -> Option<BpfProgram> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).ok()?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for call in always_refused() {
        rules.insert(call, Vec::new());
    }
    if access == Access::ReadOnly {
        for call in metadata_writes() {
            rules.insert(call, Vec::new());
        }
    }
    // A pair of connected Unix sockets reaches nothing outside the call:
    // allowed; any other family is refused.
    let not_unix = SeccompCondition::new(
        0,
        SeccompCmpArgLen::Dword,
        SeccompCmpOp::Ne,
        libc::AF_UNIX as u64,
    )
    .ok()?;
    rules.insert(
        libc::SYS_socketpair,
        vec![SeccompRule::new(vec![not_unix]).ok()?],
    );
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(REFUSED),
        arch,
    )
    .ok()?;
    let program: BpfProgram = filter.try_into().ok()?;
    Some(with_x32_guard(program))
}

/// Prefixes `program` with a refusal of every x32 system call. The compiled
/// program checks the architecture again, so the prefix needs no check of
/// its own: on another architecture no number carries the bit.
fn with_x32_guard(program: BpfProgram) -> BpfProgram {
    // BPF_LD | BPF_W | BPF_ABS
    const BPF_LD_W_ABS: u16 = 0x20;
    const BPF_JMP_JSET_K: u16 = 0x05 | 0x40;
    const BPF_RET_K: u16 = 0x06;
    const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;
    let mut guarded = vec![
        // Load the system call number (offset 0 of seccomp_data).
        sock_filter {
            code: BPF_LD_W_ABS,
            jt: 0,
            jf: 0,
            k: 0,
        },
        // x32 bit set: fall through to the refusal; else skip it.
        sock_filter {
            code: BPF_JMP_JSET_K,
            jt: 0,
            jf: 1,
            k: X32_SYSCALL_BIT,
        },
        sock_filter {
            code: BPF_RET_K,
            jt: 0,
            jf: 0,
            k: SECCOMP_RET_ERRNO | REFUSED,
        },
    ];
    guarded.extend(program);
    guarded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_filters_compile_and_read_only_refuses_more() {
        let read_only = compile(Access::ReadOnly).expect("read-only filter");
        let write = compile(Access::WriteWorkspace).expect("write filter");
        assert!(read_only.len() > write.len());
        assert_eq!(read_only[1].k, X32_SYSCALL_BIT);
    }
}
