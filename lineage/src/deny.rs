//! The deny-binaries list: programs no tool of any form may run.

use std::collections::BTreeSet;

/// The default deny list: destructive and privilege tools, shells and
/// interpreters, and launchers that run another command.
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
    // launchers that run another command
    "env",
    "xargs",
    "nohup",
    "timeout",
    "nice",
    "ionice",
    "setsid",
    "strace",
    "ltrace",
    "gdb",
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

/// Name prefixes denied as families (`mkfs.ext4`, `mkfs.vfat`...).
pub const DEFAULT_DENIED_PREFIXES: &[&str] = &["mkfs."];

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
    names: BTreeSet<String>,
    prefixes: BTreeSet<String>,
}

impl Default for DenyList {
    fn default() -> Self {
        Self {
            names: DEFAULT_DENIED
                .iter()
                .chain(DEFAULT_DENIED_INTERPRETERS)
                .map(|s| (*s).to_owned())
                .collect(),
            prefixes: DEFAULT_DENIED_PREFIXES
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
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
        self.names.extend(names.into_iter().map(Into::into));
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
            names: names.into_iter().map(Into::into).collect(),
            prefixes: BTreeSet::new(),
        }
    }

    /// Whether `program` (a name or any path to it) is denied. The last
    /// path component decides, compared in ASCII lower case as well, so
    /// `SH` or `/usr/bin/Rm` (a copy or a case-insensitive file system) is
    /// denied like `sh` and `rm`.
    pub fn is_denied(&self, program: &str) -> bool {
        let name = program_name(program);
        let lower = name.to_ascii_lowercase();
        [name, lower.as_str()].into_iter().any(|name| {
            self.names.contains(name) || self.prefixes.iter().any(|p| name.starts_with(p.as_str()))
        })
    }

    /// The denied names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(String::as_str)
    }
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
