//! The deny-binaries list: programs no tool of any form may run.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashSet};

/// The default deny list's own names: destructive and privilege tools,
/// shells, network fetchers; [`DenyList::default`] adds
/// [`DEFAULT_DENIED_INTERPRETERS`] and [`LAUNCHERS`].
///
/// Interpreters are denied because any argument can become code for them;
/// an integrator who wants `python3` for a fixed script writes a command tool
/// whose template names the script, after lifting the deny with
/// [`DenyList::dangerous_allow`].
pub const DEFAULT_DENIED: &[&str] = &[
    // destructive or privileged
    "rm",
    "rmdir",
    "dd",
    "mkfs",
    "shred",
    "wipefs",
    "fdisk",
    "sfdisk",
    "parted",
    "mkswap",
    "sudo",
    "su",
    "doas",
    "pkexec",
    "chown",
    "chmod",
    "chgrp",
    "chattr",
    "mount",
    "umount",
    "reboot",
    "shutdown",
    "halt",
    "poweroff",
    "kill",
    "killall",
    "pkill",
    "crontab",
    "passwd",
    "useradd",
    "userdel",
    "usermod",
    "iptables",
    "nft",
    "systemctl",
    "insmod",
    "rmmod",
    "modprobe",
    "truncate",
    // shells
    "sh",
    "bash",
    "dash",
    "zsh",
    "ksh",
    "mksh",
    "csh",
    "tcsh",
    "fish",
    "ash",
    "busybox",
    // programs that run a shell from their own language (`dc`'s `!`,
    // `emacs --eval`) and have no table that could judge it; the restricted
    // shell (launchers with tables, `npx` or `vim -c`, are judged there)
    "dc",
    "emacs",
    "rbash",
    // network fetchers and remote shells
    "curl",
    "wget",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "ssh",
    "scp",
    "sftp",
    "telnet",
    "ftp",
    "rsync",
];

/// Launchers: programs whose job is to run another program named in their
/// arguments, or to run one in another context (privileges, namespaces,
/// schedules, sessions, terminals). Part of [`DenyList::default`]; the exec
/// tool's tables refuse them even when lifted, and the run point refuses a
/// program reaching one through a subcommand
/// ([`DEFAULT_DENIED_SUBCOMMANDS`]). The one list: every crate that names
/// launchers uses this.
pub const LAUNCHERS: &[&str] = &[
    "env",
    "xargs",
    "nohup",
    "timeout",
    "nice",
    "ionice",
    "setsid",
    "strace",
    "ltrace",
    "chroot",
    "unshare",
    "nsenter",
    "flock",
    "stdbuf",
    "taskset",
    "chrt",
    "watch",
    "script",
    "runuser",
    "setpriv",
    "capsh",
    "time",
    "parallel",
    "expect",
    "sudo",
    "su",
    "doas",
    "pkexec",
    "busybox",
    "toybox",
    "run-parts",
    "start-stop-daemon",
    "systemd-run",
    "systemd-nspawn",
    "firejail",
    "bwrap",
    "proot",
    "fakeroot",
    "fakechroot",
    "torsocks",
    "proxychains",
    "proxychains4",
    "tsocks",
    "npx",
    "pnpx",
    "bunx",
    "uvx",
    "pipx",
    "numactl",
    "cgexec",
    "sg",
    "newgrp",
    "dbus-launch",
    "dbus-run-session",
    "perf",
    "catchsegv",
    "rlwrap",
    "unbuffer",
    "setarch",
    "linux32",
    "linux64",
    "prlimit",
    "cpulimit",
    "trickle",
    "tini",
    "dumb-init",
    "entr",
    "watchexec",
    "nodemon",
    "at",
    "batch",
    "tmux",
    "screen",
    "daemonize",
    "chpst",
    "xdg-open",
    "sensible-browser",
    "sensible-editor",
    "sensible-pager",
    "x-www-browser",
    "ssh-agent",
    "ip",
    "gdb",
];

