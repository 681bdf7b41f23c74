//! Metadata changes, made by the call's reaper, only inside the workspace
//! and the call's temporary folder.
//!
//! Landlock covers reading and writing files, not their metadata: a mode,
//! an owner, times, extended attributes. With mount namespaces the rest of
//! the system is mounted read-only for the call; without them (where user
//! namespaces are refused) a call that may write could `chmod 0777` its
//! user's home, make a private key readable by every local user, or make
//! a program of the user's in a folder of the search path (which every
//! call may read, so open) writable by all (and, before Landlock's ABI 3,
//! cut any of its files short with `truncate`). Every call that changes
//! metadata (or a length by path), by path, by an `O_PATH` descriptor (which Landlock lets any
//! path open) or by a descriptor of a file the program could open, is
//! handed to the call's reaper by a seccomp filter with a listener
//! ([`super::seccomp::reaper_filter`]). The reaper does not let the
//! operating system carry it out after its check (the path could change
//! between the two: another thread rewriting the string, a link in the
//! workspace replaced); it resolves the path as the program's thread would
//! (its directory, or the descriptor it named, through `/proc/<tid>`), with
//! `openat2` refusing `/proc`'s magic links, to a descriptor of its own;
//! checks where that file is; and makes the change on that descriptor
//! itself, with the program's rights (it has dropped its capabilities too),
//! answering the program with the result. Extended attributes are
//! answered "not supported" by the filter itself
//! ([`super::seccomp::attribute_calls`]), which copying programs take as a
//! file system without them.
//!
//! Everything here runs in the reaper, a fork of a threaded process: raw
//! system calls into stack buffers, nothing allocated.

use std::ffi::{CStr, c_int};
use std::os::fd::RawFd;

/// The longest path read from the program (`PATH_MAX`).
const PATH_MAX: usize = 4096;

/// `AT_FDCWD`, as the low 32 bits of a system call's argument.
const AT_FDCWD: i32 = libc::AT_FDCWD;

/// Where the reaper lets the program change metadata: the workspace and
/// the call's temporary folder, as canonical paths.
#[derive(Clone, Copy)]
pub(crate) struct Inside<'a> {
    pub(crate) workspace: &'a CStr,
    pub(crate) tmp: &'a CStr,
}

impl Inside<'_> {
    /// Nowhere: every change is refused.
    pub(crate) const NOWHERE: Inside<'static> = Inside {
        workspace: c"",
        tmp: c"",
    };
}

/// What a handed-over call asks, read from its number and arguments.
#[derive(Clone, Copy)]
enum Change {
    Mode(u32),
    Owner(u32, u32),
    /// The address of the times (`None`: now), and how they are written.
    Times(Option<u64>, TimesLayout),
    /// `truncate`: the new length.
    Size(i64),
}

#[derive(Clone, Copy)]
enum TimesLayout {
    /// `struct timespec[2]`.
    Spec,
    /// `struct timeval[2]`.
    Val,
    /// `struct utimbuf`.
    Buf,
}

/// A handed-over call: the directory its path starts from, the address of
/// the path, whether a last link is followed, whether an empty path names
/// the directory descriptor itself, and the change.
#[derive(Clone, Copy)]
struct Request {
    dir: i32,
    path: u64,
    follow: bool,
    empty_path: bool,
    change: Change,
}

