//! Armed programs: a warm init's program process, cloned before its call
//! with the call's seccomp filter already installed.
//!
//! Installing a seccomp filter is the dearest step of a program's set-up:
//! the operating system translates the filter and compiles it to machine
//! code, runs it once per system-call number to learn which numbers it
//! always allows, and, when the last process using it exits, frees the
//! compiled code on a worker that preempts that exit. A warm init (see
//! [`super::warm`]) therefore clones its call's program process ahead, as
//! soon as its namespaces are set up, with the filter the previous call
//! had: the armed process installs it, asking for a listener descriptor
//! that the init keeps (it holds the filter, so the freeing comes with the
//! init's exit, after the call's report), says so, and waits.
//!
//! When the call comes and fits (the same filter; its command within the
//! space below), the init takes a copy of the descriptor table it shared
//! with the armed process (which keeps the original, with the call's
//! descriptors) and wakes it instead of cloning a program; the armed
//! process does what a cloned program does (standard streams, directory,
//! limits, capabilities, Landlock), copies its command into its space, and
//! calls `execve` with the pointers its filter pins. The init closes its
//! copies of the call's descriptors and waits for the program's exit, as
//! for a cloned program's. A call that does not fit ends the armed process
//! and clones its program as before.
//!
//! The armed process shares the integrator's memory, as the init does,
//! until `execve`, on a stack of its own; it reads the init's copy of the
//! call's plan until then, which stays where it is (in the frame of the
//! warm init's main function, which never returns). Where the init cannot
//! copy the table, it waits until the armed process has called `execve`
//! (or exited) as a `vfork` parent does: the operating system clears a
//! word when it lets go of the shared memory (`CLONE_CHILD_CLEARTID`), and
//! wakes whoever waits on it. The two processes share the C library's
//! `errno` too: neither reads it after a call of the other may have set
//! it, except to report a failure (the armed process's, before `execve`).
//!
//! The pinned pointers are those of this space, one per init stack, at an
//! address the operating system chose. The program cannot read its filter
//! or the integrator's memory to learn them, as with a cloned program's,
//! nor the integrator's `/proc/PID/maps`, which would show the space: a
//! warm init arms a program only when the call has a private `/proc`,
//! where the integrator is not seen at all.

use std::ffi::c_char;
use std::sync::atomic::{AtomicI32, AtomicU32, AtomicUsize, Ordering};

use libc::c_int;

use super::spawn::{self, ChildPlan};

/// The armed process's stack, up to `execve`: raw system calls with small
/// frames.
const STACK: usize = 64 * 1024;
/// Where the shared words are, after the guard page and the stack.
const CONTROL: usize = 4096 + STACK;
/// Where the command is copied: after the page of shared words.
const AREA: usize = CONTROL + 4096;
/// The command's arguments (pointers, the last one null) at the area's
/// start, at most this many.
const ARGV_SLOTS: usize = 4096;
/// Its environment (pointers, the last one null) after them, at most this
/// many.
const ENVP_SLOTS: usize = 4096;
/// The strings after both: the program's path first, then the arguments',
/// then the environment's.
const STRINGS: usize = (ARGV_SLOTS + ENVP_SLOTS) * std::mem::size_of::<usize>();
/// The area's size: a command whose strings need more is not armed.
const AREA_LEN: usize = 512 * 1024;
/// The whole mapping.
const LEN: usize = AREA + AREA_LEN;

/// `life` before the armed process has installed its filter.
const STARTING: u32 = u32::MAX - 1;
/// `life` once the armed process waits for its call.
const ARMED: u32 = u32::MAX;

/// `SECCOMP_SET_MODE_FILTER`.
const SET_MODE_FILTER: libc::c_ulong = 1;
/// `SECCOMP_FILTER_FLAG_NEW_LISTENER`.
const FLAG_NEW_LISTENER: libc::c_ulong = 1 << 3;

/// The words the init and its armed process share.
#[repr(C)]
struct Control {
    /// [`STARTING`], then [`ARMED`]; zero (written by the operating system)
    /// once the armed process has called `execve` or exited.
    life: AtomicU32,
    /// Set to 1 when the call comes, after `plan`.
    go: AtomicU32,
    /// The address of the init's copy of the call's plan.
    plan: AtomicUsize,
}

