//! Building a kernel, resolving programs, the environment and descriptors.

use std::os::fd::AsRawFd;
use std::os::unix::fs::PermissionsExt;

use jig_kernel::{Kernel, KernelError};

use crate::Workspace;

#[test]
fn a_missing_root_is_its_own_error() {
    let dir = tempfile::tempdir().unwrap();
    let error = Kernel::builder(dir.path().join("nope"))
        .build()
        .unwrap_err();
    assert!(matches!(error, KernelError::RootMissing { .. }), "{error}");
}

#[test]
fn a_root_that_is_a_file_is_its_own_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, "x").unwrap();
    let error = Kernel::builder(&file).build().unwrap_err();
    assert!(
        matches!(error, KernelError::RootNotDirectory { .. }),
        "{error}"
    );
}

#[test]
fn the_root_is_canonical_and_is_the_working_directory() {
    let ws = Workspace::new();
    let link = ws.path("link");
    std::os::unix::fs::symlink(ws.dir.path(), &link).unwrap();
    let kernel = Kernel::builder(&link).build().unwrap();
    assert_eq!(kernel.root(), std::fs::canonicalize(ws.dir.path()).unwrap());
    let outcome = kernel.run(&["pwd"]).unwrap();
    assert_eq!(
        outcome.output.text(),
        format!("{}\n", kernel.root().display())
    );
}

#[test]
fn a_missing_program_is_its_own_error() {
    let ws = Workspace::new();
    let error = ws.kernel.run(&["no-such-program-jig"]).unwrap_err();
    assert!(
        matches!(error, KernelError::ProgramNotFound { .. }),
        "{error}"
    );
    assert_eq!(
        error.to_string(),
        "program `no-such-program-jig` not found on the search path /usr/local/bin:/usr/bin:/bin"
    );
}

#[test]
fn a_non_executable_file_is_its_own_error() {
    let ws = Workspace::new();
    let script = ws.path("script");
    std::fs::write(&script, "echo hi\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o644)).unwrap();
    let error = ws.kernel.run(&["./script"]).unwrap_err();
    assert!(
        matches!(error, KernelError::NotExecutable { .. }),
        "{error}"
    );
    // Executable bit but no interpreter line and not a binary: exec fails.
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(&script, [0u8, 1, 2, 3]).unwrap();
    let error = ws.kernel.run(&["./script"]).unwrap_err();
    assert!(
        matches!(error, KernelError::NotExecutable { .. }),
        "{error}"
    );
}

#[test]
fn programs_resolve_on_the_fixed_search_path_only() {
    let ws = Workspace::new();
    let bin = ws.path("bin");
    std::fs::create_dir(&bin).unwrap();
    let kernel = Kernel::builder(ws.dir.path())
        .search_path([&bin])
        .build()
        .unwrap();
    assert!(matches!(
        kernel.run(&["echo", "x"]).unwrap_err(),
        KernelError::ProgramNotFound { .. }
    ));
    assert_eq!(
        ws.kernel
            .resolve("echo".as_ref())
            .unwrap()
            .parent()
            .unwrap()
            .to_str()
            .unwrap(),
        ws.kernel
            .search_path()
            .iter()
            .find(|d| d.join("echo").exists())
            .unwrap()
            .to_str()
            .unwrap()
    );
}

#[test]
fn empty_argv_and_nul_bytes_are_errors() {
    let ws = Workspace::new();
    let empty: [&str; 0] = [];
    assert!(matches!(
        ws.kernel.run(&empty).unwrap_err(),
        KernelError::EmptyArgv
    ));
    assert!(matches!(
        ws.kernel.run(&["echo", "a\0b"]).unwrap_err(),
        KernelError::NulInArgument { index: 1 }
    ));
}

#[test]
fn the_environment_is_the_allow_list_only() {
    // Cargo sets CARGO_MANIFEST_DIR in the environment of every test process.
    assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some() || std::env::var_os("PATH").is_some());
    let dir = tempfile::tempdir().unwrap();
    let kernel = Kernel::builder(dir.path())
        .env("JIG_EXTRA", "named by the integrator")
        .build()
        .unwrap();
    let outcome = kernel
        .run_with(
            &["env"],
            &jig_kernel::RunOptions::new(kernel.limits().with_max_output(1 << 16)),
        )
        .unwrap();
    let mut keys: Vec<String> = outcome
        .output
        .text()
        .lines()
        .filter_map(|l| l.split_once('=').map(|(k, _)| k.to_owned()))
        .collect();
    keys.sort();
    assert_eq!(
        keys,
        ["HOME", "JIG_EXTRA", "LC_CTYPE", "PATH", "TERM", "TMPDIR"]
    );
    let text = outcome.output.text();
    assert!(text.contains("HOME=/nonexistent\n"));
    assert!(text.contains("PATH=/usr/local/bin:/usr/bin:/bin\n"));
    assert!(text.contains("LC_CTYPE=C.UTF-8\n"));
}

