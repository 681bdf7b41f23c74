//! Keeping the parent's file descriptors out of every child.

use std::os::fd::{BorrowedFd, RawFd};

use nix::fcntl::{FcntlArg, FdFlag, fcntl};

/// Marks every descriptor above 2 that this process holds close-on-exec.
///
/// Called when a kernel is built, not per spawn (one call for every
/// descriptor, not a close in each child before `execve`). Descriptors the
/// Rust standard library opens are already close-on-exec; this catches the
/// ones inherited from the parent process or opened by foreign code before
/// the kernel was built.
pub(crate) fn mark_inherited_close_on_exec() {
    // One system call where the running kernel has it (Linux 5.11):
    // `close_range` with CLOSE_RANGE_CLOEXEC marks the whole range.
    #[expect(unsafe_code)]
    // SAFETY: close_range only sets a flag on this process's descriptors
    // from 3 up; it reads no memory of ours.
    let marked = unsafe {
        libc::syscall(
            libc::SYS_close_range,
            3 as libc::c_uint,
            libc::c_uint::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        )
    };
    if marked == 0 {
        return;
    }
    for fd in open_descriptors() {
        if fd <= 2 {
            continue;
        }
        #[expect(unsafe_code)]
        // SAFETY: `fd` was listed in /proc/self/fd a moment ago and the
        // borrow lives only for these two fcntl calls; if another thread
        // closed it in between, fcntl fails with EBADF, which is ignored.
        let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
        if let Ok(flags) = fcntl(borrowed, FcntlArg::F_GETFD) {
            let flags = FdFlag::from_bits_truncate(flags) | FdFlag::FD_CLOEXEC;
            let _ = fcntl(borrowed, FcntlArg::F_SETFD(flags));
        }
    }
}

fn open_descriptors() -> Vec<RawFd> {
    let Ok(entries) = std::fs::read_dir("/proc/self/fd") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
        .collect()
}