/// Programs that start a shell or another program from their own language,
/// input, plugins or configuration (the "Shell" function of the public
/// GTFOBins list: pagers and editors with `!`, TeX's `\write18`, package
/// managers' hooks, debuggers, mail readers...) and that have no table in
/// `jig-programs` to judge them. Part of [`DenyList::default`]; a test of
/// `jig-programs` cross-checks the GTFOBins list against this list and the
/// tables.
pub const SHELL_ESCAPES: &[&str] = &[
    "aa-exec",
    "alpine",
    "ansible-playbook",
    "ansible-test",
    "aoss",
    "apt",
    "apt-get",
    "aptitude",
    "aws",
    "bashbug",
    "batcat",
    "bconsole",
    "bpftrace",
    "bundler",
    "busctl",
    "byebug",
    "c89",
    "c99",
    "cabal",
    "certbot",
    "check_by_ssh",
    "choom",
    "cobc",
    "cowsay",
    "cowthink",
    "cpan",
    "cpio",
    "crash",
    "csvtool",
    "debugfs",
    "distcc",
    "dmesg",
    "dnf",
    "docker",
    "dotnet",
    "dpkg",
    "dstat",
    "easy_install",
    "eb",
    "elvish",
    "enscript",
    "facter",
    "fail2ban-client",
    "fzf",
    "gcloud",
    "ghc",
    "gimp",
    "ginsh",
    "grc",
    "gtester",
    "hg",
    "hping3",
    "iftop",
    "ispell",
    "jjs",
    "joe",
    "journalctl",
    "jrunscript",
    "knife",
    "latex",
    "latexmk",
    "lftp",
    "links",
    "logsave",
    "luatex",
    "lualatex",
    "m4",
    "mail",
    "minicom",
    "msfconsole",
    "multitime",
    "mutt",
    "ncdu",
    "neofetch",
    "nmap",
    "octave",
    "openvpn",
    "pdb",
    "pdflatex",
    "pdftex",
    "perlbug",
    "pexec",
    "pic",
    "posh",
    "pry",
    "puppet",
    "rake",
    "rc",
    "restic",
    "rpm",
    "rpmdb",
    "rpmquery",
    "rpmverify",
    "rtorrent",
    "run-mailcap",
    "runscript",
    "rview",
    "rvim",
    "sash",
    "scanmem",
    "service",
    "setlock",
    "slsh",
    "smbclient",
    "softlimit",
    "split",
    "sqlmap",
    "systemd-resolve",
    "task",
    "tasksh",
    "tdbtool",
    "tex",
    "timedatectl",
    "tmate",
    "top",
    "torify",
    "vigr",
    "vipw",
    "virsh",
    "xdotool",
    "xelatex",
    "xetex",
    "xterm",
    "yash",
    "zypper",
];

/// Interpreters, denied by default because any argument can become code for
/// them (part of [`DenyList::default`]).
pub const DEFAULT_DENIED_INTERPRETERS: &[&str] = &[
    "python",
    "python2",
    "python3",
    "pypy",
    "pypy3",
    "perl",
    "ruby",
    "irb",
    "node",
    "nodejs",
    "deno",
    "bun",
    "php",
    "lua",
    "luajit",
    "tclsh",
    "wish",
    "Rscript",
    "R",
    "julia",
    "osascript",
    "pwsh",
    "powershell",
    "gawk",
    "mawk",
    "nawk",
    "awk",
    "jshell",
    "groovy",
    "scala",
    "erl",
    "escript",
    "guile",
    "racket",
    "sbcl",
    "ghci",
    "runghc",
];

/// Name prefixes denied as families (`mkfs.ext4`, `mkfs.vfat`...; the
/// dynamic loader, which run as a program loads any readable program).
pub const DEFAULT_DENIED_PREFIXES: &[&str] = &["mkfs.", "ld-linux", "ld-musl", "ld.so", "ld64.so"];

/// Subcommands that turn an otherwise harmless program into a launcher of
/// another command: `(program, subcommand)`.
pub const DEFAULT_DENIED_SUBCOMMANDS: &[(&str, &str)] = &[
    ("rustup", "run"),
    ("pipx", "run"),
    ("uv", "run"),
    ("uv", "tool"),
    ("npm", "exec"),
    ("npm", "x"),
    ("pnpm", "dlx"),
    ("pnpm", "exec"),
    ("yarn", "dlx"),
    ("yarn", "exec"),
    ("bun", "x"),
    ("poetry", "run"),
    ("pipenv", "run"),
    ("conda", "run"),
    ("mamba", "run"),
];