/// Reads what the call numbered `nr` asks; `None` for a number this
/// module does not hand over. A change by descriptor is read as one of
/// the descriptor itself (no path).
fn request(nr: i64, args: [u64; 6]) -> Option<Request> {
    // The low 32 bits: what the operating system reads of an `int`.
    let int = |i: usize| args[i] as u32;
    let at = |dir: u64, path: u64, flags: u64, change: Change| Request {
        dir: dir as u32 as i32,
        path,
        follow: flags as c_int & libc::AT_SYMLINK_NOFOLLOW == 0,
        empty_path: flags as c_int & libc::AT_EMPTY_PATH != 0,
        change,
    };
    let fd = |fd: u64, change: Change| at(fd, 0, 0, change);
    #[cfg(target_arch = "x86_64")]
    let cwd = AT_FDCWD as u32 as u64;
    let times = |address: u64, layout| Change::Times((address != 0).then_some(address), layout);
    Some(match nr {
        libc::SYS_fchmod => fd(args[0], Change::Mode(int(1))),
        libc::SYS_truncate => at(
            AT_FDCWD as u32 as u64,
            args[0],
            0,
            Change::Size(args[1] as i64),
        ),
        libc::SYS_fchown => fd(args[0], Change::Owner(int(1), int(2))),
        libc::SYS_fchmodat => at(args[0], args[1], 0, Change::Mode(int(2))),
        libc::SYS_fchmodat2 => at(args[0], args[1], args[3], Change::Mode(int(2))),
        libc::SYS_fchownat => at(args[0], args[1], args[4], Change::Owner(int(2), int(3))),
        // No path: the descriptor's file (`futimens`).
        libc::SYS_utimensat => at(args[0], args[1], args[3], times(args[2], TimesLayout::Spec)),
        #[cfg(target_arch = "x86_64")]
        libc::SYS_chmod => at(cwd, args[0], 0, Change::Mode(int(1))),
        #[cfg(target_arch = "x86_64")]
        libc::SYS_chown => at(cwd, args[0], 0, Change::Owner(int(1), int(2))),
        #[cfg(target_arch = "x86_64")]
        libc::SYS_lchown => at(
            cwd,
            args[0],
            libc::AT_SYMLINK_NOFOLLOW as u64,
            Change::Owner(int(1), int(2)),
        ),
        #[cfg(target_arch = "x86_64")]
        libc::SYS_utime => at(cwd, args[0], 0, times(args[1], TimesLayout::Buf)),
        #[cfg(target_arch = "x86_64")]
        libc::SYS_utimes => at(cwd, args[0], 0, times(args[1], TimesLayout::Val)),
        // No path: the descriptor's file (`futimes`).
        #[cfg(target_arch = "x86_64")]
        libc::SYS_futimesat => at(args[0], args[1], 0, times(args[2], TimesLayout::Val)),
        _ => return None,
    })
}

/// Takes the next handed-over call from `listener` and answers it; returns
/// `false` when the listener is done (no program of the call holds the
/// filter any more).
#[expect(unsafe_code)]
pub(crate) fn answer_one(listener: RawFd, inside: Inside<'_>) -> bool {
    // SAFETY: zeroed plain structures; ioctls on our own listener with
    // pointers to them.
    unsafe {
        let mut notification: libc::seccomp_notif = std::mem::zeroed();
        if libc::ioctl(
            listener,
            libc::SECCOMP_IOCTL_NOTIF_RECV,
            &mut notification as *mut libc::seccomp_notif,
        ) != 0
        {
            // ENOENT: the thread that asked was killed meanwhile; EINTR: a
            // signal. Anything else ends the listener.
            let error = std::io::Error::last_os_error().raw_os_error();
            return matches!(error, Some(libc::ENOENT | libc::EINTR));
        }
        let nr = i64::from(notification.data.nr);
        let mut ready = None;
        let answer = if super::signals::is_signal_call(nr) {
            let id = notification.id;
            super::signals::check_call(notification.pid, nr, notification.data.args, &|| {
                still_waiting(listener, id)
            })
            .map(|checked| ready = checked)
        } else {
            match request(nr, notification.data.args) {
                Some(request) => carry_out(listener, &notification, request, inside),
                None => Err(libc::EPERM),
            }
        };
        let mut response: libc::seccomp_notif_resp = std::mem::zeroed();
        response.id = notification.id;
        match answer {
            Ok(()) => {}
            // The thread is gone: no one to answer.
            Err(0) => return true,
            Err(errno) => response.error = -errno,
        }
        // ENOENT: the thread was killed meanwhile; nothing to answer.
        libc::ioctl(
            listener,
            libc::SECCOMP_IOCTL_NOTIF_SEND,
            &mut response as *mut libc::seccomp_notif_resp,
        );
        // A signal goes once the thread has its answer (see `Ready`).
        if let Some(ready) = ready {
            ready.send();
        }
        true
    }
}

