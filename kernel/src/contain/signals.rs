//! Signals sent by the call's reaper, only to the call's own processes.
//!
//! Without a PID namespace, a program sees every process of the system
//! and may signal every process of its user: the integrator, the user's
//! shell, a whole desktop session (`kill -9 -1`). Landlock's signal
//! scoping (Linux 6.12) refuses those; where it is missing, and always
//! where a call has a reaper, the calls that signal a process named by
//! number or descriptor are handed to the reaper
//! ([`super::seccomp::signal_calls`], and `kill` but to the caller's own
//! process group). Every process of the call is a descendant of the
//! reaper (the child subreaper of all it starts, orphans included), so the
//! reaper sends a signal only where the target's parents lead back to it;
//! elsewhere the answer is "not permitted". A process is pinned by a pidfd
//! before its parents are read, and signalled through that pidfd, so a
//! number reused meanwhile reaches no one else. `kill` to a process group
//! or to every process (-1) reaches those of the call in it.
//!
//! Like [`super::metadata`], this runs in the reaper: raw system calls into
//! stack buffers, nothing allocated.

use std::os::fd::RawFd;

use super::metadata::{Fd, decimal, errno, join};

/// The size of a `siginfo_t`.
const SIGINFO: usize = 128;

/// How far up the parents of a process are followed (the call's processes
/// are bounded far below this).
const MAX_DEPTH: usize = 4096;

/// Whether the call numbered `nr` is one of those this module answers.
pub(crate) fn is_signal_call(nr: i64) -> bool {
    matches!(
        nr,
        libc::SYS_kill
            | libc::SYS_tkill
            | libc::SYS_tgkill
            | libc::SYS_rt_sigqueueinfo
            | libc::SYS_rt_tgsigqueueinfo
            | libc::SYS_pidfd_send_signal
    )
}

/// A signal checked and ready, sent once the asking thread has its answer:
/// sent before, a signal to that very thread would interrupt its wait for
/// the answer (and, restarted, the call would send it again).
pub(crate) enum Ready {
    /// Through a pidfd of the target (`kill`, `pidfd_send_signal`).
    Pidfd {
        fd: Fd,
        signal: i32,
        info: Option<[u8; SIGINFO]>,
        flags: u32,
    },
    /// To a thread by number: `tgkill` (`tgid` 0: `tkill`).
    Thread { tgid: i32, tid: i32, signal: i32 },
    /// `rt_sigqueueinfo` (`tid` 0) or `rt_tgsigqueueinfo`.
    Queued {
        tgid: i32,
        tid: i32,
        signal: i32,
        info: [u8; SIGINFO],
    },
    /// `kill` to a process group of the call's, or to all of its
    /// processes (`None`) but `except`.
    Many {
        group: Option<i32>,
        signal: i32,
        except: i32,
    },
}

impl Ready {
    /// Sends it (what comes of it is no one's to hear any more: the thread
    /// was answered, as when the target exits right after its signal).
    #[expect(unsafe_code)]
    pub(crate) fn send(self) {
        // SAFETY: raw signal calls on targets checked to be the call's,
        // with local buffers.
        unsafe {
            match self {
                Ready::Pidfd {
                    fd,
                    signal,
                    info,
                    flags,
                } => {
                    let info = info.as_ref().map_or(std::ptr::null(), |info| info.as_ptr());
                    libc::syscall(libc::SYS_pidfd_send_signal, fd.0, signal, info, flags);
                }
                Ready::Thread {
                    tgid: 0,
                    tid,
                    signal,
                } => {
                    libc::syscall(libc::SYS_tkill, tid, signal);
                }
                Ready::Thread { tgid, tid, signal } => {
                    libc::syscall(libc::SYS_tgkill, tgid, tid, signal);
                }
                Ready::Queued {
                    tgid,
                    tid: 0,
                    signal,
                    info,
                } => {
                    libc::syscall(libc::SYS_rt_sigqueueinfo, tgid, signal, info.as_ptr());
                }
                Ready::Queued {
                    tgid,
                    tid,
                    signal,
                    info,
                } => {
                    libc::syscall(
                        libc::SYS_rt_tgsigqueueinfo,
                        tgid,
                        tid,
                        signal,
                        info.as_ptr(),
                    );
                }
                Ready::Many {
                    group,
                    signal,
                    except,
                } => {
                    each_of_the_call(group, except, |pid| {
                        if let Ok(Some(ready)) = to_process(pid, signal) {
                            ready.send();
                        }
                    });
                }
            }
        }
    }
}