/// Multi-call binaries that are judged by the name they are invoked by when
/// reached through a link (`ls` → `coreutils`), and denied when invoked by
/// their own name (`coreutils --coreutils-prog=rm`).
pub const MULTI_CALL: &[&str] = &["coreutils"];

/// Programs that no tool may run, matched however the program is written
/// (`rm`, `/bin/rm`, `./rm`, `../bin/rm`: the last path component decides).
///
/// Start from [`DenyList::default`] and [`deny`](Self::deny) more; removing
/// an entry goes through the visibly named
/// [`dangerous_allow`](Self::dangerous_allow), and replacing the whole list
/// through
/// [`dangerous_replace`](Self::dangerous_replace).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DenyList {
    /// A hash set whose default names are borrowed from the tables above:
    /// a process builds and clones this list at start, and its few hundred
    /// names then cost neither an allocation nor a sort each (as a tree
    /// set of owned strings they were a fifth of the instructions a `jig
    /// call` runs before its call).
    names: HashSet<Cow<'static, str>>,
    prefixes: BTreeSet<Cow<'static, str>>,
    /// Names lifted with `dangerous_allow`: a lifted name also lifts its
    /// versioned family (`python3` lifts `python3.11`).
    lifted: BTreeSet<String>,
}

impl Default for DenyList {
    fn default() -> Self {
        Self {
            names: DEFAULT_DENIED
                .iter()
                .chain(DEFAULT_DENIED_INTERPRETERS)
                .chain(LAUNCHERS)
                .chain(SHELL_ESCAPES)
                .map(|s| Cow::Borrowed(*s))
                .collect(),
            prefixes: DEFAULT_DENIED_PREFIXES
                .iter()
                .map(|s| Cow::Borrowed(*s))
                .collect(),
            lifted: BTreeSet::new(),
        }
    }
}

impl DenyList {
    /// This list with more denied program names.
    pub fn deny<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        for name in names {
            let name = name.into();
            self.lifted.remove(&name);
            self.names.insert(Cow::Owned(name));
        }
        self
    }

    /// This list without the given names: weakening is visible in the code
    /// that does it.
    pub fn dangerous_allow<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        for name in names {
            self.names.remove(name.as_ref());
            self.lifted.insert(name.as_ref().to_owned());
        }
        self
    }

    /// A list holding exactly `names` (no default entries, no prefixes).
    pub fn dangerous_replace<I, S>(names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            names: names
                .into_iter()
                .map(|name| Cow::Owned(name.into()))
                .collect(),
            prefixes: BTreeSet::new(),
            lifted: BTreeSet::new(),
        }
    }

    /// Whether `program` (a name or any path to it) is denied. The last
    /// path component decides, compared in ASCII lower case as well, so
    /// `SH` or `/usr/bin/Rm` (a copy or a case-insensitive file system) is
    /// denied like `sh` and `rm`.
    ///
    /// A versioned name belongs to its family: `python3.11` is judged as
    /// `python3.11`, then `python3`, then `python`; the most specific name
    /// that is denied or lifted decides.
    pub fn is_denied(&self, program: &str) -> bool {
        let name = program_name(program);
        let lower = name.to_ascii_lowercase();
        [name, lower.as_str()]
            .into_iter()
            .any(|name| self.family_denied(name))
    }

    fn family_denied(&self, name: &str) -> bool {
        if self.prefixes.iter().any(|p| name.starts_with(p.as_ref())) {
            return true;
        }
        for member in family(name) {
            if self.lifted.contains(member) {
                return false;
            }
            if self.names.contains(member) {
                return true;
            }
        }
        false
    }

    /// Whether `argv` reaches a denied program through a launcher
    /// subcommand (`rustup run`, `npm exec`...) or invokes a multi-call
    /// binary by its own name.
    pub fn is_denied_launch(&self, argv: &[String]) -> bool {
        let Some(program) = argv.first() else {
            return false;
        };
        let name = program_name(program);
        if MULTI_CALL.contains(&name) && !self.lifted.contains(name) {
            return true;
        }
        let subcommand = argv.iter().skip(1).find(|a| !a.starts_with('-'));
        subcommand.is_some_and(|sub| {
            DEFAULT_DENIED_SUBCOMMANDS
                .iter()
                .any(|(p, s)| family(name).any(|m| m == *p) && sub == s)
                && !self.lifted.contains(name)
        })
    }

    /// Whether `program` (or a member of its versioned family) was lifted
    /// with [`dangerous_allow`](Self::dangerous_allow) and is not denied:
    /// the integrator chose to run it in the templates they wrote, so the
    /// program tables that guard the exec tool do not judge it there.
    pub fn is_lifted(&self, program: &str) -> bool {
        let name = program_name(program);
        !self.is_denied(program) && family(name).any(|member| self.lifted.contains(member))
    }

    /// The denied names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        let mut names: Vec<&str> = self.names.iter().map(AsRef::as_ref).collect();
        names.sort_unstable();
        names.into_iter()
    }
}