/// The memory of one init stack's armed processes: a guard page, the
/// stack, the shared words, the area where the command is copied. Mapped
/// once per init stack, unmapped when dropped (never while an init on that
/// stack lives: its armed process dies with it).
pub(super) struct ArmedSpace {
    mapping: spawn::Mapping,
}

impl ArmedSpace {
    /// Maps a space; `None` when it cannot be (no armed programs then).
    pub(super) fn new() -> Option<ArmedSpace> {
        spawn::Mapping::new(LEN)
            .ok()
            .map(|mapping| ArmedSpace { mapping })
    }

    /// The space's address, as a warm init's setup carries it.
    pub(super) fn address(&self) -> usize {
        self.mapping.base()
    }

    /// The pointers the filter pins: the program's path, its arguments,
    /// its environment (see [`fill`]).
    pub(super) fn pins(&self) -> (usize, usize, usize) {
        let area = self.address() + AREA;
        (
            area + STRINGS,
            area,
            area + ARGV_SLOTS * std::mem::size_of::<usize>(),
        )
    }
}

/// The shared words of the space at `space`.
#[expect(unsafe_code)]
fn control(space: usize) -> &'static Control {
    // SAFETY: `space` is the address of a live `ArmedSpace` (mapped,
    // zero-filled, page-aligned), whose owner keeps it mapped while any
    // process uses it; atomics of zero are valid values.
    unsafe { &*((space + CONTROL) as *const Control) }
}

/// Whether the command of `plan` fits in an armed process's area: its
/// pointer lists in their slots (each with its null end), its strings in
/// the rest.
pub(super) fn fits(plan: &ChildPlan<'_>) -> bool {
    let mut bytes = plan.program.to_bytes_with_nul().len();
    for (list, slots) in [(plan.argv, ARGV_SLOTS), (plan.envp, ENVP_SLOTS)] {
        let count = list.iter().take_while(|p| !p.is_null()).count();
        if count >= slots {
            return false;
        }
        for &string in &list[..count] {
            #[expect(unsafe_code)]
            // SAFETY: a pointer of the plan's null-terminated list: a
            // NUL-terminated string its owner keeps alive until `execve`.
            let length = unsafe { libc::strlen(string) };
            bytes = bytes.saturating_add(length + 1);
        }
    }
    bytes <= AREA_LEN - STRINGS
}

/// What the armed process and its init share while it arms: its space, the
/// filter (alive until the process says it is armed or exits), and where it
/// writes its listener.
struct Arming {
    space: usize,
    filter: *const libc::sock_fprog,
    listener: AtomicI32,
}

/// In a warm init: clones the armed process on the space at `space`, to
/// install `filter`, and waits until it has (or has died). Its pid, and
/// the listener that holds its filter (or -1); `None` when it could not
/// arm (the call's program is then cloned as usual).
#[expect(unsafe_code)]
pub(super) fn arm(space: usize, filter: &libc::sock_fprog) -> Option<(c_int, c_int)> {
    let control = control(space);
    control.life.store(STARTING, Ordering::Release);
    control.go.store(0, Ordering::Release);
    let arming = Arming {
        space,
        filter: filter as *const libc::sock_fprog,
        listener: AtomicI32::new(-1),
    };
    let stack_top = (space + CONTROL) as *mut libc::c_void;
    // Cloned onto this processor, which is free once this process waits
    // below: placed by the operating system, it may queue behind a busy
    // one (a running call's program) and arm only when that one is done,
    // on the call's path.
    let mask = pin_here();
    // SAFETY: the armed process shares this process's memory and its
    // descriptor table, and runs only `armed_entry` on the space's stack
    // (used by no other process: one armed process per warm init, one warm
    // init per init stack at a time). What it reads here (`arming`, on
    // this stack) stays alive: this process waits below until it is armed
    // or gone. It makes raw, async-signal-safe system calls only.
    let pid = unsafe {
        libc::clone(
            armed_entry,
            stack_top,
            libc::CLONE_VM | libc::CLONE_FILES | libc::CLONE_CHILD_CLEARTID | libc::SIGCHLD,
            (&arming as *const Arming).cast_mut().cast(),
            std::ptr::null_mut::<c_int>(),
            std::ptr::null_mut::<libc::c_void>(),
            control.life.as_ptr(),
        )
    };
    if let Some(mask) = &mask {
        set_affinity(0, mask);
    }
    if pid < 0 {
        return None;
    }
    loop {
        match control.life.load(Ordering::Acquire) {
            ARMED => break,
            0 => return None,
            now => futex_wait(&control.life, now),
        }
    }
    // Its program runs where this process may: one that cannot be given
    // that mask back is ended (its program would run on one processor).
    if mask.is_some_and(|mask| !set_affinity(pid, &mask)) {
        // SAFETY: a signal to this process's own child, which it reaps.
        unsafe { libc::kill(pid, libc::SIGKILL) };
        loop {
            match control.life.load(Ordering::Acquire) {
                0 => return None,
                now => futex_wait(&control.life, now),
            }
        }
    }
    Some((pid, arming.listener.load(Ordering::Acquire)))
}