/// Resolves, checks and makes the change of `request` for the thread of
/// `notification`: `Ok` once made, the errno to answer otherwise (0: the
/// thread is gone, answer nothing).
fn carry_out(
    listener: RawFd,
    notification: &libc::seccomp_notif,
    request: Request,
    inside: Inside<'_>,
) -> Result<(), i32> {
    let tid = notification.pid;
    let mut path = [0u8; PATH_MAX + 1];
    // No path: the change is the descriptor's own (`fchmod`, `futimens`).
    let (length, request) = if request.path == 0 {
        if request.dir == AT_FDCWD {
            return Err(libc::EBADF);
        }
        (
            0,
            Request {
                empty_path: true,
                ..request
            },
        )
    } else {
        let length = read_string(tid, request.path, &mut path)?;
        match own_descriptor(&path[..length]) {
            // `/proc/self/fd/N`: the C library's way to change a file it
            // holds by `O_PATH` (`fchmodat` not following links, where
            // `fchmodat2` is missing): the program's own descriptor.
            Some(fd) => {
                path = [0u8; PATH_MAX + 1];
                (
                    0,
                    Request {
                        dir: fd,
                        empty_path: true,
                        ..request
                    },
                )
            }
            None => (length, request),
        }
    };
    let relative = path.first() != Some(&b'/');
    let dir = if relative {
        Some(Fd(open_dir_of(tid, request.dir)?))
    } else {
        None
    };
    let target = if length == 0 {
        if !request.empty_path {
            return Err(libc::ENOENT);
        }
        match &dir {
            Some(dir) => Fd(dup(dir.0)?),
            None => return Err(libc::ENOENT),
        }
    } else {
        let start = dir.as_ref().map_or(libc::AT_FDCWD, |dir| dir.0);
        Fd(resolve(start, &path, request.follow)?)
    };
    // What was read could be another process's, had the thread died and
    // its number been reused since: its call must still be waiting.
    if !still_waiting(listener, notification.id) {
        return Err(0);
    }
    if !is_inside(target.0, inside) {
        return Err(libc::EACCES);
    }
    apply(tid, target.0, request.change)
}

/// The descriptor a path names when it is the program's own through
/// `/proc` (`/proc/self/fd/N`, `/proc/thread-self/fd/N`); other magic links
/// are refused when resolved.
fn own_descriptor(path: &[u8]) -> Option<i32> {
    let number = path
        .strip_prefix(b"/proc/self/fd/")
        .or_else(|| path.strip_prefix(b"/proc/thread-self/fd/"))?;
    if number.is_empty() || number.len() > 10 || !number.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let fd = number
        .iter()
        .fold(0u64, |n, digit| n * 10 + u64::from(digit - b'0'));
    i32::try_from(fd).ok()
}

/// A descriptor closed when dropped.
pub(crate) struct Fd(pub(crate) RawFd);

impl Drop for Fd {
    #[expect(unsafe_code)]
    fn drop(&mut self) {
        // SAFETY: closing a descriptor this module opened.
        unsafe { libc::close(self.0) };
    }
}