/// Checks the signal the call numbered `nr` (one of the handed signal
/// calls) asks for: `Some` signal to send once the thread is answered
/// that it was sent, `None` when nothing is to be sent (signal 0, which
/// only asks whether the target exists: answered here); the errno to
/// answer otherwise (0: the thread is gone). `still_waiting` says whether
/// the asking thread still waits (checked after reading from it).
pub(crate) fn check_call(
    tid: u32,
    nr: i64,
    args: [u64; 6],
    still_waiting: &dyn Fn() -> bool,
) -> Result<Option<Ready>, i32> {
    let int = |i: usize| args[i] as u32 as i32;
    let valid = |signal: i32| {
        if (0..=64).contains(&signal) {
            Ok(signal)
        } else {
            Err(libc::EINVAL)
        }
    };
    match nr {
        libc::SYS_kill => {
            let signal = valid(int(1))?;
            match int(0) {
                pid if pid > 0 => to_process(pid, signal),
                pid => {
                    // -1: every process of the call but the caller's own;
                    // another negative number: that group's.
                    let (group, except) = if pid == -1 {
                        (None, tgid_of(tid).unwrap_or(0))
                    } else {
                        (Some(pid.checked_neg().ok_or(libc::ESRCH)?), 0)
                    };
                    let mut any = false;
                    each_of_the_call(group, except, |_| any = true);
                    if !any {
                        return Err(libc::ESRCH);
                    }
                    Ok((signal != 0).then_some(Ready::Many {
                        group,
                        signal,
                        except,
                    }))
                }
            }
        }
        libc::SYS_tkill | libc::SYS_tgkill => {
            let (tgid, tid_asked, signal) = if nr == libc::SYS_tkill {
                (0, int(0), valid(int(1))?)
            } else {
                (int(0), int(1), valid(int(2))?)
            };
            let owner = tgid_of(tid_asked as u32).ok_or(libc::ESRCH)?;
            if tgid != 0 && owner != tgid {
                return Err(libc::ESRCH);
            }
            ours(owner)?;
            Ok((signal != 0).then_some(Ready::Thread {
                tgid,
                tid: tid_asked,
                signal,
            }))
        }
        libc::SYS_rt_sigqueueinfo | libc::SYS_rt_tgsigqueueinfo => {
            let (tgid, tid_asked, signal, at) = if nr == libc::SYS_rt_sigqueueinfo {
                (int(0), 0, valid(int(1))?, args[2])
            } else {
                (int(0), int(1), valid(int(2))?, args[3])
            };
            ours(tgid)?;
            let mut info = [0u8; SIGINFO];
            super::metadata::read_bytes(tid, at, &mut info)?;
            if !still_waiting() {
                return Err(0);
            }
            // As the operating system refuses a process sending another
            // one what looks like the kernel's or `tkill`'s (the reaper is
            // the sender now): `si_code`, after `si_signo` and `si_errno`.
            let code = i32::from_ne_bytes([info[8], info[9], info[10], info[11]]);
            if code >= 0 || code == libc::SI_TKILL {
                return Err(libc::EPERM);
            }
            Ok((signal != 0).then_some(Ready::Queued {
                tgid,
                tid: tid_asked,
                signal,
                info,
            }))
        }
        libc::SYS_pidfd_send_signal => {
            let signal = valid(int(1))?;
            let mut info = [0u8; SIGINFO];
            if args[2] != 0 {
                super::metadata::read_bytes(tid, args[2], &mut info)?;
            }
            let fd = Fd(descriptor_of(tid, int(0))?);
            if !still_waiting() {
                return Err(0);
            }
            let target = target_of(fd.0).ok_or(libc::EBADF)?;
            ours(target)?;
            if signal == 0 {
                return probe(&fd).map(|()| None);
            }
            Ok(Some(Ready::Pidfd {
                fd,
                signal,
                info: (args[2] != 0).then_some(info),
                flags: args[3] as u32,
            }))
        }
        _ => Err(libc::EPERM),
    }
}

/// Whether the process of pidfd `fd` still lives (signal 0).
#[expect(unsafe_code)]
fn probe(fd: &Fd) -> Result<(), i32> {
    // SAFETY: a raw pidfd_send_signal of signal 0 through our pidfd.
    let sent = unsafe {
        libc::syscall(
            libc::SYS_pidfd_send_signal,
            fd.0,
            0,
            std::ptr::null::<libc::siginfo_t>(),
            0u32,
        )
    };
    if sent < 0 { Err(errno()) } else { Ok(()) }
}

