//! The cases: one hostile effect each, tried off then on.

use std::net::{TcpListener, UdpSocket};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixListener;
use std::path::Path;
use std::time::{Duration, Instant};

use jig_kernel::{Access, Confinement};

use crate::integrator::Launch;
use crate::support::{self, World, kill_all, survivors, twice};

type Case = (&'static str, fn());

pub(crate) const ALL: &[Case] = &[
    (
        "confinement_is_complete_and_reported",
        confinement_is_complete_and_reported,
    ),
    ("write_outside_the_workspace", write_outside_the_workspace),
    (
        "write_inside_during_a_read_only_call",
        write_inside_during_a_read_only_call,
    ),
    (
        "read_a_canary_outside_the_workspace",
        read_a_canary_outside_the_workspace,
    ),
    ("read_the_integrators_environ", read_the_integrators_environ),
    (
        "read_the_integrators_command_line",
        read_the_integrators_command_line,
    ),
    (
        "connect_to_a_loopback_tcp_listener",
        connect_to_a_loopback_tcp_listener,
    ),
    (
        "connect_to_a_unix_socket_outside",
        connect_to_a_unix_socket_outside,
    ),
    ("send_a_udp_datagram", send_a_udp_datagram),
    (
        "send_a_datagram_to_a_unix_socket_outside",
        send_a_datagram_to_a_unix_socket_outside,
    ),
    (
        "reach_an_abstract_unix_socket",
        reach_an_abstract_unix_socket,
    ),
    (
        "push_input_into_the_integrators_terminal",
        push_input_into_the_integrators_terminal,
    ),
    ("make_a_namespace_of_its_own", make_a_namespace_of_its_own),
    (
        "change_metadata_outside_during_a_write_call",
        change_metadata_outside_during_a_write_call,
    ),
    (
        "make_a_set_user_id_program_in_a_write_call",
        make_a_set_user_id_program_in_a_write_call,
    ),
    (
        "chmod_during_a_read_only_call",
        chmod_during_a_read_only_call,
    ),
    ("start_a_shell_from_find_exec", start_a_shell_from_find_exec),
    ("start_a_shell_from_sed_e", start_a_shell_from_sed_e),
    (
        "start_a_shell_through_the_loader",
        start_a_shell_through_the_loader,
    ),
    ("start_a_shell_from_a_memfd", start_a_shell_from_a_memfd),
    (
        "exec_a_copy_in_the_temporary_folder",
        exec_a_copy_in_the_temporary_folder,
    ),
    (
        "setsid_double_fork_outlives_the_call",
        setsid_double_fork_outlives_the_call,
    ),
    ("fork_bomb_is_bounded", fork_bomb_is_bounded),
    (
        "the_call_is_the_out_of_memory_killers_first_choice",
        the_call_is_the_out_of_memory_killers_first_choice,
    ),
    (
        "turn_the_count_off_then_fork_bomb",
        turn_the_count_off_then_fork_bomb,
    ),
    ("thread_bomb_is_bounded", thread_bomb_is_bounded),
    ("fill_the_temporary_folder", fill_the_temporary_folder),
    (
        "sigkill_of_the_integrator_ends_its_calls",
        sigkill_of_the_integrator_ends_its_calls,
    ),
    (
        "without_namespaces_nothing_outlives_the_call_either",
        without_namespaces_nothing_outlives_the_call_either,
    ),
    (
        "without_namespaces_metadata_changes_stay_inside",
        without_namespaces_metadata_changes_stay_inside,
    ),
    (
        "without_namespaces_signals_reach_only_the_calls_processes",
        without_namespaces_signals_reach_only_the_calls_processes,
    ),
    (
        "plant_a_tool_then_have_the_integrator_killed",
        plant_a_tool_then_have_the_integrator_killed,
    ),
    (
        "unprivileged_integrator_is_contained_the_same",
        unprivileged_integrator_is_contained_the_same,
    ),
    (
        "a_write_call_may_write_the_workspace",
        a_write_call_may_write_the_workspace,
    ),
    (
        "the_temporary_folder_is_private_and_removed",
        the_temporary_folder_is_private_and_removed,
    ),
    (
        "a_sort_killed_at_its_timeout_leaves_no_temporary_file",
        a_sort_killed_at_its_timeout_leaves_no_temporary_file,
    ),
    (
        "a_mount_point_name_taken_by_another_is_not_used",
        a_mount_point_name_taken_by_another_is_not_used,
    ),
    ("a_declared_helper_may_run", a_declared_helper_may_run),
    (
        "protected_paths_and_secret_files",
        protected_paths_and_secret_files,
    ),
    (
        "a_secret_file_made_after_the_folders_were_searched",
        a_secret_file_made_after_the_folders_were_searched,
    ),
    ("a_path_protected_for_one_run", a_path_protected_for_one_run),
    (
        "reach_the_hosts_ipc_keys_and_watches",
        reach_the_hosts_ipc_keys_and_watches,
    ),
    (
        "move_a_protected_folder_away_or_make_a_missing_one",
        move_a_protected_folder_away_or_make_a_missing_one,
    ),
    (
        "replace_a_protected_path_during_a_write_call",
        replace_a_protected_path_during_a_write_call,
    ),
    (
        "a_waiting_init_holds_nothing_and_ends_with_the_integrator",
        a_waiting_init_holds_nothing_and_ends_with_the_integrator,
    ),
    (
        "a_call_whose_waiting_init_was_killed_still_runs",
        a_call_whose_waiting_init_was_killed_still_runs,
    ),
    (
        "a_one_call_process_prepares_no_second_init_and_its_init_ends_with_it",
        a_one_call_process_prepares_no_second_init_and_its_init_ends_with_it,
    ),
    (
        "a_one_call_process_that_makes_more_keeps_one_init",
        a_one_call_process_that_makes_more_keeps_one_init,
    ),
    (
        "every_call_runs_on_the_integrators_processors",
        every_call_runs_on_the_integrators_processors,
    ),
    (
        "an_armed_program_is_contained_as_a_cloned_one",
        an_armed_program_is_contained_as_a_cloned_one,
    ),
    (
        "alternating_access_gets_each_calls_own_rules",
        alternating_access_gets_each_calls_own_rules,
    ),
    (
        "an_armed_program_that_cannot_start_is_reported",
        an_armed_program_that_cannot_start_is_reported,
    ),
];

fn py(script: &str) -> Vec<String> {
    vec!["python3".into(), "-c".into(), script.into()]
}

fn run_py(world: &World, contained: bool, access: Access, script: &str) -> String {
    let argv = py(script);
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    world.run(contained, access, &argv).render()
}

fn confinement_is_complete_and_reported() {
    let world = World::new();
    let kernel = world.kernel(true, support::limits());
    let confinement = kernel.confinement();
    assert!(
        confinement.is_complete(),
        "missing: {:?}",
        confinement.missing()
    );
    let text = confinement.to_string();
    for part in [
        "landlock abi",
        "seccomp",
        "user+pid+mount namespaces",
        "private /proc",
    ] {
        assert!(text.contains(part), "{text}");
    }
    let outcome = world.run(true, Access::ReadOnly, &["true"]);
    assert_eq!(outcome.confinement, confinement);
    assert_eq!(outcome.access, Access::ReadOnly);
    let bare = world.run(false, Access::ReadOnly, &["true"]);
    assert_eq!(bare.confinement, Confinement::none());
    assert_eq!(
        bare.confinement.to_string(),
        "none: commands are not contained"
    );
}

fn write_outside_the_workspace() {
    let world = World::new();
    let target = world.out("written");
    let script = format!("open({:?}, 'w').write('x')", target.display().to_string());
    twice("write outside", |on| {
        let _ = std::fs::remove_file(&target);
        run_py(&world, on, Access::WriteWorkspace, &script);
        target.exists()
    });
}

fn write_inside_during_a_read_only_call() {
    let world = World::new();
    let target = world.ws("inside.txt");
    twice("write inside, read-only", |on| {
        let _ = std::fs::remove_file(&target);
        run_py(
            &world,
            on,
            Access::ReadOnly,
            "open('inside.txt', 'w').write('x')",
        );
        target.exists()
    });
    // Nor may a read-only call remove or rename what is there.
    std::fs::write(&target, "kept").unwrap();
    run_py(
        &world,
        true,
        Access::ReadOnly,
        "import os; os.rename('inside.txt', 'moved')",
    );
    run_py(
        &world,
        true,
        Access::ReadOnly,
        "import os; os.remove('inside.txt')",
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept");
}

fn read_a_canary_outside_the_workspace() {
    let world = World::new();
    let canary = world.out("canary.txt");
    let script = format!("print(open({:?}).read())", canary.display().to_string());
    twice("read outside", |on| {
        run_py(&world, on, Access::ReadOnly, &script).contains(&world.canary)
    });
    // Nor by a symbolic link planted in the workspace.
    std::os::unix::fs::symlink(&canary, world.ws("link")).unwrap();
    let through_link = run_py(&world, true, Access::ReadOnly, "print(open('link').read())");
    assert!(!through_link.contains(&world.canary), "{through_link}");
}

/// A Python script that prints the `file` of its parent's `/proc` entry
/// and of every entry `/proc` lists to it, skipping those it cannot read.
fn every_proc_file(file: &str) -> String {
    format!(
        "import os\n\
         seen = []\n\
         for pid in [str(os.getppid())] + os.listdir('/proc'):\n\
         \x20   try: seen.append(open(f'/proc/{{pid}}/{file}', 'rb').read().decode('latin-1'))\n\
         \x20   except Exception: pass\n\
         print('\\n'.join(seen))"
    )
}

fn read_the_integrators_environ() {
    let world = World::new();
    let exe = std::env::current_exe().unwrap();
    // The call reads its parent's environment and every /proc/N/environ it
    // can see; the integrator holds the canary in its own environment.
    let script = every_proc_file("environ");
    twice("read the integrator's environ", |on| {
        let argv = ["python3", "-c", &script];
        let launch = Launch {
            contained: on,
            env: &[("JIG_SECRET", &world.canary)],
            exe: exe.clone(),
            ..Launch::in_world(&world, &argv)
        };
        launch.output().contains(&world.canary)
    });
}

fn read_the_integrators_command_line() {
    let world = World::new();
    // The call's init is a clone of this process, sharing its memory: its
    // command line is this test binary's. The call reads its parent's and
    // every /proc/N/cmdline it can see.
    let exe = std::env::current_exe().unwrap();
    let name = exe.file_name().unwrap().to_string_lossy().into_owned();
    let script = every_proc_file("cmdline");
    twice("read the integrator's command line", |on| {
        run_py(&world, on, Access::ReadOnly, &script).contains(&name)
    });
    // The program still reads its own entries.
    let own = run_py(
        &world,
        true,
        Access::ReadOnly,
        "print(open('/proc/self/status').read().splitlines()[0])",
    );
    assert!(own.contains("Name:"), "{own}");
}

/// Whether `ready` turns true within half a second.
fn within_half_a_second(mut ready: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(500) {
        if ready() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

/// Accepts (bounded) one connection; whether any came.
fn accepted(listener: &TcpListener) -> bool {
    listener.set_nonblocking(true).unwrap();
    within_half_a_second(|| listener.accept().is_ok())
}

fn connect_to_a_loopback_tcp_listener() {
    let world = World::new();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let script = format!(
        "import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2).sendall(b'hi')"
    );
    twice("tcp connect", |on| {
        run_py(&world, on, Access::ReadOnly, &script);
        accepted(&listener)
    });
}

fn connect_to_a_unix_socket_outside() {
    let world = World::new();
    let path = world.out("listener.sock");
    let listener = UnixListener::bind(&path).unwrap();
    listener.set_nonblocking(true).unwrap();
    let script = format!(
        "import socket; s = socket.socket(socket.AF_UNIX); s.connect({:?}); s.sendall(b'hi')",
        path.display().to_string()
    );
    twice("unix connect", |on| {
        run_py(&world, on, Access::ReadOnly, &script);
        within_half_a_second(|| listener.accept().is_ok())
    });
}

fn send_a_udp_datagram() {
    let world = World::new();
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    socket
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let port = socket.local_addr().unwrap().port();
    let script = format!(
        "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'hi', ('127.0.0.1', {port}))"
    );
    twice("udp send", |on| {
        run_py(&world, on, Access::ReadOnly, &script);
        let mut buffer = [0u8; 16];
        socket.recv(&mut buffer).is_ok()
    });
}

/// A datagram socket of a pair (or a pair of "raw" Unix sockets, which are
/// datagram sockets) sends to whatever socket file it names, whatever its
/// pair: an address outside the workspace that Landlock does not check.
fn send_a_datagram_to_a_unix_socket_outside() {
    let world = World::new();
    let path = world.out("datagrams.sock");
    let listener = std::os::unix::net::UnixDatagram::bind(&path).unwrap();
    listener.set_nonblocking(true).unwrap();
    let mut buffer = [0u8; 64];
    for (kind, access) in [
        ("SOCK_DGRAM", Access::ReadOnly),
        ("SOCK_DGRAM", Access::WriteWorkspace),
        ("SOCK_RAW", Access::WriteWorkspace),
    ] {
        let script = format!(
            "import socket\n\
             a, b = socket.socketpair(socket.AF_UNIX, socket.{kind})\n\
             a.sendto(b'hi', {:?})",
            path.display().to_string()
        );
        twice(&format!("unix {kind} sendto, {access:?}"), |on| {
            run_py(&world, on, access, &script);
            within_half_a_second(|| listener.recv(&mut buffer).is_ok())
        });
    }
    // A pair of stream sockets still works inside the call.
    let outcome = world.run(
        true,
        Access::ReadOnly,
        &py("import socket\n\
             a, b = socket.socketpair()\n\
             a.sendall(b'pair')\n\
             print(b.recv(4).decode())")
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>(),
    );
    assert!(outcome.render().contains("pair"), "{}", outcome.render());
}

/// A socket of the call's own pair cannot reach one of the integrator's
/// abstract sockets (a name in the network namespace, not a file: no
/// file rule covers it): not by a datagram sent to its name, not by
/// connecting the pair's socket to it, not with its own socket.
/// A program that reaches the terminal its integrator runs on can push
/// input into it (`TIOCSTI`), which the user's shell reads as typed once
/// the integrator is done. The integrator runs with a pseudo-terminal this
/// test holds as its controlling terminal and standard input; its program
/// opens `/dev/tty` and the terminal's own device and pushes a line into
/// each. Uncontained (as root, whom `TIOCSTI` lets push into any terminal)
/// the line arrives. Contained, none does, in every tier: the call has no
/// controlling terminal (its init leads a session of its own, which
/// `TIOCSTI` needs without `CAP_SYS_ADMIN`, and the program has no
/// capability) and the filter refuses the request, even where Landlock,
/// which keeps the devices out of reach, is missing.
fn push_input_into_the_integrators_terminal() {
    use nix::sys::termios::{self, LocalFlags, SetArg};
    use std::io::Read;
    let world = World::new();
    let marker = format!("PUSHED-{}", support::nonce());
    for (tier, contained, without) in [
        ("off", false, ""),
        ("every mechanism", true, ""),
        ("without Landlock", true, "landlock"),
        ("namespaces only", true, "landlock,seccomp"),
        ("seccomp only", true, "namespaces,landlock"),
        ("no mechanism", true, "namespaces,landlock,seccomp"),
    ] {
        let pty = nix::pty::openpty(None, None).unwrap();
        let device = nix::unistd::ttyname(&pty.slave).unwrap();
        // What arrives is read byte by byte, without echo.
        let mut mode = termios::tcgetattr(&pty.slave).unwrap();
        mode.local_flags
            .remove(LocalFlags::ICANON | LocalFlags::ECHO);
        termios::tcsetattr(&pty.slave, SetArg::TCSANOW, &mode).unwrap();
        let script = format!(
            "import os, fcntl, termios\n\
             seen = []\n\
             for path in ['/dev/tty', '{device}']:\n\
             \x20   try:\n\
             \x20       fd = os.open(path, os.O_RDWR | os.O_NOCTTY)\n\
             \x20   except OSError as e:\n\
             \x20       seen.append(path + ': ' + e.strerror)\n\
             \x20       continue\n\
             \x20   try:\n\
             \x20       for c in b'{marker}\\n':\n\
             \x20           fcntl.ioctl(fd, termios.TIOCSTI, bytes([c]))\n\
             \x20       seen.append(path + ': pushed')\n\
             \x20   except OSError as e:\n\
             \x20       seen.append(path + ': ' + e.strerror)\n\
             print('terminal:', '; '.join(seen))",
            device = device.display()
        );
        let argv = ["python3", "-c", &script];
        let env = [(crate::integrator::WITHOUT, without)];
        let launch = Launch {
            contained,
            env: if without.is_empty() { &[] } else { &env },
            ..Launch::in_world(&world, &argv)
        };
        // The integrator leads a session whose terminal is the
        // pseudo-terminal, as a program started from a shell does.
        let inner = launch.command();
        let mut command = std::process::Command::new("setsid");
        command
            .arg("--ctty")
            .arg(inner.get_program())
            .args(inner.get_args())
            .env_clear()
            .envs(
                inner
                    .get_envs()
                    .filter_map(|(key, value)| Some((key, value?))),
            )
            .stdin(std::process::Stdio::from(pty.slave.try_clone().unwrap()))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let output = command.output().expect("start setsid");
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            output.status.success() && text.contains("terminal:"),
            "{tier}: the program did not run: {text}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let flags = nix::fcntl::fcntl(&pty.slave, nix::fcntl::FcntlArg::F_GETFL).unwrap();
        let flags = nix::fcntl::OFlag::from_bits_truncate(flags) | nix::fcntl::OFlag::O_NONBLOCK;
        nix::fcntl::fcntl(&pty.slave, nix::fcntl::FcntlArg::F_SETFL(flags)).unwrap();
        let mut arrived = Vec::new();
        let _ = std::fs::File::from(pty.slave).read_to_end(&mut arrived);
        let pushed = String::from_utf8_lossy(&arrived).contains(&marker);
        if contained {
            assert!(
                !pushed,
                "{tier}: input reached the integrator's terminal: {text}"
            );
        } else {
            assert!(pushed, "uncontained, the line should arrive: {text}");
        }
        drop(pty.master);
    }
}

/// A user namespace of the program's own gives it every capability there,
/// and with them the parts of the operating system only a namespace's
/// root reaches (mounts, network configuration), where many of its
/// exploitable flaws have been. The program makes one with `unshare`, then
/// with `clone` (the way `unshare` and `clone3` are refused differs: the C
/// library falls back from `clone3` to `clone`): uncontained (as root)
/// both work; contained, neither does, while its threads and forks still
/// start (a thread through `clone3` first, then `clone`).
fn make_a_namespace_of_its_own() {
    let world = World::new();
    let script = "import ctypes, os, threading\n\
        libc = ctypes.CDLL(None, use_errno=True)\n\
        made = []\n\
        for flag, name in [(0x10000000, 'user'), (0x20000, 'mount'), (0x40000000, 'network')]:\n\
        \x20   pid = os.fork()\n\
        \x20   if pid == 0:\n\
        \x20       os._exit(0 if libc.unshare(flag) == 0 else 1)\n\
        \x20   if os.waitpid(pid, 0)[1] == 0:\n\
        \x20       made.append('unshare ' + name)\n\
        stack = ctypes.create_string_buffer(65536)\n\
        child = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)(lambda _: 0)\n\
        top = ctypes.c_void_p(ctypes.addressof(stack) + 65536)\n\
        pid = libc.clone(child, top, 0x10000000 | 17, None)\n\
        if pid > 0:\n\
        \x20   os.waitpid(pid, 0)\n\
        \x20   made.append('clone user')\n\
        print('namespaces made:', ', '.join(made) or 'none')\n\
        ran = []\n\
        t = threading.Thread(target=lambda: ran.append(1))\n\
        t.start(); t.join()\n\
        pid = os.fork()\n\
        if pid == 0:\n\
        \x20   os._exit(7)\n\
        print('thread ran:', ran == [1], 'fork exit:', os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))";
    twice("make a namespace of its own", |on| {
        let text = run_py(&world, on, Access::ReadOnly, script);
        assert!(
            text.contains("thread ran: True fork exit: 7"),
            "threads and forks must start: {text}"
        );
        if on {
            assert!(text.contains("namespaces made: none"), "{text}");
        }
        !text.contains("namespaces made: none")
    });
}

fn reach_an_abstract_unix_socket() {
    use std::os::linux::net::SocketAddrExt;
    let world = World::new();
    let name = format!("jig-contain-{}", std::process::id());
    let address = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
    let datagrams = std::os::unix::net::UnixDatagram::bind_addr(&address).unwrap();
    datagrams.set_nonblocking(true).unwrap();
    let mut buffer = [0u8; 64];
    let tries = [
        ("sendto", "a.sendto(b'hi', NAME)"),
        ("connect then send", "a.connect(NAME)\na.send(b'hi')"),
        (
            "its own socket",
            "c = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\nc.sendto(b'hi', NAME)",
        ),
    ];
    for (how, code) in tries {
        for access in [Access::ReadOnly, Access::WriteWorkspace] {
            let script = format!(
                "import socket\n\
                 NAME = '\\0{name}'\n\
                 a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)\n\
                 {code}"
            );
            twice(&format!("abstract datagram, {how}, {access:?}"), |on| {
                let output = run_py(&world, on, access, &script);
                let got = within_half_a_second(|| datagrams.recv(&mut buffer).is_ok());
                assert!(got || on, "{output}");
                got
            });
        }
    }
    // A datagram socket of the pair connected to a path outside.
    let path = world.out("connected.sock");
    let outside = std::os::unix::net::UnixDatagram::bind(&path).unwrap();
    outside.set_nonblocking(true).unwrap();
    let script = format!(
        "import socket\n\
         a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)\n\
         a.connect({:?})\n\
         a.send(b'hi')",
        path.display().to_string()
    );
    twice("path datagram, connect then send", |on| {
        run_py(&world, on, Access::WriteWorkspace, &script);
        within_half_a_second(|| outside.recv(&mut buffer).is_ok())
    });
}

/// A write call may set the modes of its workspace's files, but not the
/// set-user-id or set-group-id bit, by a mode change or by making a file
/// with it: a copy of a program made set-user-id by a call of an
/// integrator running as root is root for any local user (and an empty
/// file made so keeps the bit when root writes a program into it).
fn make_a_set_user_id_program_in_a_write_call() {
    let world = World::new();
    let script = "import os, shutil\n\
                  for name, mode in (('uid', 0o4755), ('gid', 0o2755), ('both', 0o6777)):\n\
                  \x20   shutil.copy('/bin/true', name)\n\
                  \x20   try: os.chmod(name, mode)\n\
                  \x20   except OSError as error: print(error)\n\
                  \x20   fd = os.open(name, os.O_RDONLY)\n\
                  \x20   try: os.fchmod(fd, mode)\n\
                  \x20   except OSError as error: print(error)\n\
                  \x20   os.close(fd)\n\
                  os.umask(0)\n\
                  try: os.close(os.open('made', os.O_CREAT | os.O_WRONLY, 0o4755))\n\
                  except OSError as error: print(error)\n\
                  try: os.mknod('node', 0o102755)\n\
                  except OSError as error: print(error)\n\
                  open('plain', 'w').write('x')\n\
                  os.chmod('plain', 0o700)\n";
    let privileged = |name: &str| {
        std::fs::metadata(world.ws(name)).is_ok_and(|meta| meta.permissions().mode() & 0o6000 != 0)
    };
    twice("make a set-user-id program", |on| {
        run_py(&world, on, Access::WriteWorkspace, script);
        let made = ["uid", "gid", "both", "made", "node"]
            .into_iter()
            .any(privileged);
        for name in ["uid", "gid", "both", "made", "node"] {
            let _ = std::fs::remove_file(world.ws(name));
        }
        made
    });
    // Other modes stay the program's to set.
    let mode = std::fs::metadata(world.ws("plain"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o7777, 0o700);
}

/// Landlock does not cover a file's metadata: a call that may write the
/// workspace must still change no mode, time or extended attribute outside
/// it (a `chmod u+s` on a program of uid 0's is a privilege).
fn change_metadata_outside_during_a_write_call() {
    let world = World::new();
    let target = world.out("owned.txt");
    std::fs::write(&target, "x").unwrap();
    let folder = world.out("owned-folder");
    std::fs::create_dir(&folder).unwrap();
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o7777;
    let calls = format!(
        "lambda: os.chmod({t:?}, 0o4777), lambda: os.chmod({f:?}, 0o777), \
         lambda: os.utime({t:?}, (1, 1)), lambda: os.setxattr({t:?}, 'user.jig', b'1')",
        t = target.display().to_string(),
        f = folder.display().to_string(),
    );
    let script = format!(
        "import os\nfor call in ({calls}):\n    try: call()\n    except OSError as error: print(error)"
    );
    let known = std::time::UNIX_EPOCH + Duration::from_secs(1_000_000);
    let modified = |path: &Path| std::fs::metadata(path).unwrap().modified().unwrap();
    // Whether the file has the attribute, which is removed.
    let take_xattr = |path: &Path| {
        let taken = std::process::Command::new("python3")
            .args([
                "-c",
                "import os, sys\nif 'user.jig' in os.listxattr(sys.argv[1]):\n    \
                 os.removexattr(sys.argv[1], 'user.jig'); print('had it')",
            ])
            .arg(path)
            .output()
            .unwrap();
        String::from_utf8_lossy(&taken.stdout).contains("had it")
    };
    let mut changed = Vec::new();
    twice("metadata outside, write call", |on| {
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&target)
            .unwrap()
            .set_modified(known)
            .unwrap();
        run_py(&world, on, Access::WriteWorkspace, &script);
        let found = [
            mode(&target) != 0o644,
            mode(&folder) != 0o755,
            modified(&target) != known,
            take_xattr(&target),
        ];
        changed.push(found);
        found.iter().any(|&c| c)
    });
    // Each change happened without containment, none with it.
    assert_eq!(changed, [[true; 4], [false; 4]]);
    // Inside the workspace the same call may change a mode.
    let inside = world.ws("mine.sh");
    std::fs::write(&inside, "x").unwrap();
    std::fs::set_permissions(&inside, std::fs::Permissions::from_mode(0o644)).unwrap();
    let outcome = world.run(
        true,
        Access::WriteWorkspace,
        &["python3", "-c", "import os; os.chmod('mine.sh', 0o755)"],
    );
    assert_eq!(mode(&inside), 0o755, "{}", outcome.render());
}

fn chmod_during_a_read_only_call() {
    let world = World::new();
    let target = world.ws("mode.txt");
    std::fs::write(&target, "x").unwrap();
    twice("chmod, read-only", |on| {
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
        run_py(
            &world,
            on,
            Access::ReadOnly,
            "import os; os.chmod('mode.txt', 0o777)",
        );
        std::fs::metadata(&target).unwrap().permissions().mode() & 0o777 != 0o644
    });
    // Times and extended attributes are metadata too.
    let before = std::fs::metadata(&target).unwrap().modified().unwrap();
    run_py(
        &world,
        true,
        Access::ReadOnly,
        "import os; os.utime('mode.txt', (0, 0))",
    );
    assert_eq!(
        std::fs::metadata(&target).unwrap().modified().unwrap(),
        before
    );
}

fn start_a_shell_from_find_exec() {
    let world = World::new();
    std::fs::write(world.ws("a.txt"), "x").unwrap();
    twice("find -exec sh", |on| {
        world
            .run(
                on,
                Access::ReadOnly,
                &[
                    "find",
                    ".",
                    "-name",
                    "a.txt",
                    "-exec",
                    "/bin/sh",
                    "-c",
                    "echo SHELL-RAN",
                    ";",
                ],
            )
            .render()
            .contains("SHELL-RAN")
    });
}

fn start_a_shell_from_sed_e() {
    let world = World::new();
    std::fs::write(world.ws("a.txt"), "line\n").unwrap();
    twice("sed e", |on| {
        world
            .run(on, Access::ReadOnly, &["sed", "1e echo SHELL-RAN", "a.txt"])
            .render()
            .contains("SHELL-RAN")
    });
}

/// The dynamic loader must be executable for every dynamic program; run
/// directly, it would load any readable program.
fn start_a_shell_through_the_loader() {
    let world = World::new();
    std::fs::write(world.ws("a.txt"), "x").unwrap();
    let loader = std::fs::canonicalize("/lib64/ld-linux-x86-64.so.2")
        .or_else(|_| std::fs::canonicalize("/lib/ld-linux-aarch64.so.1"))
        .unwrap();
    let loader = loader.display().to_string();
    twice("find -exec ld.so sh", |on| {
        world
            .run(
                on,
                Access::ReadOnly,
                &[
                    "find",
                    ".",
                    "-name",
                    "a.txt",
                    "-exec",
                    &loader,
                    "/bin/sh",
                    "-c",
                    "echo SHELL-RAN",
                    ";",
                ],
            )
            .render()
            .contains("SHELL-RAN")
    });
}

/// A program copied into a memory file and executed from there.
fn start_a_shell_from_a_memfd() {
    let world = World::new();
    let script = "import os\n\
                  fd = os.memfd_create('x')\n\
                  os.write(fd, open('/bin/sh', 'rb').read())\n\
                  os.execv(f'/proc/self/fd/{fd}', ['sh', '-c', 'echo SHELL-RAN'])\n";
    twice("memfd exec", |on| {
        run_py(&world, on, Access::ReadOnly, script).contains("SHELL-RAN")
    });
}

/// A program copied into the writable temporary folder and executed.
fn exec_a_copy_in_the_temporary_folder() {
    let world = World::new();
    let script = "import os, shutil\n\
                  copy = os.path.join(os.environ['TMPDIR'], 'sh')\n\
                  shutil.copy('/bin/sh', copy); os.chmod(copy, 0o755)\n\
                  os.execv(copy, ['sh', '-c', 'echo SHELL-RAN'])\n";
    twice("tmp exec", |on| {
        run_py(&world, on, Access::WriteWorkspace, script).contains("SHELL-RAN")
    });
}

/// A Python script whose grandchild, marked with `marker`, leaves the
/// call's process group and its parent (`setsid`, then a double fork) and
/// sleeps 30 s, ignoring SIGTERM as the script does; the script then runs
/// `then`.
fn escape(marker: &str, then: &str) -> String {
    format!(
        "import os, signal, time\n\
         signal.signal(signal.SIGTERM, signal.SIG_IGN)\n\
         if os.fork() == 0:\n\
         \x20   os.setsid()\n\
         \x20   if os.fork() == 0:\n\
         \x20       os.close(1); os.close(2)\n\
         \x20       time.sleep(30)  # {marker}\n\
         \x20   os._exit(0)\n\
         {then}\n"
    )
}

fn setsid_double_fork_outlives_the_call() {
    let world = World::new();
    let marker = format!("ESCAPE-{}", support::nonce());
    let script = escape(&marker, "time.sleep(0.3)");
    twice("setsid escape", |on| {
        run_py(&world, on, Access::ReadOnly, &script);
        let alive = survivors(&marker, Duration::from_millis(300));
        kill_all(&marker);
        !alive.is_empty()
    });
}

/// A bounded bomb in Python (after `import os, time`): 400 children that
/// sleep, marked with `marker`; it prints how many forks succeeded.
fn bomb(marker: &str) -> String {
    format!(
        "made = 0\n\
         for _ in range(400):\n\
         \x20   try:\n\
         \x20       if os.fork() == 0:\n\
         \x20           time.sleep(20); os._exit(0)  # {marker}\n\
         \x20       made += 1\n\
         \x20   except OSError:\n\
         \x20       break\n\
         print('made', made)\n"
    )
}

fn fork_bomb_is_bounded() {
    let world = World::new();
    let marker = format!("BOMB-{}", support::nonce());
    let script = format!("import os, time\n{}", bomb(&marker));
    twice("fork bomb", |on| {
        let text = run_py(&world, on, Access::ReadOnly, &script);
        bomb_made(&marker, &text) == Some(400)
    });
}

/// How many processes a `bomb` made, as it printed in `text` (`None` when
/// the call was ended before it could), once none of them outlived the
/// call (asserted; those alive are killed).
fn bomb_made(marker: &str, text: &str) -> Option<u64> {
    let alive = survivors(marker, Duration::from_secs(1));
    kill_all(marker);
    assert!(
        alive.is_empty(),
        "bomb processes outlived the call: {}",
        alive.len()
    );
    text.split_once("made ")
        .and_then(|(_, rest)| rest.split_whitespace().next()?.parse().ok())
}

/// A call that takes every page of memory, in processes each smaller than
/// a large integrator, must not make the out-of-memory killer end the
/// integrator: the call's processes are its first choice (score adjusted
/// to the most), and a program cannot lower its own score again (nor can
/// its children, which inherit it). Checked on the score, without
/// exhausting the test machine's memory.
fn the_call_is_the_out_of_memory_killers_first_choice() {
    let world = World::new();
    let script = "import os\n\
                  try:\n\
                  \x20   open('/proc/self/oom_score_adj', 'w').write('0')\n\
                  except OSError: pass\n\
                  read, write = os.pipe()\n\
                  if os.fork() == 0:\n\
                  \x20   os.write(write, open('/proc/self/oom_score_adj', 'rb').read())\n\
                  \x20   os._exit(0)\n\
                  os.wait()\n\
                  print('own', open('/proc/self/oom_score_adj').read().strip(),\n\
                  \x20     'child', os.read(read, 64).decode().strip())";
    twice("out-of-memory killer spares the call", |on| {
        let text = run_py(&world, on, Access::WriteWorkspace, script);
        assert!(text.contains("own "), "{text}");
        !text.contains("own 1000 child 1000")
    });
}

/// Threads count against the bound like processes (a root integrator's
/// calls are bounded by their init's count, which must see them too).
/// Where only the call's init bounds its processes (uid 0, in a process
/// that makes one call: no pids cgroup), the program could lower the
/// init's descriptor limit (`prlimit` on a process of its own user) before
/// the init opened `/proc` to count, or starve it (`SCHED_IDLE`): the count
/// never ran and the bomb had no bound. Nor can it set the namespace's
/// last pid, by which the init skips most counts.
fn turn_the_count_off_then_fork_bomb() {
    let world = World::new();
    let marker = format!("UNCOUNTED-{}", support::nonce());
    let script = format!(
        "import os, resource, time\n\
         for attempt in (lambda: resource.prlimit(1, resource.RLIMIT_NOFILE, (0, 0)),\n\
         \x20               lambda: os.sched_setscheduler(1, os.SCHED_IDLE, os.sched_param(0)),\n\
         \x20               lambda: os.setpriority(os.PRIO_PROCESS, 1, 19),\n\
         \x20               lambda: os.write(os.open('/proc/sys/kernel/ns_last_pid', os.O_WRONLY), b'1')):\n\
         \x20   try: attempt(); print('changed the init')\n\
         \x20   except OSError as error: print('refused:', error)\n\
         {}",
        bomb(&marker)
    );
    let argv = ["python3", "-c", &script];
    let launch = Launch {
        env: &[(crate::integrator::EXPECT_ONE_CALL, "1")],
        ..Launch::in_world(&world, &argv)
    };
    let text = launch.output();
    let alive = survivors(&marker, Duration::from_secs(1));
    kill_all(&marker);
    assert!(
        alive.is_empty(),
        "bomb processes outlived the call: {}",
        alive.len()
    );
    assert!(!text.contains("changed the init"), "{text}");
    assert!(
        !text.contains("made 400"),
        "the bomb was not bounded: {text}"
    );
}

fn thread_bomb_is_bounded() {
    let world = World::new();
    let script = "import threading, time\n\
                  made = 0\n\
                  try:\n\
                  \x20   for _ in range(2000):\n\
                  \x20       threading.Thread(target=time.sleep, args=(3,), daemon=True).start(); made += 1\n\
                  except Exception:\n\
                  \x20   pass\n\
                  print('threads', made)\n";
    twice("thread bomb", |on| {
        run_py(&world, on, Access::ReadOnly, script).contains("threads 2000")
    });
}

fn fill_the_temporary_folder() {
    let world = World::new();
    // 200 MiB into $TMPDIR, 1 MiB at a time; how much went in.
    let script = "import os\n\
                  path = os.path.join(os.environ['TMPDIR'], 'fill')\n\
                  done = 0\n\
                  try:\n\
                  \x20   with open(path, 'wb') as f:\n\
                  \x20       for _ in range(200):\n\
                  \x20           f.write(b'\\0' * 1048576); f.flush(); done += 1\n\
                  except OSError:\n\
                  \x20   pass\n\
                  print('mib', done)\n";
    twice("fill tmp", |on| {
        let text = run_py(&world, on, Access::ReadOnly, script);
        let _ = std::fs::remove_file(world.tmp_base.path().join("fill"));
        // The folder is there and takes data, up to its bound.
        assert!(text.contains("mib "), "{text}");
        assert!(!text.contains("mib 0\n"), "{text}");
        text.contains("mib 200")
    });
}

fn sigkill_of_the_integrator_ends_its_calls() {
    let world = World::new();
    let exe = std::env::current_exe().unwrap();
    let marker = format!("ORPHAN-{}", support::nonce());
    let script = format!(
        "import os, time\n\
         if os.fork() == 0:\n\
         \x20   os.setsid(); time.sleep(30)  # {marker}\n\
         time.sleep(30)  # {marker}\n"
    );
    twice("integrator killed", |on| {
        let argv = ["python3", "-c", &script];
        let launch = Launch {
            contained: on,
            exe: exe.clone(),
            ..Launch::in_world(&world, &argv)
        };
        let child = launch.command().spawn().unwrap();
        !support::kill_once_running(child, &marker, 2).is_empty()
    });
}

/// A system without user namespaces: no PID namespace ends the call's
/// processes, its reaper does. A `setsid` and double fork (which leaves the
/// call's process group and its parent) outlives neither the call's end,
/// nor its timeout (the program and the escaped process both ignoring
/// SIGTERM), nor a SIGKILL of the integrator; a fork bomb is bounded
/// (`RLIMIT_NPROC` over the user's count). The integrator runs as an
/// unprivileged user, as where user namespaces are refused to users (as
/// root, the call's pids cgroup would end its processes as well).
fn without_namespaces_nothing_outlives_the_call_either() {
    let (_holder, exe, world) = unprivileged_world();
    let without = [(crate::integrator::WITHOUT, "namespaces")];
    // No grace at all: the end comes right after the SIGTERM.
    let short = [
        (crate::integrator::WITHOUT, "namespaces"),
        (crate::integrator::TIMEOUT_MS, "700"),
        (crate::integrator::GRACE_MS, "0"),
    ];
    let launch = |on: bool, env: &[(&str, &str)], argv: &[&str]| {
        Launch {
            contained: on,
            user: Some(NOBODY),
            exe: exe.clone(),
            env: if on { env } else { &[] },
            ..Launch::in_world(&world, argv)
        }
        .command()
    };
    let report = launch(true, &without, &["true"]).output().unwrap();
    let report = String::from_utf8_lossy(&report.stdout);
    assert!(
        report.contains("a reaper of the call's processes") && !report.contains("pid+mount"),
        "the tier without namespaces has a reaper: {report}"
    );
    assert!(
        report.contains("at most 256 processes more than the user's"),
        "the bound over the user's count is reported: {report}"
    );
    let marker = format!("REAPED-{}", support::nonce());
    let script = escape(&marker, "time.sleep(0.3)");
    twice("setsid escape without namespaces", |on| {
        launch(on, &without, &["python3", "-c", &script])
            .output()
            .unwrap();
        let alive = survivors(&marker, Duration::from_millis(300));
        kill_all(&marker);
        !alive.is_empty()
    });
    // At the timeout: SIGTERM, ignored by all; after the grace, the reaper
    // ends them.
    let marker = format!("REAPED-TIMEOUT-{}", support::nonce());
    let script = escape(&marker, "time.sleep(30)");
    let started = Instant::now();
    let output = launch(true, &short, &["python3", "-c", &script])
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(report.contains("timeout"), "{report}");
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "the call ended at its timeout and grace, not the program's end: {:?}",
        started.elapsed()
    );
    let alive = survivors(&marker, Duration::from_millis(300));
    kill_all(&marker);
    assert!(alive.is_empty(), "survived the timeout: {alive:?}");
    // A fork bomb: no namespace nor pids cgroup counts the call alone, so
    // RLIMIT_NPROC is the user's count plus the bound (256 by default):
    // the call may add that many tasks (its reaper and program among
    // them), not more, and none outlives it.
    let marker = format!("REAPED-BOMB-{}", support::nonce());
    let script = format!("import os, time\n{}", bomb(&marker));
    twice("fork bomb without namespaces", |on| {
        // The last run's processes, killed, may not be reaped yet: they
        // would count against the user's limit and then leave it.
        assert!(
            support::no_processes_of(NOBODY.0),
            "processes of the user are left from before"
        );
        let output = launch(on, &without, &["python3", "-c", &script])
            .output()
            .unwrap();
        let made = bomb_made(&marker, &String::from_utf8_lossy(&output.stdout));
        assert!(
            !on || made.is_some_and(|made| (200..=256).contains(&made)),
            "the call adds the bound's tasks, not fewer nor more: {made:?}"
        );
        made == Some(400)
    });
    // SIGKILL of the integrator, once the escaped process runs (the
    // integrator's command line holds the marker too: three processes).
    let marker = format!("REAPED-ORPHAN-{}", support::nonce());
    let script = escape(&marker, &format!("time.sleep(30)  # {marker}"));
    twice("integrator killed without namespaces", |on| {
        let integrator = launch(on, &without, &["python3", "-c", &script])
            .spawn()
            .unwrap();
        !support::kill_once_running(integrator, &marker, 3).is_empty()
    });
}

/// Without namespaces nothing mounts the rest of the system read-only, and
/// Landlock covers no metadata: a call that may write changed the mode,
/// times, owner and extended attributes of every file of its user
/// (`chmod 0644` on a private key, `chmod 0777` on a home folder). Its
/// reaper now makes those changes by path itself, inside the workspace and
/// the temporary folder only: by absolute and relative path, through a
/// link, from a directory descriptor, through `/proc/self/fd`, by the
/// descriptor of a file it may read (a folder of the search path), and
/// its inode flags (`chattr`), in a read-only call too. Inside,
/// they still work (modes, times, owner, a link's own owner; through
/// `/proc/self/fd/N`, as the C library changes a file it holds by
/// `O_PATH`, which GNU tar does); extended
/// attributes by path are "not supported". The integrator is `nobody`.
/// Python that reads a file's inode flags (`get_flags`) and sets or clears
/// its no-access-time flag (`set_noatime`), as `lsattr` and `chattr +A` do.
const SET_NOATIME: &str = "import fcntl, os, struct\n\
def get_flags(path):\n\
\x20   fd = os.open(path, os.O_RDONLY)\n\
\x20   buf = bytearray(8)\n\
\x20   fcntl.ioctl(fd, 0x80086601, buf)\n\
\x20   os.close(fd)\n\
\x20   return struct.unpack('q', bytes(buf))[0]\n\
def set_noatime(path, on=True):\n\
\x20   flags = get_flags(path)\n\
\x20   flags = flags | 0x80 if on else flags & ~0x80\n\
\x20   fd = os.open(path, os.O_RDONLY)\n\
\x20   fcntl.ioctl(fd, 0x40086602, struct.pack('q', flags))\n\
\x20   os.close(fd)";

fn without_namespaces_metadata_changes_stay_inside() {
    let (_holder, exe, world) = unprivileged_world();
    let (uid, gid) = NOBODY;
    let canary = world.out("canary.txt");
    let outside = world.outside.path().to_path_buf();
    std::fs::write(world.ws("mine.txt"), "mine").unwrap();
    std::os::unix::fs::chown(world.ws("mine.txt"), Some(uid), Some(gid)).unwrap();
    std::os::unix::fs::symlink(&canary, world.ws("to-canary")).unwrap();
    std::os::unix::fs::lchown(world.ws("to-canary"), Some(uid), Some(gid)).unwrap();
    let script = format!(
        "import os, sys\n\
         canary, outside = {canary:?}, {outside:?}\n\
         def attempt(name, change):\n\
         \x20   try:\n\
         \x20       change(); print(name, 'DONE')\n\
         \x20   except OSError as e:\n\
         \x20       print(name, 'refused', e.errno)\n\
         attempt('out-chmod', lambda: os.chmod(canary, 0o666))\n\
         attempt('out-dir', lambda: os.chmod(outside, 0o777))\n\
         attempt('out-times', lambda: os.utime(canary, (0, 0)))\n\
         attempt('out-owner', lambda: os.chown(canary, -1, {gid}))\n\
         attempt('out-link', lambda: os.chmod('to-canary', 0o644))\n\
         attempt('out-dirfd', lambda: os.chmod('canary.txt', 0o644, dir_fd=os.open(outside, os.O_PATH)))\n\
         attempt('out-proc', lambda: os.chmod('/proc/self/fd/%d' % os.open(canary, os.O_PATH), 0o644))\n\
         attempt('out-xattr', lambda: os.setxattr(canary, 'user.jig', b'1'))\n\
         attempt('out-fd', lambda: os.chmod(os.open(canary, os.O_RDONLY), 0o666))\n\
         attempt('out-fd-times', lambda: os.utime(os.open(canary, os.O_RDONLY), (0, 0)))\n\
         {SET_NOATIME}\n\
         attempt('out-flags', lambda: set_noatime(canary))\n\
         attempt('in-chmod', lambda: os.chmod('mine.txt', 0o640))\n\
         attempt('in-truncate', lambda: os.truncate('mine.txt', 2))\n\
         attempt('in-proc', lambda: os.chmod('/proc/self/fd/%d' % os.open('mine.txt', os.O_PATH), 0o640))\n\
         attempt('in-dirfd', lambda: os.chmod('mine.txt', 0o604, dir_fd=os.open('.', os.O_PATH)))\n\
         attempt('in-times', lambda: os.utime(os.path.abspath('mine.txt'), (1000, 2000)))\n\
         attempt('in-owner', lambda: os.chown('mine.txt', -1, {gid}))\n\
         attempt('in-link-owner', lambda: os.lchown('to-canary', -1, {gid}))\n\
         tmp = os.path.join(os.environ['TMPDIR'], 't')\n\
         open(tmp, 'w').close()\n\
         attempt('in-tmp', lambda: os.chmod(tmp, 0o600))\n\
         attempt('out-truncate', lambda: os.truncate(canary, 0))\n\
         attempt('in-xattr', lambda: os.setxattr('mine.txt', 'user.jig', b'1'))\n"
    );
    // The folder outside is on the search path, where every call may read
    // (as a user's `~/.cargo/bin` would be): a program opens its files and
    // changes them by descriptor.
    let outside_text = outside.display().to_string();
    let without = [
        (crate::integrator::WITHOUT, "namespaces"),
        (crate::integrator::SEARCH, outside_text.as_str()),
    ];
    let launch = |on: bool, access: Access, script: &str| {
        Launch {
            contained: on,
            access,
            user: Some(NOBODY),
            exe: exe.clone(),
            env: if on { &without } else { &[] },
            ..Launch::in_world(&world, &["python3", "-c", script])
        }
        .output()
    };
    use std::os::unix::fs::MetadataExt;
    // A file's inode flags (`chattr +A`) are set by `ioctl`: in a read-only
    // call too, where nothing else of the file may change.
    let noatime = |path: &Path| {
        let script = format!("{SET_NOATIME}\nprint(get_flags({path:?}) & 0x80)");
        let output = std::process::Command::new("python3")
            .args(["-c", &script])
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stdout).trim() == "128"
    };
    let clear_noatime = |path: &Path| {
        let script = format!("{SET_NOATIME}\nset_noatime({path:?}, False)");
        std::process::Command::new("python3")
            .args(["-c", &script])
            .status()
            .unwrap();
    };
    let flags_only = format!(
        "{SET_NOATIME}\n\
         try:\n\
         \x20   set_noatime({canary:?}); print('out-flags DONE')\n\
         except OSError as e:\n\
         \x20   print('out-flags refused', e.errno)\n"
    );
    twice(
        "inode flags outside in a read-only call without namespaces",
        |on| {
            clear_noatime(&canary);
            let report = launch(on, Access::ReadOnly, &flags_only);
            assert!(report.contains("exit: 0"), "{report}");
            let changed = noatime(&canary);
            assert_eq!(changed, report.contains("out-flags DONE"), "{report}");
            changed
        },
    );
    twice("metadata changes outside without namespaces", |on| {
        std::fs::write(&canary, &world.canary).unwrap();
        std::fs::write(world.ws("mine.txt"), "mine").unwrap();
        clear_noatime(&canary);
        std::fs::set_permissions(&canary, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::set_permissions(&outside, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::File::options()
            .append(true)
            .open(&canary)
            .unwrap()
            .set_modified(std::time::SystemTime::now())
            .unwrap();
        let report = launch(on, Access::WriteWorkspace, &script);
        assert!(report.contains("exit: 0"), "{report}");
        if on {
            for name in [
                "in-chmod",
                "in-proc",
                "in-dirfd",
                "in-times",
                "in-owner",
                "in-link-owner",
                "in-tmp",
                "in-truncate",
            ] {
                assert!(
                    report.contains(&format!("{name} DONE")),
                    "{name}: a change inside is made: {report}"
                );
            }
            assert!(report.contains("in-xattr refused 95"), "{report}");
            let mine = std::fs::metadata(world.ws("mine.txt")).unwrap();
            assert_eq!(mine.mode() & 0o7777, 0o604, "{report}");
            assert_eq!(mine.mtime(), 2000, "{report}");
            assert_eq!(mine.len(), 2, "{report}");
        }
        let meta = std::fs::metadata(&canary).unwrap();
        let changed = meta.mode() & 0o7777 != 0o600
            || meta.len() == 0
            || meta.mtime() == 0
            || std::fs::metadata(&outside).unwrap().mode() & 0o7777 != 0o755
            || report.contains("out-xattr DONE")
            || noatime(&canary);
        assert_eq!(
            changed,
            [
                "out-chmod",
                "out-dir",
                "out-times",
                "out-link",
                "out-dirfd",
                "out-proc",
                "out-fd",
                "out-fd-times",
                "out-flags",
                "out-truncate",
            ]
            .iter()
            .any(|name| report.contains(&format!("{name} DONE"))),
            "what the program saw is what happened: {report}"
        );
        changed
    });
}

/// Without a PID namespace, a program may signal every process of its
/// user (`kill -9 -1` ends a desktop session) where Landlock's signal
/// scoping (Linux 6.12) is missing; a call with a reaper hands its signals
/// by number or descriptor to the reaper, which sends them only to the
/// call's own processes. A bystander of the same user survives `kill`,
/// `tkill`, `tgkill`, `rt_sigqueueinfo`, a pidfd, a `/proc/<pid>` folder's
/// descriptor and `kill(-1)`, which still reaches the call's own child;
/// signals to itself (no `EINTR`: the reaper answers before it sends), to
/// its process by a thread's number, to a child, to a child's group,
/// through a pidfd, and `kill(pid, 0)` work.
/// (On this kernel Landlock's scoping refuses the bystander's signals as
/// well: the case checks that the reaper's sending keeps them refused and
/// the call's own ones working.) The integrator is `nobody`.
fn without_namespaces_signals_reach_only_the_calls_processes() {
    let (_holder, exe, world) = unprivileged_world();
    let script = "import ctypes, os, signal, sys, threading, time\n\
         by = int(sys.argv[1])\n\
         libc = ctypes.CDLL(None, use_errno=True)\n\
         def raw(*a):\n\
         \x20   if libc.syscall(*a) < 0: raise OSError(ctypes.get_errno(), 'raw')\n\
         def attempt(name, change):\n\
         \x20   try:\n\
         \x20       change(); print(name, 'DONE')\n\
         \x20   except OSError as e:\n\
         \x20       print(name, 'refused', e.errno)\n\
         def sleeper():\n\
         \x20   pid = os.fork()\n\
         \x20   if pid == 0:\n\
         \x20       time.sleep(30); os._exit(0)\n\
         \x20   return pid\n\
         got = []\n\
         signal.signal(signal.SIGUSR1, lambda s, f: got.append(s))\n\
         attempt('own-kill', lambda: os.kill(os.getpid(), signal.SIGUSR1))\n\
         attempt('own-tgkill', lambda: raw(234, os.getpid(), threading.get_native_id(), 10))\n\
         ids = []\n\
         th = threading.Thread(target=lambda: (ids.append(threading.get_native_id()), time.sleep(0.5)))\n\
         th.start(); time.sleep(0.1)\n\
         attempt('own-thread', lambda: os.kill(ids[0], signal.SIGUSR1))\n\
         time.sleep(0.05)\n\
         print('own-got', len(got))\n\
         child = sleeper()\n\
         attempt('own-probe', lambda: os.kill(child, 0))\n\
         attempt('own-child', lambda: os.kill(child, signal.SIGKILL))\n\
         print('own-child-ended', os.waitpid(child, 0)[1])\n\
         child = sleeper()\n\
         attempt('own-pidfd', lambda: signal.pidfd_send_signal(os.pidfd_open(child), 9))\n\
         print('own-pidfd-ended', os.waitpid(child, 0)[1])\n\
         child = sleeper(); os.setpgid(child, child)\n\
         attempt('own-group', lambda: os.killpg(child, signal.SIGKILL))\n\
         print('own-group-ended', os.waitpid(child, 0)[1])\n\
         attempt('by-probe', lambda: os.kill(by, 0))\n\
         attempt('by-tkill', lambda: raw(200, by, 15))\n\
         attempt('by-tgkill', lambda: raw(234, by, by, 15))\n\
         info = ctypes.create_string_buffer(b'\\x0f' + bytes(7) + b'\\xff' * 4 + bytes(116))\n\
         attempt('by-queue', lambda: raw(129, by, 15, info))\n\
         attempt('by-pidfd', lambda: signal.pidfd_send_signal(os.pidfd_open(by), 15))\n\
         attempt('by-proc', lambda: signal.pidfd_send_signal(os.open('/proc/%d' % by, os.O_DIRECTORY), 15))\n\
         attempt('by-group', lambda: os.killpg(os.getpgid(by), 15))\n\
         attempt('by-kill', lambda: os.kill(by, signal.SIGTERM))\n\
         if sys.argv[2:] == ['all']:\n\
         \x20   r, w = os.pipe()\n\
         \x20   child = os.fork()\n\
         \x20   if child == 0:\n\
         \x20       signal.signal(signal.SIGTERM, lambda s, f: (os.write(w, b'all-reached-own'), os._exit(0)))\n\
         \x20       time.sleep(5); os._exit(1)\n\
         \x20   time.sleep(0.2)\n\
         \x20   signal.signal(signal.SIGTERM, signal.SIG_IGN)\n\
         \x20   attempt('all', lambda: os.kill(-1, signal.SIGTERM))\n\
         \x20   print(os.read(r, 100).decode()); os.waitpid(child, 0)\n";
    // In a process group of its own: a signal to its group reaches no
    // one else.
    let bystander = || {
        use std::os::unix::process::CommandExt;
        std::process::Command::new("setpriv")
            .args(["--reuid", "65534", "--regid", "65534", "--clear-groups"])
            .args(["sleep", "30"])
            .process_group(0)
            .spawn()
            .unwrap()
    };
    // `kill(-1)` only contained: uncontained, it ends the integrator.
    let launch = |on: bool, by: u32| {
        let by = by.to_string();
        let argv = [
            "python3",
            "-c",
            script,
            &by,
            if on { "all" } else { "none" },
        ];
        Launch {
            contained: on,
            user: Some(NOBODY),
            exe: exe.clone(),
            env: if on {
                &[(crate::integrator::WITHOUT, "namespaces")]
            } else {
                &[]
            },
            ..Launch::in_world(&world, &argv)
        }
        .output()
    };
    twice("signal a bystander without namespaces", |on| {
        let mut by = bystander();
        std::thread::sleep(Duration::from_millis(100));
        let report = launch(on, by.id());
        let ended = by.try_wait().unwrap().is_some() || {
            std::thread::sleep(Duration::from_millis(200));
            by.try_wait().unwrap().is_some()
        };
        let _ = by.kill();
        let _ = by.wait();
        for own in [
            "own-kill DONE",
            "own-tgkill DONE",
            "own-thread DONE",
            "own-got 3",
            "own-probe DONE",
            "own-child DONE",
            "own-child-ended 9",
            "own-pidfd DONE",
            "own-pidfd-ended 9",
            "own-group DONE",
            "own-group-ended 9",
        ] {
            assert!(report.contains(own), "{own}: {report}");
        }
        if on {
            assert!(report.contains("all DONE"), "{report}");
            assert!(report.contains("all-reached-own"), "{report}");
            for name in ["probe", "tkill", "tgkill", "queue", "pidfd", "proc", "kill"] {
                assert!(
                    report.contains(&format!("by-{name} refused")),
                    "by-{name}: {report}"
                );
            }
        }
        ended
    });
}

/// A write call plants a descriptor tool where `.jig` was missing, and its
/// integrator is killed before the call's end could set it aside: the next
/// `jig` start would list the tool. The next kernel built on the root sets
/// it aside (one built while the integrator lives leaves its call alone).
fn plant_a_tool_then_have_the_integrator_killed() {
    let world = World::new();
    let exe = std::env::current_exe().unwrap();
    let marker = format!("PLANTER-{}", support::nonce());
    let script = format!(
        "import os, time\n\
         os.makedirs('.jig/tools')\n\
         open('.jig/tools/evil.tool.json', 'w').write('{{}}')\n\
         time.sleep(30)  # {marker}\n"
    );
    let planted = world.ws(".jig/tools/evil.tool.json");
    let next_kernel = |on: bool| {
        support::kernel_protecting(
            world.workspace.path(),
            world.tmp_base.path(),
            on,
            support::limits(),
            &[".jig".to_owned()],
        )
    };
    twice("a planted tool outlives its killed integrator", |on| {
        let argv = ["python3", "-c", &script];
        let launch = Launch {
            contained: on,
            access: Access::WriteWorkspace,
            env: &[(crate::integrator::READ_ONLY, ".jig")],
            exe: exe.clone(),
            ..Launch::in_world(&world, &argv)
        };
        let mut child = launch.command().spawn().unwrap();
        let start = Instant::now();
        while !planted.exists() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "the call never planted its tool"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        // The call still runs: its record is its integrator's.
        assert!(next_kernel(on).recovered().is_empty());
        assert!(planted.exists(), "a running call's path was set aside");
        child.kill().unwrap();
        child.wait().unwrap();
        kill_all(&marker);
        let kernel = next_kernel(on);
        let survived = planted.exists();
        if on {
            let moved = kernel.recovered().iter().any(|done| {
                matches!(done, jig_kernel::SetAside::Moved { from, .. } if from == Path::new(".jig"))
            });
            assert!(moved, "{:?}", kernel.recovered());
        }
        let _ = std::fs::remove_dir_all(world.ws(".jig"));
        for entry in std::fs::read_dir(world.workspace.path()).unwrap().flatten() {
            if entry
                .file_name()
                .to_string_lossy()
                .starts_with(".jig.jig-set-aside")
            {
                std::fs::remove_dir_all(entry.path()).unwrap();
            }
        }
        survived
    });
    // The workspace made again at the same path after the kill is another
    // one: the user's own `.jig` there stays.
    let argv = ["python3", "-c", &script];
    let launch = Launch {
        access: Access::WriteWorkspace,
        env: &[(crate::integrator::READ_ONLY, ".jig")],
        exe: exe.clone(),
        ..Launch::in_world(&world, &argv)
    };
    let mut child = launch.command().spawn().unwrap();
    let start = Instant::now();
    while !planted.exists() {
        assert!(start.elapsed() < Duration::from_secs(10), "no tool planted");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    kill_all(&marker);
    std::fs::remove_dir_all(world.workspace.path()).unwrap();
    std::fs::create_dir_all(world.ws(".jig/tools")).unwrap();
    std::fs::write(world.ws(".jig/tools/mine.tool.json"), "{}").unwrap();
    let kernel = next_kernel(true);
    assert!(kernel.recovered().is_empty(), "{:?}", kernel.recovered());
    assert!(world.ws(".jig/tools/mine.tool.json").exists());
}

/// A copy of this binary that any user can execute, and folders owned by
/// `uid`.
/// The unprivileged user the integrator runs as in some cases.
const NOBODY: (u32, u32) = (65534, 65534);

/// A world of [`NOBODY`]'s (its folders and canary), and a copy of this
/// binary it can run; needs root, to switch to it.
fn unprivileged_world() -> (tempfile::TempDir, std::path::PathBuf, World) {
    let (uid, gid) = NOBODY;
    assert!(
        nix::unistd::geteuid().is_root(),
        "this case runs the integrator as an unprivileged user and needs root to switch to it"
    );
    let holder = tempfile::tempdir().unwrap();
    std::fs::set_permissions(holder.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let exe = holder.path().join("contain-suite");
    std::fs::copy(std::env::current_exe().unwrap(), &exe).unwrap();
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    let world = World::new();
    for dir in [
        world.workspace.path(),
        world.outside.path(),
        world.tmp_base.path(),
    ] {
        std::os::unix::fs::chown(dir, Some(uid), Some(gid)).unwrap();
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::os::unix::fs::chown(world.out("canary.txt"), Some(uid), Some(gid)).unwrap();
    (holder, exe, world)
}

fn unprivileged_integrator_is_contained_the_same() {
    let (_holder, exe, world) = unprivileged_world();
    let launch = |on: bool, access: Access, argv: &[&str]| {
        Launch {
            contained: on,
            access,
            user: Some(NOBODY),
            exe: exe.clone(),
            ..Launch::in_world(&world, argv)
        }
        .output()
    };
    let report = launch(true, Access::ReadOnly, &["id", "-u"]);
    assert!(report.contains("exit: 0"), "{report}");
    assert!(
        report.contains("65534"),
        "the program runs as the user: {report}"
    );
    for part in [
        "landlock abi",
        "seccomp",
        "user+pid+mount namespaces",
        "private /proc",
    ] {
        assert!(report.contains(part), "unprivileged confinement: {report}");
    }
    let canary = world.out("canary.txt").display().to_string();
    let read = format!("print(open({canary:?}).read())");
    twice("unprivileged read outside", |on| {
        launch(on, Access::ReadOnly, &["python3", "-c", &read]).contains(&world.canary)
    });
    let target = world.out("written").display().to_string();
    let write = format!("open({target:?}, 'w').write('x')");
    twice("unprivileged write outside", |on| {
        let _ = std::fs::remove_file(&target);
        launch(on, Access::WriteWorkspace, &["python3", "-c", &write]);
        Path::new(&target).exists()
    });
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connect = format!(
        "import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2).sendall(b'hi')"
    );
    twice("unprivileged tcp connect", |on| {
        launch(on, Access::ReadOnly, &["python3", "-c", &connect]);
        accepted(&listener)
    });
    let marker = format!("UNPRIV-{}", support::nonce());
    let escape = format!(
        "import os, time\n\
         if os.fork() == 0:\n\
         \x20   os.setsid(); os.close(1); os.close(2); time.sleep(30)  # {marker}\n\
         time.sleep(0.3)\n"
    );
    twice("unprivileged setsid escape", |on| {
        launch(on, Access::ReadOnly, &["python3", "-c", &escape]);
        let alive = survivors(&marker, Duration::from_millis(300));
        kill_all(&marker);
        !alive.is_empty()
    });
    let bomb = "import os, time\n\
                made = 0\n\
                for _ in range(400):\n\
                \x20   try:\n\
                \x20       if os.fork() == 0:\n\
                \x20           time.sleep(5); os._exit(0)\n\
                \x20       made += 1\n\
                \x20   except OSError:\n\
                \x20       break\n\
                print('made', made)\n";
    let contained = launch(true, Access::ReadOnly, &["python3", "-c", bomb]);
    assert!(
        !contained.contains("made 400"),
        "the process bound holds for an unprivileged integrator: {contained}"
    );
    // A folder the integrator's user may search but not list (a call that
    // may write can make one of its own: `chmod 311`): a program could
    // open a secret file in it by name, which the kernel, unable to list
    // it, could not hide. No program runs then.
    std::fs::create_dir(world.ws("locked")).unwrap();
    std::fs::write(world.ws("locked/.env"), "SECRET=locked\n").unwrap();
    std::fs::set_permissions(world.ws("locked"), std::fs::Permissions::from_mode(0o311)).unwrap();
    let read_locked = |on: bool| {
        let argv = ["python3", "-c", "print(open('locked/.env').read())"];
        let env = [(crate::integrator::MASK, "1")];
        let output = Launch {
            contained: on,
            user: Some(NOBODY),
            exe: exe.clone(),
            env: &env,
            ..Launch::in_world(&world, &argv)
        }
        .command()
        .output()
        .unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    twice(
        "unprivileged read of a secret in a folder it cannot list",
        |on| read_locked(on).contains("SECRET=locked"),
    );
    let refused = read_locked(true);
    assert!(refused.contains("cannot list"), "{refused}");
    assert!(refused.contains("could open them by name"), "{refused}");
    others_of_the_user_keep_their_priority(&world, &exe, NOBODY);
}

/// Where a call has no PID namespace of its own (a system without user
/// namespaces: Landlock and seccomp only), the integrator and every other
/// process of its user are in reach of the calls that set a priority or
/// processors by process or by user, which no signal rule covers: a call
/// changes none of them. Run as an unprivileged user (as root, the "every
/// process of the user" of the effect run would be the machine's).
fn others_of_the_user_keep_their_priority(world: &World, exe: &Path, user: (u32, u32)) {
    use std::os::unix::process::CommandExt;
    let stat_of = |pid: u32| {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let cpus = status
            .lines()
            .find_map(|line| line.strip_prefix("Cpus_allowed_list:"))
            .unwrap_or("")
            .trim()
            .to_owned();
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // the fields after the command's closing parenthesis; nice is 19th
        let nice = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(16).map(str::to_owned))
            .unwrap_or_default();
        (nice, cpus)
    };
    let without = [(crate::integrator::WITHOUT, "namespaces")];
    twice("renice or pin another process of the user", |on| {
        let mut bystander = std::process::Command::new("sleep")
            .arg("30")
            .uid(user.0)
            .gid(user.1)
            .spawn()
            .unwrap();
        let before = stat_of(bystander.id());
        let script = format!(
            "import os\n\
             for change in (lambda: os.setpriority(os.PRIO_USER, 0, 19),\n\
             \x20              lambda: os.sched_setaffinity({}, {{0}})):\n\
             \x20   try:\n\
             \x20       change()\n\
             \x20   except OSError as e:\n\
             \x20       print('refused', e)\n",
            bystander.id()
        );
        let argv = ["python3", "-c", script.as_str()];
        let report = Launch {
            contained: on,
            user: Some(user),
            exe: exe.to_path_buf(),
            env: if on { &without } else { &[] },
            ..Launch::in_world(world, &argv)
        }
        .output();
        assert!(report.contains("exit: 0"), "{report}");
        if on {
            assert!(
                report.contains("confinement: landlock") && !report.contains("pid+mount"),
                "the tier without namespaces: {report}"
            );
        }
        let after = stat_of(bystander.id());
        let _ = bystander.kill();
        let _ = bystander.wait();
        assert_eq!(before.0, "0", "the bystander starts at nice 0");
        after != before
    });
}

fn a_write_call_may_write_the_workspace() {
    let world = World::new();
    let outcome = world.run(
        true,
        Access::WriteWorkspace,
        &[
            "python3",
            "-c",
            "import os; os.makedirs('d/e'); open('d/e/f', 'w').write('ok'); os.rename('d/e/f', 'g'); os.chmod('g', 0o600)",
        ],
    );
    assert_eq!(outcome.exit_code(), Some(0), "{}", outcome.render());
    assert_eq!(std::fs::read_to_string(world.ws("g")).unwrap(), "ok");
    // Never a device node.
    let outcome = world.run(
        true,
        Access::WriteWorkspace,
        &["python3", "-c", "import os, stat; os.mknod('fifo', stat.S_IFIFO | 0o600); os.mknod('null', stat.S_IFCHR | 0o600, os.makedev(1, 3))"],
    );
    assert!(world.ws("fifo").exists(), "{}", outcome.render());
    assert!(!world.ws("null").exists(), "{}", outcome.render());
}

fn the_temporary_folder_is_private_and_removed() {
    let world = World::new();
    let outcome = world.run(
        true,
        Access::ReadOnly,
        &[
            "python3",
            "-c",
            "import os, tempfile; d = os.environ['TMPDIR']; open(os.path.join(d, 'x'), 'w').write('x'); print(d)",
        ],
    );
    assert_eq!(outcome.exit_code(), Some(0), "{}", outcome.render());
    assert_eq!(
        leftovers(world.tmp_base.path()),
        "",
        "the call's temporary folder was not removed"
    );
    // A timed-out call's folder goes too.
    let limits = support::limits().with_timeout(Duration::from_millis(300));
    world.run_with(
        true,
        Access::ReadOnly,
        &[
            "python3",
            "-c",
            "import os, time; open(os.environ['TMPDIR'] + '/y', 'w'); time.sleep(10)",
        ],
        limits,
    );
    assert_eq!(
        leftovers(world.tmp_base.path()),
        "",
        "a timed-out call's folder was left"
    );
    // With one kernel for several calls: a call sees nothing of the one
    // before it, and while the kernel lives nothing of a call is left
    // outside it (at most an empty folder, the calls' mount point).
    let kernel = world.kernel(true, support::limits());
    let write = "import os; d = os.environ['TMPDIR']; print(sorted(os.listdir(d))); \
                 open(os.path.join(d, 'x'), 'w').write('x')";
    for _ in 0..2 {
        let outcome = kernel.run(&["python3", "-c", write]).unwrap();
        assert_eq!(outcome.render(), "exit: 0\noutput: []\n");
        for entry in std::fs::read_dir(world.tmp_base.path()).unwrap() {
            let path = entry.unwrap().path();
            let inside: Vec<_> = std::fs::read_dir(&path)
                .map(|d| d.flatten().map(|e| e.file_name()).collect())
                .unwrap_or_default();
            assert!(
                path.is_dir() && inside.is_empty(),
                "{} was left: {inside:?}",
                path.display()
            );
        }
    }
    drop(kernel);
    assert_eq!(
        leftovers(world.tmp_base.path()),
        "",
        "the kernel's folder outlived it"
    );
}

/// Where `jig-<uid>` is not the user's own mode-0700 folder (a folder
/// others may enter, a link to elsewhere), the kernel neither uses nor
/// touches it: its calls get a folder of the kernel's own, removed with it.
fn a_mount_point_name_taken_by_another_is_not_used() {
    let uid = nix::unistd::geteuid().as_raw();
    let print_tmpdir = ["python3", "-c", "import os; print(os.environ['TMPDIR'])"];
    for take in ["open folder", "link"] {
        let world = World::new();
        let taken = world.tmp_base.path().join(format!("jig-{uid}"));
        match take {
            "open folder" => {
                std::fs::create_dir(&taken).unwrap();
                std::fs::set_permissions(&taken, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
            _ => std::os::unix::fs::symlink(world.outside.path(), &taken).unwrap(),
        }
        let kernel = world.kernel(true, support::limits());
        let outcome = kernel.run(&print_tmpdir).unwrap();
        assert_eq!(outcome.exit_code(), Some(0), "{take}: {}", outcome.render());
        let tmpdir = outcome.render();
        assert!(
            !tmpdir.contains(&format!("jig-{uid}\n")),
            "{take}: the taken name was used: {tmpdir}"
        );
        drop(kernel);
        let names: Vec<_> = std::fs::read_dir(world.tmp_base.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [taken.file_name().unwrap()], "{take}");
        assert_eq!(
            std::fs::read_dir(world.outside.path()).unwrap().count(),
            1,
            "{take}: only the canary is outside"
        );
    }
}

/// What is left under `base` besides the user's mount point `jig-<uid>`,
/// which stays, empty, with mode 0700 (checked here).
fn leftovers(base: &Path) -> String {
    use std::os::unix::fs::MetadataExt;
    let uid = nix::unistd::geteuid().as_raw();
    let mut left = String::new();
    for entry in std::fs::read_dir(base).unwrap() {
        let entry = entry.unwrap();
        let meta = std::fs::symlink_metadata(entry.path()).unwrap();
        let empty = std::fs::read_dir(entry.path()).is_ok_and(|mut d| d.next().is_none());
        if entry.file_name().to_string_lossy() == format!("jig-{uid}")
            && meta.is_dir()
            && meta.uid() == uid
            && meta.permissions().mode() & 0o7777 == 0o700
            && empty
        {
            continue;
        }
        left.push_str(&entry.file_name().to_string_lossy());
    }
    left
}

/// Every file under `dir` (folders not counted), recursively.
fn files_under(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|entry| match entry.file_type() {
                    Ok(kind) if kind.is_dir() => files_under(&entry.path()),
                    _ => 1,
                })
                .sum()
        })
        .unwrap_or(0)
}

/// The names in `/tmp` that GNU sort gives its temporary files.
fn sort_files_in_tmp() -> std::collections::BTreeSet<std::ffi::OsString> {
    std::fs::read_dir("/tmp")
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name())
        .filter(|name| name.to_string_lossy().starts_with("sort"))
        .collect()
}

/// Issue 16: `sort` killed at the timeout left thousands of temporary
/// files in `/tmp`. A sort with a 64 KiB buffer spills a temporary file
/// every 64 KiB of a 30 MB input and is killed at a short timeout with no
/// grace (`SIGKILL` at once: it cannot clean up). Without containment its
/// `TMPDIR` is the kernel's folder itself and the files stay (the effect is
/// real); contained, each call's `TMPDIR` is its own tmpfs, gone with the
/// call: nothing is left there, nor in `/tmp`.
fn a_sort_killed_at_its_timeout_leaves_no_temporary_file() {
    let world = World::new();
    // Large enough that no machine sorts it within the timeout, small
    // enough that its spilled runs fit in a call's temporary folder.
    let mut input = String::with_capacity(48 << 20);
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..(3 << 19) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        input.push_str(&format!("{x:024x}{:05}\n", x % 99_991));
    }
    std::fs::write(world.ws("big.txt"), input).unwrap();
    let limits = support::limits()
        .with_timeout(Duration::from_millis(500))
        .with_grace(Duration::ZERO);
    // sort removes its runs on SIGTERM: between the timeout's SIGTERM and
    // the SIGKILL right after it, it sometimes did, and without
    // containment nothing was left to show. It ignores SIGTERM here (sort
    // keeps a signal ignored at its start ignored), so only its SIGKILL
    // ends it, with its runs in place.
    let argv = ["sh", "-c", "trap '' TERM; exec sort -S 64K big.txt"];
    let sort = std::fs::canonicalize("/usr/bin/sort").unwrap();
    let before = sort_files_in_tmp();
    twice("sort leftovers", |on| {
        let kernel = world.kernel(on, limits);
        let options = jig_kernel::RunOptions::new(limits)
            .with_access(Access::ReadOnly)
            .with_helper(&sort);
        let outcome = kernel.run_with(&argv, &options).unwrap();
        assert!(
            outcome.timed_out(),
            "sort ended by itself: {}",
            outcome.render()
        );
        drop(kernel);
        let left = files_under(world.tmp_base.path());
        for entry in std::fs::read_dir(world.tmp_base.path()).unwrap().flatten() {
            let _ = std::fs::remove_dir_all(entry.path());
            let _ = std::fs::remove_file(entry.path());
        }
        let new_in_tmp: Vec<_> = sort_files_in_tmp().difference(&before).cloned().collect();
        assert!(new_in_tmp.is_empty(), "sort left {new_in_tmp:?} in /tmp");
        left > 0
    });
}

fn a_declared_helper_may_run() {
    let world = World::new();
    std::fs::write(world.ws("a.txt"), "HELPER-RAN\n").unwrap();
    let kernel = world.kernel(true, support::limits());
    let argv = ["sh", "-c", "cat a.txt"];
    let alone = kernel
        .run_with(&argv, &jig_kernel::RunOptions::new(support::limits()))
        .unwrap();
    assert!(!alone.render().contains("HELPER-RAN"), "{}", alone.render());
    let cat = std::fs::canonicalize("/bin/cat").unwrap();
    let helped = kernel
        .run_with(
            &argv,
            &jig_kernel::RunOptions::new(support::limits()).with_helper(&cat),
        )
        .unwrap();
    assert!(
        helped.render().contains("HELPER-RAN"),
        "{}",
        helped.render()
    );
    // Only the declared helper: not another program.
    let other = kernel
        .run_with(
            &["sh", "-c", "head a.txt"],
            &jig_kernel::RunOptions::new(support::limits()).with_helper(&cat),
        )
        .unwrap();
    assert!(!other.render().contains("HELPER-RAN"), "{}", other.render());
}

fn protected_paths_and_secret_files() {
    let world = World::new();
    std::fs::create_dir_all(world.ws(".git/hooks")).unwrap();
    std::fs::create_dir_all(world.ws("sub")).unwrap();
    std::fs::write(world.ws(".env"), "SECRET=top\n").unwrap();
    std::fs::write(world.ws("sub/.env"), "SECRET=sub\n").unwrap();
    let kernel = |on: bool| {
        let builder = jig_kernel::Kernel::builder(world.workspace.path())
            .tmpdir(world.tmp_base.path())
            .read_only_paths([".git/hooks"])
            .mask_files(|name| name == ".env");
        let builder = if on {
            builder.containment(jig_kernel::Containment::required())
        } else {
            builder.dangerous_no_containment()
        };
        builder.build().unwrap()
    };
    let run = |on: bool, access: Access, script: &str| {
        kernel(on)
            .run_with(
                &["python3", "-c", script],
                &jig_kernel::RunOptions::new(support::limits()).with_access(access),
            )
            .unwrap()
            .render()
    };
    let hook = world.ws(".git/hooks/pre-commit");
    twice("write a git hook in a write call", |on| {
        let _ = std::fs::remove_file(&hook);
        run(
            on,
            Access::WriteWorkspace,
            "open('.git/hooks/pre-commit', 'w').write('#!/bin/sh')",
        );
        hook.exists()
    });
    twice("read a secret file", |on| {
        run(
            on,
            Access::ReadOnly,
            "print(open('.env').read() + open('sub/.env').read())",
        )
        .contains("SECRET=")
    });
    // The rest of the workspace stays writable, and the confinement says so.
    let text = run(
        true,
        Access::WriteWorkspace,
        "open('other', 'w').write('x'); print('ok')",
    );
    assert!(text.contains("ok"), "{text}");
    assert!(
        kernel(true)
            .confinement()
            .to_string()
            .contains("protected paths read-only")
    );
    assert_eq!(
        std::fs::read_to_string(world.ws(".env")).unwrap(),
        "SECRET=top\n"
    );
    // A link named as a secret file leads to one, whatever its name.
    std::fs::create_dir_all(world.ws("envs/prod")).unwrap();
    std::fs::write(world.ws("envs/prod/values.txt"), "SECRET=linked\n").unwrap();
    std::fs::create_dir_all(world.ws("app")).unwrap();
    std::os::unix::fs::symlink("../envs/prod/values.txt", world.ws("app/.env")).unwrap();
    twice("read a secret file through a link named .env", |on| {
        run(on, Access::ReadOnly, "print(open('app/.env').read())").contains("SECRET=linked")
    });
    // A folder holding a hidden file, moved deeper than the next call's
    // search looks, would carry it out of sight: such a folder is pinned.
    std::fs::create_dir_all(world.ws("deeper/down")).unwrap();
    // A write call renames `folder` deeper than the next call's search
    // looks (put back when it could); whether `moved` (a path below
    // deeper/down) then exists.
    let move_deeper = |name: &str, folder: &str, moved: &str| {
        twice(name, |on| {
            let script = format!(
                "import os\ntry: os.rename('{folder}', 'deeper/down/{folder}')\nexcept OSError as error: print(error)"
            );
            run(on, Access::WriteWorkspace, &script);
            let gone = world.ws(&format!("deeper/down/{moved}")).exists();
            if gone {
                std::fs::rename(world.ws(&format!("deeper/down/{folder}")), world.ws(folder))
                    .unwrap();
            }
            gone
        });
    };
    move_deeper("move a folder holding a secret deeper", "sub", "sub/.env");
    // So is every folder above the file a link leads to.
    move_deeper("move a folder above a linked secret deeper", "envs", "envs");
    // A folder reached through a link from the root is one below it by
    // the path a program names.
    std::fs::create_dir_all(world.ws("real/deep/config")).unwrap();
    std::fs::write(world.ws("real/deep/config/.env"), "SECRET=through\n").unwrap();
    std::os::unix::fs::symlink("real/deep/config", world.ws("config")).unwrap();
    twice("read a secret file in a linked folder", |on| {
        run(on, Access::ReadOnly, "print(open('config/.env').read())").contains("SECRET=through")
    });
    // So is a folder holding a link named as a secret file.
    move_deeper("move a folder holding a secret's link deeper", "app", "app");
    // A file hidden through a link stays hidden once the link is gone (a
    // call that may write can remove it; the next call's search would not
    // find the file).
    twice(
        "remove a secret's link, then read the file it led to",
        |on| {
            let kernel = kernel(on);
            let run = |access: Access, script: &str| support::python(&kernel, access, script);
            run(Access::WriteWorkspace, "import os\nos.remove('app/.env')");
            let read = run(
                Access::ReadOnly,
                "print(open('envs/prod/values.txt').read())",
            )
            .contains("SECRET=linked");
            let _ = std::fs::remove_file(world.ws("app/.env"));
            std::os::unix::fs::symlink("../envs/prod/values.txt", world.ws("app/.env")).unwrap();
            read
        },
    );
    // More secret files than a call hides: no program runs (one could read
    // those past the limit); without containment nothing is hidden anyway.
    let many = |on: bool| {
        let builder = jig_kernel::Kernel::builder(world.workspace.path())
            .tmpdir(world.tmp_base.path())
            .mask_files(|name| name.ends_with(".key"));
        let builder = if on {
            builder.containment(jig_kernel::Containment::required())
        } else {
            builder.dangerous_no_containment()
        };
        builder
            .build()
            .unwrap()
            .run_with(
                &["python3", "-c", "print('RAN')"],
                &jig_kernel::RunOptions::new(support::limits()),
            )
            .map(|outcome| outcome.render())
    };
    for n in 0..=1024 {
        std::fs::write(world.ws(&format!("k{n}.key")), "KEY").unwrap();
    }
    let refused = many(true);
    assert!(
        matches!(
            refused,
            Err(jig_kernel::KernelError::TooManySecretFiles { limit: 1024 })
        ),
        "{refused:?}"
    );
    assert!(many(false).unwrap().contains("RAN"));
    std::fs::remove_file(world.ws("k1024.key")).unwrap();
    assert!(many(true).unwrap().contains("RAN"));
}

/// A kernel keeps what it found in each folder while the folder is
/// unchanged (listing a large folder at every call was dear): a secret file
/// made afterwards, by the integrator's user or by a call that may write,
/// is hidden from the next call all the same, in the root and in a folder
/// below it, under the folder's own name and through a link to it.
fn a_secret_file_made_after_the_folders_were_searched() {
    let read = "import sys\nfor path in ['.env', 'sub/.env', 'linked/.env']:\n    try: print(open(path).read())\n    except OSError as error: print(error)";
    twice(
        "read secret files made after the folders were searched",
        |on| {
            let world = World::new();
            std::fs::create_dir_all(world.ws("sub")).unwrap();
            for n in 0..200 {
                std::fs::write(world.ws(&format!("sub/f{n}.txt")), "plain").unwrap();
            }
            std::os::unix::fs::symlink("sub", world.ws("linked")).unwrap();
            // Older than a listing by the time it takes to settle: each
            // folder's findings are kept from the first call on.
            std::thread::sleep(std::time::Duration::from_millis(3_200));
            let builder = jig_kernel::Kernel::builder(world.workspace.path())
                .tmpdir(world.tmp_base.path())
                .mask_files(|name| name == ".env");
            let kernel = if on {
                builder.containment(jig_kernel::Containment::required())
            } else {
                builder.dangerous_no_containment()
            }
            .build()
            .unwrap();
            let run = |access: Access, script: &str| support::python(&kernel, access, script);
            let before = run(Access::ReadOnly, read);
            assert!(before.contains("No such file"), "{before}");
            // One made by the integrator's user, one by a call that may write.
            std::fs::write(world.ws(".env"), "SECRET=root\n").unwrap();
            run(
                Access::WriteWorkspace,
                "open('sub/.env', 'w').write('SECRET=written')",
            );
            assert!(world.ws("sub/.env").exists());
            let after = run(Access::ReadOnly, read);
            if on {
                assert!(!after.contains("SECRET"), "{after}");
            }
            after.contains("SECRET=root") && after.contains("SECRET=written")
        },
    );
}

/// What the call shares with the integrator without a path: System V IPC
/// objects (its shared memory, readable and writable by the same user),
/// the descriptions of the user's keys in `/proc/keys`, and file watches
/// on folders outside, which Landlock does not check.
fn reach_the_hosts_ipc_keys_and_watches() {
    let world = World::new();
    // A shared memory segment of the integrator's, with a secret in it.
    let key = 0x4a10_0000 | (std::process::id() as i32 & 0xffff);
    #[expect(unsafe_code)]
    // SAFETY: plain System V calls on a segment this test makes, attaches,
    // writes within its size and detaches.
    let segment = unsafe {
        let id = libc::shmget(key, 4096, libc::IPC_CREAT | 0o600);
        assert!(id >= 0, "shmget: {}", std::io::Error::last_os_error());
        let at = libc::shmat(id, std::ptr::null(), 0);
        assert!(
            at as isize != -1,
            "shmat: {}",
            std::io::Error::last_os_error()
        );
        std::ptr::copy_nonoverlapping(b"HOST-SHM".as_ptr(), at.cast::<u8>(), 8);
        libc::shmdt(at);
        id
    };
    let script = format!(
        "import ctypes\n\
         libc = ctypes.CDLL(None, use_errno=True)\n\
         libc.shmat.restype = ctypes.c_void_p\n\
         id = libc.shmget({key}, 0, 0)\n\
         at = libc.shmat(id, None, 0) if id >= 0 else None\n\
         print(ctypes.string_at(at, 8) if at not in (None, ctypes.c_void_p(-1).value) else 'refused')"
    );
    twice("read the integrator's shared memory", |on| {
        run_py(&world, on, Access::ReadOnly, &script).contains("HOST-SHM")
    });
    #[expect(unsafe_code)]
    // SAFETY: removes the segment this test made.
    unsafe {
        libc::shmctl(segment, libc::IPC_RMID, std::ptr::null_mut());
    }
    // A key in the user's keyring: its description is listed to whoever
    // of that user reads /proc/keys.
    let description = format!("jig-canary-{}", std::process::id());
    let c_description = std::ffi::CString::new(description.clone()).unwrap();
    #[expect(unsafe_code)]
    // SAFETY: add_key with NUL-terminated strings and a payload of the
    // length given; -4 is KEY_SPEC_USER_KEYRING.
    let key_id = unsafe {
        libc::syscall(
            libc::SYS_add_key,
            c"user".as_ptr(),
            c_description.as_ptr(),
            b"payload".as_ptr(),
            7usize,
            -4i64,
        )
    };
    assert!(key_id >= 0, "add_key: {}", std::io::Error::last_os_error());
    twice("list the user's keys", |on| {
        run_py(
            &world,
            on,
            Access::ReadOnly,
            "print(open('/proc/keys').read())",
        )
        .contains(&description)
    });
    #[expect(unsafe_code)]
    // SAFETY: keyctl(KEYCTL_INVALIDATE) of the key this test added.
    unsafe {
        libc::syscall(libc::SYS_keyctl, 21i64, key_id);
    }
    // A watch on a folder outside.
    let watched = world.out("watched");
    std::fs::create_dir(&watched).unwrap();
    let script = format!(
        "import ctypes\n\
         libc = ctypes.CDLL(None, use_errno=True)\n\
         fd = libc.inotify_init1(0)\n\
         print('WATCHING' if fd >= 0 and libc.inotify_add_watch(fd, {:?}.encode(), 0x100) >= 0 else 'refused')",
        watched.display().to_string()
    );
    twice("watch a folder outside", |on| {
        run_py(&world, on, Access::ReadOnly, &script).contains("WATCHING")
    });
}

/// A read-only mount covers a protected path, not the name it is found
/// at: a call that may write could rename `.git` away and make a `.git`
/// of its own (hooks, a `config` naming a program for the next git command
/// outside the call), or move a folder above a protected path; and a
/// protected path missing when the call starts has nothing to cover.
fn move_a_protected_folder_away_or_make_a_missing_one() {
    let world = World::new();
    std::fs::create_dir_all(world.ws(".git/hooks")).unwrap();
    std::fs::write(world.ws(".git/config"), "[core]\n").unwrap();
    std::fs::create_dir_all(world.ws("deep/er")).unwrap();
    let kernel = |on: bool| {
        let builder = jig_kernel::Kernel::builder(world.workspace.path())
            .tmpdir(world.tmp_base.path())
            .read_only_paths([".git", "deep/er", ".jig"]);
        let builder = if on {
            builder.containment(jig_kernel::Containment::required())
        } else {
            builder.dangerous_no_containment()
        };
        builder.build().unwrap()
    };
    let run = |on: bool, script: &str| {
        kernel(on)
            .run_with(
                &["python3", "-c", script],
                &jig_kernel::RunOptions::new(support::limits()).with_access(Access::WriteWorkspace),
            )
            .unwrap()
    };
    for (from, to) in [(".git", ".git-old"), ("deep", "deep-old")] {
        let script = format!(
            "import os\ntry: os.rename({from:?}, {to:?})\nexcept OSError as error: print(error)"
        );
        twice(&format!("rename {from} in a write call"), |on| {
            run(on, &script);
            let moved = world.ws(to).exists();
            if moved {
                std::fs::rename(world.ws(to), world.ws(from)).unwrap();
            }
            moved
        });
    }
    assert!(world.ws(".git/config").exists() && world.ws("deep/er").exists());
    // `.jig` does not exist: what the call makes there is set aside.
    let plant = "import os\nos.makedirs('.jig/tools')\n\
                 open('.jig/tools/evil.tool.json', 'w').write('{}')\nprint('made')";
    let planted = world.ws(".jig/tools/evil.tool.json");
    twice("make a missing protected folder", |on| {
        let outcome = run(on, plant);
        assert!(outcome.render().contains("made"), "{}", outcome.render());
        let there = planted.exists();
        if on {
            assert_eq!(outcome.set_aside, [moved(".jig", ".jig.jig-set-aside-1")]);
            assert!(
                world
                    .ws(".jig.jig-set-aside-1/tools/evil.tool.json")
                    .exists(),
                "nothing of it is lost"
            );
            assert!(
                outcome
                    .render()
                    .contains(".jig was moved to .jig.jig-set-aside-1")
            );
        } else {
            std::fs::remove_dir_all(world.ws(".jig")).unwrap();
        }
        there
    });
    // A second call sets its own aside under the next free name.
    let outcome = run(true, plant);
    assert_eq!(outcome.set_aside, [moved(".jig", ".jig.jig-set-aside-2")]);
    // A read-only call makes nothing there at all.
    let outcome = kernel(true)
        .run_with(
            &["python3", "-c", plant],
            &jig_kernel::RunOptions::new(support::limits()).with_access(Access::ReadOnly),
        )
        .unwrap();
    assert!(!outcome.render().contains("made") && outcome.set_aside.is_empty());
    assert!(!world.ws(".jig").exists());
    // Every short name taken first: a name no call can guess, or removal.
    let taken = "import os\nfor n in range(1, 101): open('.jig.jig-set-aside-%d' % n, 'a').close()";
    run(true, taken);
    let outcome = run(true, plant);
    assert!(!world.ws(".jig").exists(), "{}", outcome.render());
    match outcome.set_aside.as_slice() {
        [jig_kernel::SetAside::Moved { from, to }] => {
            assert_eq!(from, Path::new(".jig"));
            assert!(
                world
                    .ws(to.to_str().unwrap())
                    .join("tools/evil.tool.json")
                    .exists()
            );
        }
        other => panic!("{other:?}"),
    }
}

fn moved(from: &str, to: &str) -> jig_kernel::SetAside {
    jig_kernel::SetAside::Moved {
        from: from.into(),
        to: to.into(),
    }
}

/// A protected path that existed when a call started, replaced while it
/// ran (another call set aside what it had made there, or the folder above
/// a missing one was renamed and a link left in its place): what the call
/// leaves there is not what stood there, and is set aside too.
fn replace_a_protected_path_during_a_write_call() {
    let world = World::new();
    std::fs::create_dir_all(world.ws(".git")).unwrap();
    std::fs::create_dir_all(world.ws(".husky")).unwrap();
    let kernel = jig_kernel::Kernel::builder(world.workspace.path())
        .tmpdir(world.tmp_base.path())
        .read_only_paths([".git", ".husky/_"])
        .containment(jig_kernel::Containment::required())
        .build()
        .unwrap();
    let options =
        jig_kernel::RunOptions::new(support::limits()).with_access(Access::WriteWorkspace);
    // The call waits for `.git` to be moved away from outside (as another
    // call's end would), then makes its own.
    let script = "import os, time\n\
                  while os.path.exists('.git/mark'): time.sleep(0.01)\n\
                  os.makedirs('.git/hooks'); open('.git/config', 'w').write('[core]')\n\
                  print('made')";
    std::fs::write(world.ws(".git/mark"), "").unwrap();
    let outcome = std::thread::scope(|scope| {
        let call = scope.spawn(|| kernel.run_with(&["python3", "-c", script], &options));
        std::thread::sleep(Duration::from_millis(300));
        std::fs::rename(world.ws(".git"), world.ws("elsewhere")).unwrap();
        call.join().unwrap().unwrap()
    });
    assert!(outcome.render().contains("made"), "{}", outcome.render());
    assert_eq!(outcome.set_aside, [moved(".git", ".git.jig-set-aside-1")]);
    assert!(!world.ws(".git").exists());
    // A missing path under a folder that exists: the folder cannot be
    // renamed away, and what is made at the path is set aside.
    let script = "import os\n\
                  try: os.rename('.husky', 'h2')\n\
                  except OSError as error: print(error)\n\
                  os.makedirs('.husky/_'); open('.husky/_/pre-commit', 'w').write('#!/bin/sh')";
    let outcome = kernel
        .run_with(&["python3", "-c", script], &options)
        .unwrap();
    assert!(!world.ws("h2").exists(), "{}", outcome.render());
    assert_eq!(
        outcome.set_aside,
        [moved(".husky/_", ".husky/_.jig-set-aside-1")]
    );
    // A protected path reached through a link: the link is watched too. The
    // call cannot write where it leads, and a link it puts in its place
    // (to a git folder of its own) is set aside.
    let world = World::new();
    std::fs::create_dir_all(world.ws("realgit")).unwrap();
    std::os::unix::fs::symlink("realgit", world.ws(".git")).unwrap();
    let kernel = jig_kernel::Kernel::builder(world.workspace.path())
        .tmpdir(world.tmp_base.path())
        .read_only_paths([".git"])
        .containment(jig_kernel::Containment::required())
        .build()
        .unwrap();
    let script = "import os\n\
                  try: open('.git/config', 'w').write('[core]')\n\
                  except OSError as error: print(error)\n\
                  os.makedirs('evilgit'); open('evilgit/config', 'w').write('[core]')\n\
                  os.remove('.git'); os.symlink('evilgit', '.git')";
    let outcome = kernel
        .run_with(&["python3", "-c", script], &options)
        .unwrap();
    assert!(!world.ws("realgit/config").exists(), "{}", outcome.render());
    assert_eq!(
        outcome.set_aside,
        [moved(".git", ".git.jig-set-aside-1")],
        "{}",
        outcome.render()
    );
    assert!(std::fs::symlink_metadata(world.ws(".git")).is_err());
}

fn a_path_protected_for_one_run() {
    let world = World::new();
    std::fs::create_dir_all(world.ws(".githooks")).unwrap();
    let kernel = jig_kernel::Kernel::builder(world.workspace.path())
        .tmpdir(world.tmp_base.path())
        .read_only_paths([".git/hooks"])
        .containment(jig_kernel::Containment::required())
        .build()
        .unwrap();
    let hook = world.ws(".githooks/pre-commit");
    let write_hook = |options: jig_kernel::RunOptions| {
        let _ = std::fs::remove_file(&hook);
        let script = "open('.githooks/pre-commit', 'w').write('#!/bin/sh')";
        kernel
            .run_with(&["python3", "-c", script], &options)
            .unwrap();
        hook.exists()
    };
    let options =
        || jig_kernel::RunOptions::new(support::limits()).with_access(Access::WriteWorkspace);
    // Not protected by the kernel: a run that may write writes there.
    assert!(
        write_hook(options()),
        "the folder is writable without the option"
    );
    // Protected for this run only, the next run is as before.
    assert!(
        !write_hook(options().with_read_only_path(".githooks")),
        "a path protected for the run was written"
    );
    assert!(write_hook(options()), "the protection outlived its run");
    let _ = std::fs::remove_file(&hook);
}

/// The next call's init, made while a call runs (a warm init), and its
/// armed program process (which shares its descriptor table) hold no
/// descriptor of the integrator (an inheritable canary file among them)
/// and none of its standard streams, only `/dev/null`, the init's socket
/// and the listener that keeps the armed process's seccomp filter; both
/// are gone soon after the integrator exits.
fn a_waiting_init_holds_nothing_and_ends_with_the_integrator() {
    let world = World::new();
    let text = run_listing_inits(&world, &["true"], &[]);
    let holds_nothing = |line: &str, descriptors: &[&str]| {
        let null = descriptors.iter().filter(|d| **d == "/dev/null").count();
        let sockets = descriptors
            .iter()
            .filter(|d| d.starts_with("socket:"))
            .count();
        // `anon_inode:seccomp notify`, two fields of the line.
        let listeners = descriptors
            .windows(2)
            .filter(|pair| pair == &["anon_inode:seccomp", "notify"])
            .count();
        assert!(
            null == 3 && sockets == 1 && listeners <= 1 && descriptors.len() == 4 + 2 * listeners,
            "a waiting init holds more than /dev/null, its socket and a listener: {line}"
        );
    };
    let waiting = listed_inits(&text, "waiting ", holds_nothing);
    assert!(!waiting.is_empty(), "no waiting init was found: {text}");
    // The call before it had a filter: the init armed a program process.
    let armed = listed_inits(&text, "armed ", holds_nothing);
    assert!(
        !armed.is_empty(),
        "no armed program process was found: {text}"
    );
    wait_gone(&waiting, "waiting init");
    wait_gone(&armed, "armed program process");
}

/// The output of a contained, read-only integrator that runs `argv`,
/// holds an inheritable canary file open all its life and lists its inits
/// after the call (`waiting ...`, `call-init ...`), with `env` added to its
/// environment; checked to have held the canary.
fn run_listing_inits(world: &World, argv: &[&str], env: &[(&str, &str)]) -> String {
    let held = world.out("held-open");
    let held_text = held.display().to_string();
    let mut all_env = vec![
        (crate::integrator::SHOW_WAITING, "1"),
        (crate::integrator::CANARY_FILE, held_text.as_str()),
    ];
    all_env.extend_from_slice(env);
    let launch = Launch {
        env: &all_env,
        ..Launch::in_world(world, argv)
    };
    let text = launch.output();
    assert!(
        held.exists(),
        "the integrator did not hold the canary: {text}"
    );
    text
}

/// The inits an integrator listed as `PREFIX PID START DESCRIPTOR...`
/// (pid and start time), each line checked by `check` with its
/// descriptors.
fn listed_inits(text: &str, prefix: &str, check: impl Fn(&str, &[&str])) -> Vec<(i32, u64)> {
    text.lines()
        .filter_map(|line| line.strip_prefix(prefix))
        .map(|line| {
            let fields: Vec<&str> = line.split(' ').collect();
            check(line, &fields[2..]);
            (fields[0].parse().unwrap(), fields[1].parse().unwrap())
        })
        .collect()
}

/// Waits until each of `inits` (pid and start time: a reused pid is
/// another process) is gone, at most five seconds in all.
fn wait_gone(inits: &[(i32, u64)], what: &str) {
    let start = Instant::now();
    for &(pid, started) in inits {
        while support::start_time(pid) == Some(started) {
            assert!(
                start.elapsed() < Duration::from_secs(5),
                "the {what} {pid} outlived its integrator"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// A process that says it makes one call (`Expect::OneCall`, as `jig call`)
/// gets that call's init made ahead and no other: after the call no init
/// waits. The call's init, its program and every other process of the
/// call gone, stays (holding nothing but `/dev/null`) until the process
/// ends, and ends with it.
fn a_one_call_process_prepares_no_second_init_and_its_init_ends_with_it() {
    let world = World::new();
    let text = run_listing_inits(
        &world,
        &["sh", "-c", "sleep 41.7 & echo done"],
        &[(crate::integrator::EXPECT_ONE_CALL, "1")],
    );
    assert!(text.contains("done"), "the call did not run: {text}");
    assert!(
        !text.lines().any(|line| line.starts_with("waiting ")),
        "a one-call process made a second init: {text}"
    );
    let inits = listed_inits(&text, "call-init ", |line, descriptors| {
        assert!(
            descriptors
                .iter()
                .all(|d| *d == "/dev/null" || d.is_empty()),
            "the call's init holds more than /dev/null after its call: {line}"
        );
    });
    assert_eq!(inits.len(), 1, "the call's init did not stay: {text}");
    // The background `sleep` was ended with the call, not left to the init.
    assert!(
        !std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|entry| std::fs::read_to_string(entry.path().join("cmdline")).ok())
            .any(|cmdline| cmdline == "sleep\x0041.7\x00"),
        "the call's background process outlived the call"
    );
    wait_gone(&inits, "call's init");
}

/// A process that said it makes one call but makes more (a library
/// user's slip, or a command line guessed wrong) keeps only the first
/// call's init until it ends: the others exit with their calls, as a
/// server's do, rather than one more process and its namespaces per call.
fn a_one_call_process_that_makes_more_keeps_one_init() {
    let world = World::new();
    let text = run_listing_inits(
        &world,
        &["sh", "-c", "echo done"],
        &[
            (crate::integrator::EXPECT_ONE_CALL, "1"),
            (crate::integrator::CALLS, "4"),
        ],
    );
    assert_eq!(
        text.matches("done").count(),
        4,
        "the calls did not run: {text}"
    );
    let inits = listed_inits(&text, "call-init ", |_, _| ());
    assert_eq!(inits.len(), 1, "not one lingering init: {text}");
    wait_gone(&inits, "call's init");
}

/// Every call's program may run on the processors its integrator may run
/// on, however the kernel places its own threads meanwhile (the probe runs
/// on another processor than the thread that started it; nothing started
/// then keeps that mask): the programs of an integrator's successive calls
/// print the integrator's own mask.
fn every_call_runs_on_the_integrators_processors() {
    let world = World::new();
    let text = run_listing_inits(
        &world,
        &py("import os; print('program mask:', ', '.join(map(str, sorted(os.sched_getaffinity(0)))))")
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        &[(crate::integrator::CALLS, "6")],
    );
    let integrator = text
        .lines()
        .find_map(|line| line.strip_prefix("integrator mask: "))
        .unwrap_or_else(|| panic!("no integrator mask: {text}"));
    let programs: Vec<&str> = text
        .lines()
        .filter_map(|line| line.split("program mask: ").nth(1))
        .collect();
    assert_eq!(programs.len(), 6, "not every call ran: {text}");
    assert!(
        programs.iter().all(|mask| *mask == integrator),
        "a call's program ran on fewer processors than its integrator ({integrator}): {text}"
    );
}

/// From an integrator's second call on, the program is its warm init's
/// armed process, made (its seccomp filter installed) before the call
/// came, and its temporary folder a tmpfs mounted before the call came: it
/// is as contained as a program cloned for its call, and its temporary
/// folder as empty and as writable. Each call's
/// program says how old it was when it started its script (an armed one
/// was made before the integrator's pause between calls, a cloned one
/// moments before) and tries what only its filter refuses (to start its
/// own program again, which Landlock lets it execute; a UDP socket, which
/// Landlock does not cover) and what Landlock refuses (to write outside
/// the workspace, to connect to a loopback listener).
fn an_armed_program_is_contained_as_a_cloned_one() {
    let world = World::new();
    let marker = world.out("armed-marker");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    let udp_port = udp.local_addr().unwrap().port();
    // Clock ticks (hundredths of a second) since this shell started.
    let script = format!(
        "read -r stat < /proc/self/stat; set -- $stat; start=${{22}}\n\
         read -r up _ < /proc/uptime; now=${{up%.*}}${{up#*.}}\n\
         echo \"age ticks: $((now - start))\"\n\
         shopt -s nullglob dotglob; set -- \"$TMPDIR\"/*; echo \"tmp entries: $#\"\n\
         if (: > \"$TMPDIR/left\") 2>/dev/null; then echo tmp written; fi\n\
         if \"$BASH\" -c 'exit 0' 2>/dev/null; then echo escaped: exec; else echo refused: exec; fi\n\
         if (exec 3<>/dev/udp/127.0.0.1/{udp_port}) 2>/dev/null; then echo escaped: udp; \
         else echo refused: udp; fi\n\
         if (echo x > '{marker}') 2>/dev/null; then echo escaped: write; else echo refused: write; fi\n\
         if (exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null; then echo escaped: connect; \
         else echo refused: connect; fi\n",
        marker = marker.display(),
    );
    let calls = 4;
    let text = run_listing_inits(
        &world,
        &["bash", "-c", &script],
        &[(crate::integrator::CALLS, "4")],
    );
    let ages: Vec<u64> = text
        .lines()
        .filter_map(|line| line.split("age ticks: ").nth(1))
        .map(|age| age.trim().parse().unwrap())
        .collect();
    assert_eq!(ages.len(), calls, "not every call ran: {text}");
    // Made at least 20 ms before it ran: during the previous call, before
    // the integrator's 30 ms pause.
    assert!(
        ages[1..].iter().all(|age| *age >= 2),
        "a later call's program was not armed ahead: {text}"
    );
    for what in ["exec", "udp", "write", "connect"] {
        assert_eq!(
            text.matches(&format!("refused: {what}")).count(),
            calls,
            "a call's program was not refused to {what}: {text}"
        );
    }
    assert!(!text.contains("escaped"), "{text}");
    // Each call's temporary folder (a tmpfs its init mounted ahead, from the
    // second call on) starts empty and is writable.
    assert_eq!(text.matches("tmp entries: 0").count(), calls, "{text}");
    assert_eq!(text.matches("tmp written").count(), calls, "{text}");
    assert!(!marker.exists(), "a program wrote outside the workspace");
    assert!(!accepted(&listener), "a program reached the listener");
}

/// Calls whose access differs in turn (write, read, write, read, ...) in
/// one integrator: each writes in the workspace exactly when its own access
/// lets it, whichever ruleset was made ahead during the call before (the
/// next call's is made as the last call's was: a read call must not get a
/// write call's).
fn alternating_access_gets_each_calls_own_rules() {
    let world = World::new();
    let script = "n=0; while [ -e \"turn-$n\" ]; do n=$((n + 1)); done\n\
                  if (: > \"turn-$n\") 2>/dev/null; then echo \"turn $n: wrote\"; \
                  else echo \"turn $n: refused\"; fi\n";
    let calls = 6;
    let text = run_listing_inits(
        &world,
        &["bash", "-c", script],
        &[
            (crate::integrator::CALLS, "6"),
            (
                crate::integrator::ACCESS_TURNS,
                "write,write,read,write,read,read",
            ),
        ],
    );
    // A refused call leaves no file: the next call finds the same number.
    let said: Vec<&str> = text
        .lines()
        .filter(|line| line.contains("turn "))
        .filter_map(|line| line.rsplit(": ").next())
        .filter(|word| ["wrote", "refused"].contains(word))
        .collect();
    assert_eq!(
        said,
        ["wrote", "wrote", "refused", "wrote", "refused", "refused"],
        "{text}"
    );
    let written: Vec<String> = (0..3).map(|n| format!("turn-{n}")).collect();
    for name in &written {
        assert!(world.workspace.path().join(name).exists(), "{name}: {text}");
    }
    assert!(!world.workspace.path().join("turn-3").exists(), "{text}");
    assert_eq!(said.len(), calls);
}

/// A waiting init killed from outside (or dead for any reason) is not
/// handed the next call: that call's init is cloned for it, and it runs,
/// contained as ever.
fn a_call_whose_waiting_init_was_killed_still_runs() {
    let world = World::new();
    let first = world.run(true, Access::ReadOnly, &["echo", "first"]);
    assert!(first.render().contains("first"), "{}", first.render());
    let waiting = support::waiting_inits(Duration::from_secs(5));
    assert!(!waiting.is_empty(), "no waiting init after a call");
    for init in &waiting {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(init.pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    for init in &waiting {
        let start = Instant::now();
        while support::start_time(init.pid) == Some(init.start) {
            assert!(
                start.elapsed() < Duration::from_secs(5),
                "SIGKILL did not end {}",
                init.pid
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    let canary = world.canary.clone();
    let next = world.run(
        true,
        Access::ReadOnly,
        &["cat", &world.out("canary.txt").display().to_string()],
    );
    assert!(!next.render().contains(&canary), "{}", next.render());
    let ok = world.run(true, Access::ReadOnly, &["echo", "second"]);
    assert!(ok.render().contains("second"), "{}", ok.render());
}

/// A call taken by an armed program whose `execve` fails (the interpreter
/// its script names is gone) is reported as not started, as a cloned
/// program's is: its init, which goes on at once after waking it, leaves
/// the armed process the descriptors it reports on. The next call runs.
fn an_armed_program_that_cannot_start_is_reported() {
    let world = World::new();
    let script = world.workspace.path().join("breaks-itself");
    // Run once, it names an interpreter that does not exist.
    std::fs::write(
        &script,
        "#!/bin/bash\nprintf '#!/nonexistent/jig-interpreter\\necho ran\\n' > \"$0\"\n\
         echo first ran\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = script.display().to_string();
    let limits = support::limits();
    let kernel = world.kernel(true, limits);
    let options = jig_kernel::RunOptions::new(limits).with_access(Access::WriteWorkspace);
    // Calls with the script's access first, so that every init waiting
    // when the script runs was armed with its filter (one made for another
    // access, or none, would clone the program instead).
    for _ in 0..3 {
        let primed = kernel.run_with(&["echo", "primed"], &options).unwrap();
        assert!(primed.render().contains("primed"), "{}", primed.render());
    }
    let first = kernel.run_with(&[path.as_str()], &options).unwrap();
    assert!(first.render().contains("first ran"), "{}", first.render());
    // The next call's init waits with its armed program, made during the
    // first call with the first call's filter.
    let armed: Vec<support::ChildInit> = support::waiting_inits(Duration::from_secs(5))
        .iter()
        .flat_map(|init| support::children_of_named(&init.pid.to_string(), "jig-armed"))
        .collect();
    assert!(
        !armed.is_empty(),
        "no armed program waits for the next call"
    );
    match kernel.run_with(&[path.as_str()], &options) {
        Err(jig_kernel::KernelError::ProgramNotFound { program, .. }) => {
            assert!(program.ends_with("breaks-itself"), "{program}");
        }
        Err(other) => panic!("not reported as a program that cannot start: {other}"),
        Ok(outcome) => panic!("reported as run: {}", outcome.render()),
    }
    let next = world.run(true, Access::ReadOnly, &["echo", "next"]);
    assert!(next.render().contains("next"), "{}", next.render());
}