/// The last system call's error number.
pub(crate) fn errno() -> i32 {
    std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

/// Reads the NUL-terminated string at `address` in thread `tid` into
/// `buffer`; its length without the NUL.
fn read_string(tid: u32, address: u64, buffer: &mut [u8; PATH_MAX + 1]) -> Result<usize, i32> {
    if address == 0 {
        return Err(libc::EFAULT);
    }
    let mut filled = 0usize;
    // Page by page: a string that ends before an unmapped page is read
    // whole.
    while filled < PATH_MAX {
        let at = address.saturating_add(filled as u64);
        let to_page_end = 4096 - (at % 4096) as usize;
        let want = to_page_end.min(PATH_MAX - filled);
        let read = match read_some(tid, at, &mut buffer[filled..filled + want]) {
            Some(0) | None if filled == 0 => return Err(libc::EFAULT),
            Some(0) | None => return Err(libc::ENAMETOOLONG),
            Some(read) => read,
        };
        if let Some(nul) = buffer[filled..filled + read].iter().position(|b| *b == 0) {
            return Ok(filled + nul);
        }
        filled += read;
    }
    Err(libc::ENAMETOOLONG)
}

/// Reads `buffer.len()` bytes at `address` in thread `tid` into `buffer`.
pub(crate) fn read_bytes(tid: u32, address: u64, buffer: &mut [u8]) -> Result<(), i32> {
    let length = buffer.len();
    match read_some(tid, address, buffer) {
        Some(read) if read == length => Ok(()),
        _ => Err(libc::EFAULT),
    }
}

/// Reads at most `buffer.len()` bytes at `address` in thread `tid`: how
/// many were read (up to the first page that is not mapped).
#[expect(unsafe_code)]
fn read_some(tid: u32, address: u64, buffer: &mut [u8]) -> Option<usize> {
    let local = libc::iovec {
        iov_base: buffer.as_mut_ptr().cast(),
        iov_len: buffer.len(),
    };
    let remote = libc::iovec {
        iov_base: address as usize as *mut libc::c_void,
        iov_len: buffer.len(),
    };
    // SAFETY: reads into our own buffer, within its length.
    let read = unsafe { libc::process_vm_readv(tid as libc::pid_t, &local, 1, &remote, 1, 0) };
    usize::try_from(read).ok()
}

/// Writes `/proc/<tid>/cwd` or `/proc/<tid>/fd/<dir>` into `buffer`.
fn dir_path(tid: u32, dir: i32, buffer: &mut [u8; 64]) {
    let (mut tid_digits, mut dir_digits) = ([0; 20], [0; 20]);
    let tid = decimal(u64::from(tid), &mut tid_digits);
    // At most 6 + 10 + 4 + 10 bytes and a NUL: it always fits.
    let _ = if dir == AT_FDCWD {
        join(&[b"/proc/", tid, b"/cwd"], buffer)
    } else {
        let dir = decimal(u64::from(dir as u32), &mut dir_digits);
        join(&[b"/proc/", tid, b"/fd/", dir], buffer)
    };
}

/// `parts` joined, NUL-terminated, in `path`; `None` when too long.
pub(crate) fn join(parts: &[&[u8]], path: &mut [u8; 64]) -> Option<()> {
    let mut at = 0;
    for part in parts {
        path.get_mut(at..at + part.len())?.copy_from_slice(part);
        at += part.len();
    }
    *path.get_mut(at)? = 0;
    Some(())
}

/// `n` in decimal, in `digits`.
pub(crate) fn decimal(mut n: u64, digits: &mut [u8; 20]) -> &[u8] {
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &digits[start..];
        }
    }
}

/// The directory a relative path of thread `tid` starts from, opened
/// `O_PATH`: its working directory, or the descriptor it named.
#[expect(unsafe_code)]
fn open_dir_of(tid: u32, dir: i32) -> Result<RawFd, i32> {
    if dir < 0 && dir != AT_FDCWD {
        return Err(libc::EBADF);
    }
    let mut path = [0u8; 64];
    dir_path(tid, dir, &mut path);
    // SAFETY: a NUL-terminated local path.
    let fd = unsafe { libc::open(path.as_ptr().cast(), libc::O_PATH | libc::O_CLOEXEC) };
    if fd < 0 {
        let error = errno();
        return Err(if error == libc::ENOENT {
            libc::EBADF
        } else {
            error
        });
    }
    Ok(fd)
}