/// Restricts this process to the processor it runs on; the mask it had, or
/// `None` (and no change) when either cannot be read or set.
#[expect(unsafe_code)]
fn pin_here() -> Option<libc::cpu_set_t> {
    // SAFETY: raw calls writing into local values (the processor number
    // by `getcpu`, which needs no thread-local state of this process).
    unsafe {
        let mut mask: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut mask) != 0 {
            return None;
        }
        let mut cpu: libc::c_uint = 0;
        if libc::syscall(
            libc::SYS_getcpu,
            &mut cpu as *mut libc::c_uint,
            std::ptr::null_mut::<libc::c_uint>(),
            std::ptr::null_mut::<libc::c_void>(),
        ) != 0
            || cpu as usize >= libc::CPU_SETSIZE as usize
        {
            return None;
        }
        let mut here: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu as usize, &mut here);
        set_affinity(0, &here).then_some(mask)
    }
}

/// Sets the processors `pid` (0: this process) may run on; whether it did.
#[expect(unsafe_code)]
fn set_affinity(pid: libc::pid_t, mask: &libc::cpu_set_t) -> bool {
    // SAFETY: a raw call reading a local mask.
    unsafe { libc::sched_setaffinity(pid, std::mem::size_of::<libc::cpu_set_t>(), mask) == 0 }
}

/// Whether the armed process on the space at `space` still waits for its
/// call (it may have been killed since it armed).
pub(super) fn waiting(space: usize) -> bool {
    control(space).life.load(Ordering::Acquire) == ARMED
}