/// Checks a signal to process `pid`, pinned by a pidfd: the signal ready
/// to send through it if the process is the call's (signal 0: answered
/// here).
#[expect(unsafe_code)]
fn to_process(pid: i32, signal: i32) -> Result<Option<Ready>, i32> {
    // SAFETY: a raw pidfd_open.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        let error = errno();
        // The number of a thread but its process's first: `kill` signals
        // its process.
        return match tgid_of(pid as u32) {
            Some(tgid) if matches!(error, libc::EINVAL | libc::ENOENT) && tgid != pid => {
                to_process(tgid, signal)
            }
            _ => Err(error),
        };
    }
    let fd = Fd(RawFd::try_from(fd).map_err(|_| libc::EBADF)?);
    // Read after the pin: were `pid` another process's by now, the pidfd's
    // own has exited and its signal reaches no one.
    ours(pid)?;
    if signal == 0 {
        return probe(&fd).map(|()| None);
    }
    Ok(Some(Ready::Pidfd {
        fd,
        signal,
        info: None,
        flags: 0,
    }))
}

/// Calls `each` with every process of the call in process group `group`
/// (every one for `None`) but `except`.
fn each_of_the_call(group: Option<i32>, except: i32, mut each: impl FnMut(i32)) {
    each_process(|pid| {
        if pid == except {
            return;
        }
        if let Some(group) = group
            && Stat::of(pid).is_none_or(|stat| stat.group != group)
        {
            return;
        }
        if ours(pid).is_ok() {
            each(pid);
        }
    });
}