#[expect(unsafe_code)]
fn dup(fd: RawFd) -> Result<RawFd, i32> {
    // SAFETY: duplicating our own descriptor.
    let copy = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
    if copy < 0 { Err(errno()) } else { Ok(copy) }
}

/// `path` (NUL-terminated) from `start`, as an `O_PATH` descriptor,
/// following its last link when `follow`; `/proc`'s magic links (which
/// would lead to the reaper's own descriptors) refused.
#[expect(unsafe_code)]
fn resolve(start: RawFd, path: &[u8; PATH_MAX + 1], follow: bool) -> Result<RawFd, i32> {
    // SAFETY: a plain structure of integers, all zero.
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = (libc::O_PATH | libc::O_CLOEXEC | if follow { 0 } else { libc::O_NOFOLLOW }) as u64;
    how.resolve = libc::RESOLVE_NO_MAGICLINKS;
    // SAFETY: openat2 with a NUL-terminated local path and a local `how`.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_openat2,
            start,
            path.as_ptr(),
            &how as *const libc::open_how,
            std::mem::size_of::<libc::open_how>(),
        )
    };
    if fd < 0 {
        return Err(errno());
    }
    RawFd::try_from(fd).map_err(|_| libc::EBADF)
}

#[expect(unsafe_code)]
fn still_waiting(listener: RawFd, id: u64) -> bool {
    let mut id = id;
    // SAFETY: an ioctl on our own listener with a pointer to a local.
    unsafe {
        libc::ioctl(
            listener,
            libc::SECCOMP_IOCTL_NOTIF_ID_VALID,
            &mut id as *mut u64,
        ) == 0
    }
}

/// Whether the file of `fd` is the workspace or the temporary folder, or
/// below one: its path, as `/proc/self/fd` says it now.
#[expect(unsafe_code)]
fn is_inside(fd: RawFd, inside: Inside<'_>) -> bool {
    let mut link = [0u8; 64];
    dir_path(std::process::id(), fd, &mut link);
    let mut path = [0u8; PATH_MAX + 1];
    // SAFETY: readlink of a NUL-terminated local path into a local buffer.
    let read = unsafe { libc::readlink(link.as_ptr().cast(), path.as_mut_ptr().cast(), PATH_MAX) };
    let Ok(read) = usize::try_from(read) else {
        return false;
    };
    let path = &path[..read];
    [inside.workspace, inside.tmp].iter().any(|root| {
        let root = root.to_bytes();
        !root.is_empty()
            && path.starts_with(root)
            && (path.len() == root.len() || path[root.len()] == b'/' || root == b"/")
    })
}