/// In a warm init: hands the call of `plan` (this init's copy) to its
/// armed process. This process first takes a descriptor table of its own:
/// the one it shared with the armed process, with the call's descriptors,
/// stays the armed process's alone, so that this one may close its copies
/// and go on to wait for the program's exit at once, instead of waking as
/// the program calls `execve` (which, on a busy processor, is preempted by
/// it). Where it cannot (no memory for the copy), it waits as a `vfork`
/// parent until the armed process has called `execve` or exited, as the
/// armed process takes its own table first thing.
///
/// Either way the armed process reads `plan` until `execve`: the caller
/// keeps it alive and unchanged (a warm init's copy lives in the frame of
/// `warm_main`, which never returns).
pub(super) fn fire(space: usize, plan: &ChildPlan<'_>) {
    #[expect(unsafe_code)]
    // SAFETY: a raw unshare of this process's own descriptor table.
    let own_table = unsafe { libc::unshare(libc::CLONE_FILES) } == 0;
    let control = control(space);
    control
        .plan
        .store(plan as *const ChildPlan<'_> as usize, Ordering::Release);
    control.go.store(1, Ordering::Release);
    futex_wake(&control.go);
    if own_table {
        return;
    }
    loop {
        match control.life.load(Ordering::Acquire) {
            0 => return,
            now => futex_wait(&control.life, now),
        }
    }
}

/// The armed process: its filter, the word that says it is armed, the
/// wait for its call, then the program's side.
extern "C" fn armed_entry(arming: *mut libc::c_void) -> c_int {
    #[expect(unsafe_code)]
    // SAFETY: the init's `Arming`, alive until `life` says armed or this
    // process has exited (see `arm`); used only before that.
    let arming = unsafe { &*arming.cast::<Arming>() };
    let (space, filter) = (arming.space, arming.filter);
    #[expect(unsafe_code)]
    // SAFETY: raw prctl and seccomp on this process's own state; `filter`
    // points at the init's filter, alive until `life` says armed.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        // Named for observers (`ps`) until `execve` names it after its
        // program.
        libc::prctl(libc::PR_SET_NAME, c"jig-armed".as_ptr(), 0, 0, 0);
        // With its init's capabilities in the call's user namespace, the
        // filter needs no `no_new_privs` yet (set before `execve`).
        let mut listener = libc::syscall(
            libc::SYS_seccomp,
            SET_MODE_FILTER,
            FLAG_NEW_LISTENER,
            filter,
        );
        if listener < 0 {
            // No listeners here (before Linux 5.0), or one further up.
            listener = -1;
            let no_flags: libc::c_ulong = 0;
            if libc::syscall(libc::SYS_seccomp, SET_MODE_FILTER, no_flags, filter) != 0 {
                libc::_exit(127);
            }
        }
        arming.listener.store(listener as c_int, Ordering::Release);
    }
    let control = control(space);
    control.life.store(ARMED, Ordering::Release);
    futex_wake(&control.life);
    while control.go.load(Ordering::Acquire) == 0 {
        futex_wait(&control.go, 0);
    }
    #[expect(unsafe_code)]
    // SAFETY: the init's copy of the call's plan, alive and unchanged
    // until this process has called `execve` or exited (see `fire`).
    let plan = unsafe { &*(control.plan.load(Ordering::Acquire) as *const ChildPlan<'_>) };
    spawn::armed_program_main(plan, space)
}

/// Copies the command of `plan` into the area of the space at `space`, as
/// [`ArmedSpace::pins`] says: the program's path, then the pointer lists,
/// with their strings after. The pinned pointers, or `None` when it does
/// not fit.
#[expect(unsafe_code)]
pub(super) fn fill(
    space: usize,
    plan: &ChildPlan<'_>,
) -> Option<(*const c_char, *const *const c_char, *const *const c_char)> {
    if !fits(plan) {
        return None;
    }
    let area = space + AREA;
    let argv = area as *mut *const c_char;
    let envp = (area + ARGV_SLOTS * std::mem::size_of::<usize>()) as *mut *const c_char;
    let mut next = (area + STRINGS) as *mut c_char;
    // SAFETY: `fits` checked that every string and pointer fits in the
    // area, which this process alone writes (its init waits); each source
    // is a NUL-terminated string of the plan, alive until `execve`.
    unsafe {
        let mut copy = |string: *const c_char| {
            let length = libc::strlen(string) + 1;
            std::ptr::copy_nonoverlapping(string, next, length);
            let copied = next.cast_const();
            next = next.add(length);
            copied
        };
        let path = copy(plan.program.as_ptr());
        for (list, out) in [(plan.argv, argv), (plan.envp, envp)] {
            let mut i = 0;
            while let Some(&string) = list.get(i).filter(|p| !p.is_null()) {
                *out.add(i) = copy(string);
                i += 1;
            }
            *out.add(i) = std::ptr::null();
        }
        Some((path, argv.cast_const(), envp.cast_const()))
    }
}

/// Waits while `word` holds `value` (or until a signal or a spurious
/// wake-up: callers check again). Raw: errno, which this process shares
/// with its init and the init's thread, is never read.
#[expect(unsafe_code)]
fn futex_wait(word: &AtomicU32, value: u32) {
    // SAFETY: a futex wait on a live word of shared memory (not private:
    // the waiter and the waker are different processes, sharing it).
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT,
            value,
            std::ptr::null::<libc::timespec>(),
        );
    }
}

/// Wakes whoever waits on `word`.
#[expect(unsafe_code)]
fn futex_wake(word: &AtomicU32) {
    // SAFETY: a futex wake on a live word.
    unsafe {
        libc::syscall(libc::SYS_futex, word.as_ptr(), libc::FUTEX_WAKE, c_int::MAX);
    }
}
