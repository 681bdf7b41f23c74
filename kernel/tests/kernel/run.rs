//! Supervision: exit codes, signals, timeouts, process groups, cancellation.

use std::time::Duration;

use jig_kernel::{CancelToken, Ended, Limits, RunOptions, Status};

use crate::{Workspace, assert_all_dead, is_alive, read_pids};

#[test]
fn exit_codes_are_real() {
    let ws = Workspace::new();
    for (argv, code) in [
        (vec!["true"], 0),
        (vec!["false"], 1),
        (vec!["sh", "-c", "exit 42"], 42),
    ] {
        let outcome = ws.kernel.run(&argv).unwrap();
        assert_eq!(outcome.status, Status::Exited(code), "{argv:?}");
        assert_eq!(outcome.ended_by_kernel, None);
    }
}

#[test]
fn death_by_signal_is_reported() {
    let ws = Workspace::new();
    let outcome = ws.kernel.run(&["sh", "-c", "kill -9 $$"]).unwrap();
    assert_eq!(outcome.status, Status::Signaled(9));
    assert_eq!(outcome.signal(), Some(9));
    assert_eq!(outcome.exit_code(), None);
}

#[test]
fn a_timeout_ends_children_and_grandchildren() {
    let ws =
        Workspace::bare_with_limits(Limits::default().with_timeout(Duration::from_millis(500)));
    // The shell starts two grandchildren in the background (one of which
    // ignores SIGTERM, so only the kill after the grace ends it) and waits.
    let script = "trap '' TERM; sleep 60 & echo $! > pids; \
                  sh -c 'trap \"\" TERM; sleep 60' & echo $! >> pids; \
                  echo $$ >> pids; wait";
    let outcome = ws.kernel.run(&["sh", "-c", script]).unwrap();
    assert!(outcome.timed_out());
    assert_eq!(
        outcome.ended_by_kernel,
        Some(Ended::Timeout(Duration::from_millis(500)))
    );
    assert_eq!(outcome.status, Status::Signaled(9));
    let pids = read_pids(&ws.path("pids"), 3);
    assert_all_dead(&pids);
}

#[test]
fn a_timeout_with_a_python_tree_leaves_nothing() {
    let ws =
        Workspace::bare_with_limits(Limits::default().with_timeout(Duration::from_millis(500)));
    let script = "import os, time\n\
                  for _ in range(3):\n\
                  \x20   if os.fork() == 0:\n\
                  \x20       if os.fork() == 0:\n\
                  \x20           open('pids', 'a').write(f'{os.getpid()}\\n'); time.sleep(60)\n\
                  \x20       time.sleep(60)\n\
                  time.sleep(60)\n";
    let outcome = ws.kernel.run(&["python3", "-c", script]).unwrap();
    assert!(outcome.timed_out());
    let pids = read_pids(&ws.path("pids"), 3);
    assert_all_dead(&pids);
}

#[test]
fn background_jobs_end_with_the_call() {
    let ws = Workspace::bare();
    let outcome = ws
        .kernel
        .run(&["sh", "-c", "sleep 60 & echo $! > bg; echo started"])
        .unwrap();
    assert_eq!(outcome.exit_code(), Some(0));
    assert!(!outcome.output_held_open);
    assert_eq!(outcome.output.text(), "started\n");
    let pids = read_pids(&ws.path("bg"), 1);
    assert_all_dead(&pids);
}

#[test]
fn an_escaped_descendant_does_not_hang_the_call() {
    let ws = Workspace::bare();
    // `setsid` puts the sleeper in a new session and process group, out of
    // the kernel's reach; it keeps the output pipe open.
    let script = "setsid sh -c 'echo $$ > escaped; exec sleep 60' & \
                  while [ ! -s escaped ]; do sleep 0.01; done; echo parent done";
    let outcome = ws.kernel.run(&["sh", "-c", script]).unwrap();
    let escaped = read_pids(&ws.path("escaped"), 1);
    let still_alive = is_alive(escaped[0]);
    // End it ourselves: a test ends every process it starts.
    let _ = nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(escaped[0]),
        nix::sys::signal::Signal::SIGKILL,
    );
    assert!(
        still_alive,
        "the escaped process should be out of the kernel's reach"
    );
    assert_eq!(outcome.exit_code(), Some(0));
    assert!(!outcome.timed_out());
    assert!(outcome.output_held_open);
    assert!(
        outcome
            .render()
            .ends_with("note: a background process kept the output open; it was not waited for")
    );
}

#[test]
fn cancelling_ends_the_process_group() {
    let ws = Workspace::bare();
    let cancel = CancelToken::new();
    let options = RunOptions::new(ws.kernel.limits()).with_cancel(cancel.clone());
    let outcome = std::thread::scope(|scope| {
        let run = scope.spawn(|| {
            ws.kernel
                .run_with(&["sh", "-c", "sleep 60 & echo $! > bg; wait"], &options)
                .unwrap()
        });
        read_pids(&ws.path("bg"), 1);
        cancel.cancel();
        run.join().unwrap()
    });
    assert_eq!(outcome.ended_by_kernel, Some(Ended::Cancelled));
    assert_all_dead(&read_pids(&ws.path("bg"), 1));
}

#[test]
fn a_child_that_closes_its_output_early_is_still_waited_for() {
    let ws = Workspace::new();
    let outcome = ws
        .kernel
        .run(&["sh", "-c", "echo before; exec >&- 2>&-; sleep 0.3; exit 7"])
        .unwrap();
    assert_eq!(outcome.exit_code(), Some(7));
    assert_eq!(outcome.output.text(), "before\n");
}