/// Makes `change` on the file of `fd` (an `O_PATH` descriptor), with the
/// times or modes read from thread `tid`.
#[expect(unsafe_code)]
fn apply(tid: u32, fd: RawFd, change: Change) -> Result<(), i32> {
    let mut link = [0u8; 64];
    dir_path(std::process::id(), fd, &mut link);
    // SAFETY: a plain structure of integers, all zero.
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: fstat of our own descriptor into a local structure.
    if unsafe { libc::fstat(fd, &mut stat) } != 0 {
        return Err(errno());
    }
    let link_itself = stat.st_mode & libc::S_IFMT == libc::S_IFLNK;
    let done = match change {
        // SAFETY: truncate of our own descriptor's file (never a link:
        // the path was followed), through its `/proc/self/fd` path.
        Change::Size(length) => unsafe { libc::truncate(link.as_ptr().cast(), length) },
        Change::Mode(mode) => {
            // Set-user-ID and set-group-ID modes are refused before this,
            // by the call's own filter; and a link has no mode of its own.
            if mode & 0o6000 != 0 {
                return Err(libc::EPERM);
            }
            if link_itself {
                return Err(libc::EOPNOTSUPP);
            }
            // SAFETY: chmod of our own descriptor's file, through its
            // `/proc/self/fd` path (NUL-terminated, local).
            unsafe { libc::chmod(link.as_ptr().cast(), mode as libc::mode_t) }
        }
        // SAFETY: fchownat of our own descriptor itself (a link, when the
        // call did not follow it).
        Change::Owner(user, group) => unsafe {
            libc::fchownat(fd, c"".as_ptr(), user, group, libc::AT_EMPTY_PATH)
        },
        Change::Times(address, layout) => {
            let times = match address {
                None => None,
                Some(address) => Some(read_times(tid, address, layout)?),
            };
            let times_ptr = times
                .as_ref()
                .map_or(std::ptr::null(), |times| times.as_ptr());
            // SAFETY: utimensat with local, NUL-terminated paths and local
            // times.
            unsafe {
                if link_itself {
                    libc::utimensat(
                        fd,
                        c"".as_ptr(),
                        times_ptr,
                        libc::AT_EMPTY_PATH | libc::AT_SYMLINK_NOFOLLOW,
                    )
                } else {
                    libc::utimensat(libc::AT_FDCWD, link.as_ptr().cast(), times_ptr, 0)
                }
            }
        }
    };
    if done == 0 { Ok(()) } else { Err(errno()) }
}

/// The two times at `address` in thread `tid`, as `utimensat` takes them.
fn read_times(tid: u32, address: u64, layout: TimesLayout) -> Result<[libc::timespec; 2], i32> {
    let mut raw = [0u8; 32];
    let length = match layout {
        TimesLayout::Spec | TimesLayout::Val => 32,
        TimesLayout::Buf => 16,
    };
    read_bytes(tid, address, &mut raw[..length])?;
    let word = |i: usize| {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(&raw[i * 8..i * 8 + 8]);
        i64::from_ne_bytes(bytes)
    };
    let spec = |seconds: i64, nanoseconds: i64| libc::timespec {
        tv_sec: seconds as libc::time_t,
        tv_nsec: nanoseconds as _,
    };
    Ok(match layout {
        TimesLayout::Spec => [spec(word(0), word(1)), spec(word(2), word(3))],
        TimesLayout::Val => {
            for micro in [word(1), word(3)] {
                if !(0..1_000_000).contains(&micro) {
                    return Err(libc::EINVAL);
                }
            }
            [spec(word(0), word(1) * 1000), spec(word(2), word(3) * 1000)]
        }
        TimesLayout::Buf => [spec(word(0), 0), spec(word(1), 0)],
    })
}

/// Calls `with` with a message of one byte and room for one descriptor,
/// over local buffers.
fn with_message<R>(with: impl FnOnce(&mut libc::msghdr) -> R) -> R {
    let mut byte = [0u8; 1];
    let mut data = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    let mut control = [0u64; 4];
    // SAFETY: a plain structure of integers and pointers, all zero.
    #[expect(unsafe_code)]
    let mut message: libc::msghdr = unsafe { std::mem::zeroed() };
    message.msg_iov = &mut data;
    message.msg_iovlen = 1;
    message.msg_control = control.as_mut_ptr().cast();
    message.msg_controllen = std::mem::size_of_val(&control) as _;
    with(&mut message)
}

/// Sends `listener` over `socket` (the program's side, before `execve`):
/// whether it was sent.
#[expect(unsafe_code)]
pub(crate) fn send_listener(socket: RawFd, listener: RawFd) -> bool {
    with_message(|message| {
        // SAFETY: the control header is written within the message's
        // control buffer (room for one descriptor), then sendmsg reads the
        // local buffers.
        unsafe {
            message.msg_controllen = libc::CMSG_SPACE(std::mem::size_of::<c_int>() as u32) as _;
            let header = libc::CMSG_FIRSTHDR(message);
            if header.is_null() {
                return false;
            }
            (*header).cmsg_level = libc::SOL_SOCKET;
            (*header).cmsg_type = libc::SCM_RIGHTS;
            (*header).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<c_int>() as u32) as _;
            std::ptr::write_unaligned(libc::CMSG_DATA(header).cast::<c_int>(), listener);
            libc::sendmsg(socket, message, libc::MSG_NOSIGNAL) == 1
        }
    })
}