/// A name and its versioned family, most specific first: `python3.11`,
/// `python3`, `python`; `gcc-12`, `gcc`.
pub fn family(name: &str) -> impl Iterator<Item = &str> {
    let mut current = Some(name);
    std::iter::from_fn(move || {
        let this = current?;
        let mut rest = this;
        loop {
            let trimmed = rest.trim_end_matches(|c: char| c.is_ascii_digit());
            let trimmed = if trimmed.len() == rest.len() {
                rest.trim_end_matches(['.', '-', '_'])
            } else {
                trimmed
            };
            if trimmed.len() == rest.len() || trimmed.is_empty() {
                current = None;
                break;
            }
            rest = trimmed;
            if rest.ends_with(|c: char| c.is_ascii_alphanumeric()) {
                current = Some(rest);
                break;
            }
        }
        Some(this)
    })
}

/// The name a program is known by: the last path component of how it is
/// written (`rm` for `rm`, `./rm` and `/usr/bin/rm`). The deny list, the
/// exec tool and its permission rules all judge this name.
pub fn program_name(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn denied_however_written() {
        let deny = DenyList::default();
        for program in [
            "rm",
            "/bin/rm",
            "./rm",
            "../../usr/bin/rm",
            "mkfs.ext4",
            "bash",
            "env",
        ] {
            assert!(deny.is_denied(program), "{program}");
        }
        for program in ["grep", "/usr/bin/find", "sed", "rmx", "form"] {
            assert!(!deny.is_denied(program), "{program}");
        }
    }

    #[test]
    fn versioned_families_and_launchers() {
        let deny = DenyList::default();
        assert_eq!(
            family("python3.11").collect::<Vec<_>>(),
            ["python3.11", "python3", "python"]
        );
        assert_eq!(family("gcc-12").collect::<Vec<_>>(), ["gcc-12", "gcc"]);
        assert_eq!(family("grep").collect::<Vec<_>>(), ["grep"]);
        assert_eq!(family("7z").collect::<Vec<_>>(), ["7z"]);
        for program in [
            "python3.11",
            "lua5.4",
            "perl5.36.0",
            "rbash",
            "dc",
            "ld-linux-x86-64.so.2",
        ] {
            assert!(deny.is_denied(program), "{program}");
        }
        for program in ["sha256sum", "base64", "md5sum", "b2sum", "gpg2"] {
            assert!(!deny.is_denied(program), "{program}");
        }
        let lifted = DenyList::default().dangerous_allow(["python3"]);
        assert!(!lifted.is_denied("python3.11"));
        assert!(lifted.is_denied("python"), "only the lifted family");
        let argv = |words: &[&str]| words.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();
        assert!(deny.is_denied_launch(&argv(&["rustup", "run", "stable", "sh"])));
        assert!(deny.is_denied_launch(&argv(&["coreutils", "--coreutils-prog=rm"])));
        assert!(!deny.is_denied_launch(&argv(&["rustup", "show"])));
        assert!(!deny.is_denied_launch(&argv(&["npm", "ls"])));
    }

    #[test]
    fn extending_and_weakening_are_explicit() {
        let deny = DenyList::default().deny(["git"]);
        assert!(deny.is_denied("git"));
        let deny = deny.dangerous_allow(["git", "rm"]);
        assert!(!deny.is_denied("git"));
        assert!(!deny.is_denied("/bin/rm"));
        let deny = DenyList::dangerous_replace(["cat"]);
        assert!(deny.is_denied("cat"));
        assert!(!deny.is_denied("rm"));
    }
}