/// Calls `each` with every process `/proc` lists.
#[expect(unsafe_code)]
fn each_process(mut each: impl FnMut(i32)) {
    // SAFETY: a raw open of a static path.
    let proc = unsafe {
        libc::open(
            c"/proc".as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if proc < 0 {
        return;
    }
    let proc = Fd(proc);
    super::spawn::each_entry(proc.0, |name| {
        let name = &name[..name.iter().position(|b| *b == 0).unwrap_or(name.len())];
        if let Some(pid) = number(name) {
            each(pid);
        }
    });
}

/// A positive decimal number that fits a pid.
fn number(digits: &[u8]) -> Option<i32> {
    if digits.is_empty() || digits.len() > 10 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n = digits
        .iter()
        .fold(0u64, |n, digit| n * 10 + u64::from(digit - b'0'));
    i32::try_from(n).ok().filter(|n| *n > 0)
}

/// What `/proc/<pid>/stat` says of a process: its parent and its group.
struct Stat {
    parent: i32,
    group: i32,
}

impl Stat {
    fn of(pid: i32) -> Option<Stat> {
        let mut text = [0u8; 1024];
        let mut digits = [0; 20];
        let read = read_proc(
            &[
                b"/proc/",
                decimal(u64::from(pid as u32), &mut digits),
                b"/stat",
            ],
            &mut text,
        )?;
        let text = &text[..read];
        // The name, in parentheses, may hold anything: the fields are
        // after its last `)`: state, parent, group.
        let after = &text[text.iter().rposition(|b| *b == b')')? + 1..];
        let mut fields = after
            .split(|b| *b == b' ')
            .filter(|field| !field.is_empty());
        let _state = fields.next()?;
        let parent = signed(fields.next()?)?;
        let group = signed(fields.next()?)?;
        Some(Stat { parent, group })
    }
}

fn signed(digits: &[u8]) -> Option<i32> {
    match digits.strip_prefix(b"-") {
        Some(rest) => number(rest).map(|n| -n),
        None if digits == b"0" => Some(0),
        None => number(digits),
    }
}

/// `Ok` when process `pid` is the call's: a descendant of this reaper
/// (never the reaper itself); "not permitted" otherwise.
fn ours(pid: i32) -> Result<(), i32> {
    let reaper = std::process::id() as i32;
    let mut at = pid;
    for _ in 0..MAX_DEPTH {
        if at <= 1 || at == reaper {
            break;
        }
        let stat = Stat::of(at).ok_or(libc::ESRCH)?;
        if stat.parent == reaper {
            return Ok(());
        }
        at = stat.parent;
    }
    Err(libc::EPERM)
}

/// The process (thread group) of thread `tid`, from its `/proc` status.
fn tgid_of(tid: u32) -> Option<i32> {
    let mut text = [0u8; 4096];
    let mut digits = [0; 20];
    let read = read_proc(
        &[b"/proc/", decimal(u64::from(tid), &mut digits), b"/status"],
        &mut text,
    )?;
    let line = text[..read]
        .split(|b| *b == b'\n')
        .find_map(|line| line.strip_prefix(b"Tgid:"))?;
    number(line.trim_ascii())
}

/// Reads the file at `parts` joined (one read) into `buffer`: how much.
#[expect(unsafe_code)]
fn read_proc(parts: &[&[u8]], buffer: &mut [u8]) -> Option<usize> {
    let mut path = [0u8; 64];
    join(parts, &mut path)?;
    // SAFETY: open of a NUL-terminated local path, one read into a local
    // buffer, close.
    let read = unsafe {
        let fd = libc::open(path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return None;
        }
        let read = libc::read(fd, buffer.as_mut_ptr().cast(), buffer.len());
        libc::close(fd);
        read
    };
    usize::try_from(read).ok()
}

/// A copy of descriptor `fd` of the process of thread `tid`.
#[expect(unsafe_code)]
fn descriptor_of(tid: u32, fd: i32) -> Result<RawFd, i32> {
    let tgid = tgid_of(tid).ok_or(libc::ESRCH)?;
    // SAFETY: raw pidfd_open and pidfd_getfd; the pidfd is closed.
    unsafe {
        let process = libc::syscall(libc::SYS_pidfd_open, tgid, 0);
        let process = Fd(RawFd::try_from(process).map_err(|_| errno())?);
        if process.0 < 0 {
            return Err(errno());
        }
        let copy = libc::syscall(libc::SYS_pidfd_getfd, process.0, fd, 0);
        if copy < 0 {
            return Err(if errno() == libc::EBADF {
                libc::EBADF
            } else {
                libc::EPERM
            });
        }
        RawFd::try_from(copy).map_err(|_| libc::EBADF)
    }
}

/// The process a pidfd (or a `/proc/<pid>` folder's descriptor) names:
/// its `Pid:` in `/proc/self/fdinfo`, or the folder's number.
#[expect(unsafe_code)]
fn target_of(fd: RawFd) -> Option<i32> {
    let mut text = [0u8; 1024];
    let mut digits = [0; 20];
    let number_of_fd = decimal(u64::from(fd as u32), &mut digits);
    let read = read_proc(&[b"/proc/self/fdinfo/", number_of_fd], &mut text)?;
    if let Some(pid) = text[..read]
        .split(|b| *b == b'\n')
        .find_map(|line| line.strip_prefix(b"Pid:"))
    {
        return number(pid.trim_ascii());
    }
    // A `/proc/<pid>` folder: its path.
    let mut link = [0u8; 64];
    join(&[b"/proc/self/fd/", number_of_fd], &mut link)?;
    let mut target = [0u8; 64];
    // SAFETY: readlink of a NUL-terminated local path into a local buffer.
    let read = unsafe { libc::readlink(link.as_ptr().cast(), target.as_mut_ptr().cast(), 64) };
    let target = target.get(..usize::try_from(read).ok()?)?;
    number(target.strip_prefix(b"/proc/")?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_handed_signal_calls_are_answered_here() {
        for call in super::super::seccomp::signal_calls() {
            assert!(is_signal_call(call), "{call}");
        }
        assert!(is_signal_call(libc::SYS_kill));
        assert!(!is_signal_call(libc::SYS_getpid));
    }

    #[test]
    fn a_process_status_is_read_whatever_its_name() {
        let own = Stat::of(std::process::id() as i32).unwrap();
        assert_eq!(own.parent, nix::unistd::getppid().as_raw());
        assert_eq!(own.group, nix::unistd::getpgrp().as_raw());
        assert_eq!(tgid_of(std::process::id()), Some(std::process::id() as i32));
        assert_eq!(number(b"0"), None);
        assert_eq!(number(b"2147483648"), None);
        assert_eq!(signed(b"-12"), Some(-12));
        assert_eq!(signed(b"0"), Some(0));
    }

    #[test]
    fn a_process_that_is_not_below_this_one_is_not_ours() {
        // This test's own parent is not below it.
        assert_eq!(ours(nix::unistd::getppid().as_raw()), Err(libc::EPERM));
        assert_eq!(ours(1), Err(libc::EPERM));
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        assert_eq!(ours(child.id() as i32), Ok(()));
        child.kill().unwrap();
        child.wait().unwrap();
    }
}