/// Receives the listener the program sent over `socket` (the reaper's
/// side, once the program has called `execve` or failed to): -1 when none
/// came.
#[expect(unsafe_code)]
pub(crate) fn receive_listener(socket: RawFd) -> RawFd {
    with_message(|message| {
        // SAFETY: recvmsg into the local buffers; the descriptor is read
        // only from a header the kernel filled, within the control buffer.
        unsafe {
            if libc::recvmsg(socket, message, libc::MSG_CMSG_CLOEXEC) != 1 {
                return -1;
            }
            let header = libc::CMSG_FIRSTHDR(message);
            if header.is_null()
                || (*header).cmsg_level != libc::SOL_SOCKET
                || (*header).cmsg_type != libc::SCM_RIGHTS
            {
                return -1;
            }
            std::ptr::read_unaligned(libc::CMSG_DATA(header).cast::<c_int>())
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_handed_over_call_is_read() {
        for call in super::super::seccomp::metadata_calls() {
            assert!(request(call, [0; 6]).is_some(), "call {call}");
        }
        let fchmod = request(libc::SYS_fchmod, [5, 0o600, 0, 0, 0, 0]).unwrap();
        assert!(fchmod.dir == 5 && fchmod.path == 0);
        assert!(matches!(fchmod.change, Change::Mode(0o600)));
        let chmod = request(
            libc::SYS_fchmodat2,
            [AT_FDCWD as u32 as u64, 8, 0o644, 0x100, 0, 0],
        )
        .unwrap();
        assert!(!chmod.follow && chmod.dir == AT_FDCWD);
        assert!(matches!(chmod.change, Change::Mode(0o644)));
        let touch = request(libc::SYS_utimensat, [3, 8, 0, 0x1000, 0, 0]).unwrap();
        assert!(touch.follow && touch.empty_path && touch.dir == 3);
        assert!(matches!(touch.change, Change::Times(None, _)));
        let cut = request(libc::SYS_truncate, [8, 4096, 0, 0, 0, 0]).unwrap();
        assert!(cut.follow && cut.dir == AT_FDCWD && cut.path == 8);
        assert!(matches!(cut.change, Change::Size(4096)));
        assert!(request(libc::SYS_openat, [0; 6]).is_none());
    }

    #[test]
    fn the_programs_own_descriptors_through_proc_are_read() {
        assert_eq!(own_descriptor(b"/proc/self/fd/3"), Some(3));
        assert_eq!(
            own_descriptor(b"/proc/thread-self/fd/2147483647"),
            Some(i32::MAX)
        );
        for other in [
            &b"/proc/self/fd/"[..],
            b"/proc/self/fd/3/",
            b"/proc/self/fd/3/..",
            b"/proc/self/fd/-1",
            b"/proc/self/fd/2147483648",
            b"/proc/self/fd/99999999999",
            b"/proc/1/fd/3",
            b"/proc/self/cwd",
            b"proc/self/fd/3",
        ] {
            assert_eq!(own_descriptor(other), None, "{other:?}");
        }
    }

    #[test]
    fn proc_paths_are_written_whole() {
        let mut buffer = [0u8; 64];
        dir_path(4_294_967_295, AT_FDCWD, &mut buffer);
        assert!(buffer.starts_with(b"/proc/4294967295/cwd\0"));
        dir_path(7, 12, &mut buffer);
        assert!(buffer.starts_with(b"/proc/7/fd/12\0"));
        dir_path(7, i32::MAX, &mut buffer);
        assert!(buffer.starts_with(b"/proc/7/fd/2147483647\0"));
    }
}