/// How many lines of `chars.txt` (one two-byte character) grep reads as
/// one character: 1 in a UTF-8 locale, 0 in C, where it is two bytes.
fn one_character_lines(kernel: &Kernel, options: &jig_kernel::RunOptions) -> String {
    let outcome = kernel
        .run_with(&["grep", "-c", "^.$", "chars.txt"], options)
        .unwrap();
    outcome.output.text().trim().to_owned()
}

#[test]
fn a_program_reads_utf8_characters_by_default_contained_or_not() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("chars.txt"), "\u{e9}\n").unwrap();
    for kernel in [
        Kernel::builder(dir.path()).build().unwrap(),
        Kernel::builder(dir.path())
            .dangerous_no_containment()
            .build()
            .unwrap(),
    ] {
        let options = jig_kernel::RunOptions::new(kernel.limits());
        assert_eq!(one_character_lines(&kernel, &options), "1");
        let lang = options.clone().with_env("LANG", "C");
        assert_eq!(one_character_lines(&kernel, &lang), "0");
        let ctype = options.with_env("LC_CTYPE", "C");
        assert_eq!(one_character_lines(&kernel, &ctype), "0");
    }
}

#[test]
fn a_lang_named_by_the_integrator_replaces_the_default_character_type() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("chars.txt"), "\u{e9}\n").unwrap();
    let kernel = Kernel::builder(dir.path())
        .env("LANG", "C")
        .build()
        .unwrap();
    let options = jig_kernel::RunOptions::new(kernel.limits());
    assert_eq!(one_character_lines(&kernel, &options), "0");
    let outcome = kernel.run_with(&["env"], &options).unwrap();
    let text = outcome.output.text();
    assert!(text.contains("LANG=C\n"), "{text}");
    assert!(!text.contains("LC_CTYPE"), "{text}");
}

/// A file in `dir` this process holds open without close-on-exec, as a
/// foreign library or the parent's parent might leave one.
fn inheritable_file(dir: &std::path::Path) -> std::fs::File {
    let file = std::fs::File::create(dir.join("held-open")).unwrap();
    let flags = nix::fcntl::FdFlag::empty();
    nix::fcntl::fcntl(&file, nix::fcntl::FcntlArg::F_SETFD(flags)).unwrap();
    file
}

#[test]
fn no_descriptor_beyond_the_standard_three_reaches_the_child() {
    let dir = tempfile::tempdir().unwrap();
    let file = inheritable_file(dir.path());
    let inheritable = file.as_raw_fd();
    let kernel = Kernel::builder(dir.path())
        .dangerous_no_containment()
        .build()
        .unwrap();
    // The shell lists its own descriptors (ls's own directory handle is in
    // the ls process, not in the shell's).
    let outcome = kernel.run(&["sh", "-c", "ls /proc/$$/fd"]).unwrap();
    let mut fds: Vec<i32> = outcome
        .output
        .text()
        .split_whitespace()
        .map(|f| f.parse().unwrap())
        .collect();
    fds.sort();
    assert_eq!(fds, [0, 1, 2], "descriptor {inheritable} must not leak");
}

#[test]
fn a_contained_program_gets_the_standard_three_descriptors_only_call_after_call() {
    // As above, contained: the first call's init is cloned for it, the
    // next ones are made ahead (warm) and get the call's descriptors sent.
    let dir = tempfile::tempdir().unwrap();
    let _file = inheritable_file(dir.path());
    let kernel = Kernel::builder(dir.path()).build().unwrap();
    for _ in 0..4 {
        // `ls` lists its own descriptors: the three, and the one it reads
        // the folder through.
        let outcome = kernel.run(&["ls", "-l", "/proc/self/fd/"]).unwrap();
        let text = outcome.output.text();
        let targets: Vec<&str> = text
            .lines()
            .filter_map(|line| line.split_once(" -> ").map(|(_, target)| target))
            .collect();
        assert_eq!(targets.len(), 4, "{text}");
        assert_eq!(targets[0], "/dev/null", "{text}");
        assert!(targets[1].starts_with("pipe:"), "{text}");
        assert_eq!(targets[1], targets[2], "{text}");
        assert!(!text.contains("held-open"), "{text}");
    }
}

#[test]
fn stdin_is_at_end_of_file() {
    let ws = Workspace::new();
    let outcome = ws.kernel.run(&["cat"]).unwrap();
    assert_eq!(outcome.exit_code(), Some(0));
    assert!(!outcome.timed_out());
    assert_eq!(outcome.output.text(), "");
}

#[test]
fn eight_threads_run_at_once() {
    let ws = Workspace::bare();
    let kernel = &ws.kernel;
    let outcomes: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|i| {
                scope.spawn(move || {
                    kernel
                        .run(&["sh", "-c", &format!("sleep 0.2; echo call {i}")])
                        .unwrap()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (i, outcome) in outcomes.iter().enumerate() {
        assert_eq!(outcome.exit_code(), Some(0));
        assert_eq!(outcome.output.text(), format!("call {i}\n"));
    }
}

#[test]
fn a_kernel_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync + Clone>() {}
    assert_send_sync::<Kernel>();
}

#[test]
fn a_mechanism_left_out_is_reported_missing_and_required_refuses_it() {
    use jig_kernel::{Containment, Mechanism};
    let dir = tempfile::tempdir().unwrap();
    for (mechanism, missing) in [
        (Mechanism::Namespaces, "user namespaces"),
        (Mechanism::Landlock, "landlock"),
        (Mechanism::Seccomp, "seccomp"),
    ] {
        let kernel = Kernel::builder(dir.path())
            .dangerous_without(mechanism)
            .build()
            .unwrap();
        let confinement = kernel.confinement();
        assert!(
            confinement.missing().iter().any(|m| m.starts_with(missing)),
            "{mechanism:?}: {confinement}"
        );
        let outcome = kernel.run(&["true"]).unwrap();
        assert_eq!(outcome.exit_code(), Some(0), "{}", outcome.render());
        assert_eq!(outcome.confinement, confinement);
        let required = Kernel::builder(dir.path())
            .containment(Containment::required())
            .dangerous_without(mechanism)
            .build();
        assert!(
            matches!(required, Err(KernelError::ContainmentUnavailable { .. })),
            "{mechanism:?}"
        );
    }
}

extern "C" fn ignore_signal(_: libc::c_int) {}

#[test]
fn a_program_starts_with_every_signal_at_its_default_action() {
    // This process ignores SIGPIPE (as every Rust program does) and, for
    // this test, SIGUSR1, and catches SIGUSR2: none of it may reach the
    // program, whose ignored signals would stay ignored across `execve`.
    #[expect(unsafe_code)]
    // SAFETY: setting dispositions of signals no other test uses; the
    // handler does nothing.
    unsafe {
        libc::signal(libc::SIGUSR1, libc::SIG_IGN);
        libc::signal(
            libc::SIGUSR2,
            ignore_signal as extern "C" fn(libc::c_int) as usize,
        );
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    assert!(
        status
            .lines()
            .any(|l| l.starts_with("SigIgn:") && !l.ends_with("0000000000000000"))
    );
    let ws = Workspace::new();
    // Call after call: the first call's init may be cloned for it, the
    // next ones are made ahead, and reset what they inherited themselves.
    for _ in 0..3 {
        let outcome = ws.kernel.run(&["cat", "/proc/self/status"]).unwrap();
        assert_eq!(outcome.exit_code(), Some(0), "{}", outcome.output.text());
        let text = outcome.output.text();
        // No signal handled, and no capability at all, the bounding set
        // included.
        for field in [
            "SigIgn:", "SigCgt:", "SigBlk:", "CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:",
        ] {
            let line = text.lines().find(|l| l.starts_with(field)).unwrap();
            assert!(line.ends_with("0000000000000000"), "{line}");
        }
    }
}
