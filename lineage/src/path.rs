//! Path confinement: a path argument stays inside the workspace root.
//!
//! The command receives the literal value, and the operating system resolves
//! it from the root (the working directory of every run). So the check does
//! what the operating system will do: it walks the value one component at a
//! time from the root, follows each symbolic link it meets, applies `..` to
//! the directory actually reached, and treats the part that does not exist
//! yet lexically. Independently, it normalizes the value lexically. Both
//! answers must land inside the canonical root: the physical walk is the
//! truth; the lexical one refuses values that only stay inside thanks to a
//! symbolic link, which a model has no business relying on.

use std::ffi::OsString;
use std::fs::Metadata;
use std::os::unix::fs::FileTypeExt;
use std::path::{Component, Path, PathBuf};

/// The trees that never hold workspace files and whose files are not what
/// they seem (process memory, kernel knobs, devices).
const SYSTEM_TREES: &[&str] = &["/proc", "/sys", "/dev"];

/// How many symbolic links one value may follow, as Linux allows.
const MAX_LINKS: u32 = 40;

/// The longest path value, in bytes (Linux's `PATH_MAX` less the NUL).
const MAX_PATH_BYTES: usize = 4095;

/// Why a path value was refused. The message is guidance for the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PathRefusal {
    /// The value is empty.
    #[error("the path is empty; give a path inside the workspace, relative to the workspace root")]
    Empty,
    /// The value holds a NUL byte, which no path can contain.
    #[error(
        "the path {value:?} contains a NUL byte; give a plain path inside the workspace, relative to the workspace root"
    )]
    Nul {
        /// The value as given.
        value: String,
    },
    /// The value begins with `~`, which no shell expands here.
    #[error(
        "the path {value:?} begins with `~`, which is not expanded to a home folder here (and a home folder is outside the workspace); use a path inside the workspace, relative to the workspace root"
    )]
    Home {
        /// The value as given.
        value: String,
    },
    /// The value holds a backslash, a Windows separator that is a plain
    /// character here.
    #[error(
        "the path {value:?} contains a backslash; paths here separate folders with \"/\": write it with \"/\", relative to the workspace root"
    )]
    Backslash {
        /// The value as given.
        value: String,
    },
    /// The value is a URL (`scheme://...`), not a path.
    #[error(
        "the path {value:?} is a URL; give a plain path inside the workspace, relative to the workspace root"
    )]
    Url {
        /// The value as given.
        value: String,
    },
    /// The value is longer than any path the system accepts.
    #[error(
        "the path is {length} bytes long, more than the system accepts (4095); use a shorter path inside the workspace"
    )]
    TooLong {
        /// Its length in bytes.
        length: usize,
    },
    /// The value resolves (lexically or through symbolic links) outside the
    /// workspace root.
    #[error(
        "the path {value:?} is outside the workspace; use a path inside it, relative to the workspace root"
    )]
    Escapes {
        /// The value as given.
        value: String,
    },
    /// The value names something under `/proc`, `/sys` or `/dev`.
    #[error(
        "the path {value:?} is a system path (/proc, /sys and /dev are never available); use a file inside the workspace, relative to the workspace root"
    )]
    SystemPath {
        /// The value as given.
        value: String,
    },
    /// The value names a device, a FIFO or a socket.
    #[error(
        "the path {value:?} is a special file (a device, pipe or socket), not a regular file or folder; use a regular file inside the workspace"
    )]
    SpecialFile {
        /// The value as given.
        value: String,
    },
    /// The value follows too many symbolic links (or a loop of them).
    #[error(
        "the path {value:?} goes through too many symbolic links; use the real path of the file inside the workspace"
    )]
    TooManyLinks {
        /// The value as given.
        value: String,
    },
}

impl PathRefusal {
    /// The value that was refused (empty for [`PathRefusal::Empty`] and
    /// [`PathRefusal::TooLong`]).
    pub fn value(&self) -> &str {
        match self {
            PathRefusal::Empty | PathRefusal::TooLong { .. } => "",
            PathRefusal::Nul { value }
            | PathRefusal::Home { value }
            | PathRefusal::Backslash { value }
            | PathRefusal::Url { value }
            | PathRefusal::Escapes { value }
            | PathRefusal::SystemPath { value }
            | PathRefusal::SpecialFile { value }
            | PathRefusal::TooManyLinks { value } => value,
        }
    }
}

/// Resolves `value` against `root` and answers the absolute path it names,
/// or why it is refused.
///
/// `root` must be the canonical workspace root ([`jig_kernel::Kernel::root`]
/// is); a non-canonical root only makes the check refuse more. Relative
/// values are resolved from the root; absolute values are allowed when they
/// land inside it. The answer is refused when, lexically or after following
/// symbolic links, it lands outside the root or under `/proc`, `/sys` or
/// `/dev`, or when it names a device, FIFO or socket. A path that does not
/// exist yet is allowed if it would be inside the root. Values beginning
/// with `~` (a shell would expand them to a home folder), holding a
/// backslash (a Windows separator) or `://` (a URL), longer than `PATH_MAX`
/// or holding a NUL byte are refused before any I/O. The value is
/// returned resolved: symbolic links of the existing part followed, `.` and
/// `..` applied.
///
/// The only I/O is reading file metadata and symbolic links.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let root = std::env::current_dir()?.canonicalize()?;
/// let inside = jig_lineage::confine_path(&root, "src/../Cargo.toml")?;
/// assert_eq!(inside, root.join("Cargo.toml"));
/// assert!(jig_lineage::confine_path(&root, "../../etc/passwd").is_err());
/// assert!(jig_lineage::confine_path(&root, "/proc/self/environ").is_err());
/// # Ok(())
/// # }
/// ```
pub fn confine_path(root: &Path, value: &str) -> Result<PathBuf, PathRefusal> {
    if value.is_empty() {
        return Err(PathRefusal::Empty);
    }
    let owned = || value.to_owned();
    if value.len() > MAX_PATH_BYTES {
        return Err(PathRefusal::TooLong {
            length: value.len(),
        });
    }
    if value.contains('\0') {
        return Err(PathRefusal::Nul { value: owned() });
    }
    if value.starts_with('~') {
        return Err(PathRefusal::Home { value: owned() });
    }
    if value.contains('\\') {
        return Err(PathRefusal::Backslash { value: owned() });
    }
    if value.contains("://") {
        return Err(PathRefusal::Url { value: owned() });
    }
    let joined = root.join(value);
    let lexical = normalize_lexically(&joined);
    if is_system(&lexical) {
        return Err(PathRefusal::SystemPath { value: owned() });
    }
    if !lexical.starts_with(root) {
        return Err(PathRefusal::Escapes { value: owned() });
    }
    let walked =
        walk(root, Path::new(value)).ok_or_else(|| PathRefusal::TooManyLinks { value: owned() })?;
    if walked.through_system || is_system(&walked.path) {
        return Err(PathRefusal::SystemPath { value: owned() });
    }
    if !walked.path.starts_with(root) {
        return Err(PathRefusal::Escapes { value: owned() });
    }
    if walked.metadata.as_ref().is_some_and(is_special) {
        return Err(PathRefusal::SpecialFile { value: owned() });
    }
    Ok(walked.path)
}

/// `.` dropped and `..` applied to the text alone (never above `/`).
fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Prefix(prefix) => out.push(prefix.as_os_str()),
            Component::RootDir => out.push(Component::RootDir.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
        }
    }
    out
}

fn is_system(path: &Path) -> bool {
    SYSTEM_TREES.iter().any(|tree| path.starts_with(tree))
}

fn is_special(metadata: &Metadata) -> bool {
    let kind = metadata.file_type();
    kind.is_char_device() || kind.is_block_device() || kind.is_fifo() || kind.is_socket()
}

/// Where the operating system would land, and the metadata of what is there
/// (`None` when the path does not exist).
struct Walked {
    path: PathBuf,
    metadata: Option<Metadata>,
    /// Whether the walk went through a system tree on its way (a link to
    /// `/` then `proc/<pid>/cwd` back into the workspace): what is there
    /// is a process's state at run time, not the files checked now.
    through_system: bool,
}

enum Part {
    Root,
    Parent,
    Name(OsString),
}

fn parts(path: &Path) -> impl DoubleEndedIterator<Item = Part> + '_ {
    path.components().filter_map(|component| match component {
        Component::Prefix(_) | Component::RootDir => Some(Part::Root),
        Component::CurDir => None,
        Component::ParentDir => Some(Part::Parent),
        Component::Normal(name) => Some(Part::Name(name.to_owned())),
    })
}

/// Walks `value` from `root` as path resolution does. `None` when it
/// follows more than [`MAX_LINKS`] symbolic links.
fn walk(root: &Path, value: &Path) -> Option<Walked> {
    let mut current = root.to_path_buf();
    // Remaining parts, next one last.
    let mut pending: Vec<Part> = parts(value).rev().collect();
    let mut links = 0u32;
    let mut missing = false;
    let mut metadata = std::fs::symlink_metadata(&current).ok();
    let mut through_system = false;
    while let Some(part) = pending.pop() {
        through_system |= is_system(&current);
        match part {
            Part::Root => {
                current = PathBuf::from("/");
                metadata = std::fs::symlink_metadata(&current).ok();
            }
            Part::Parent => {
                current.pop();
                if !missing {
                    metadata = std::fs::symlink_metadata(&current).ok();
                } else if let Ok(found) = std::fs::symlink_metadata(&current) {
                    // Back out of the part that does not exist, onto folders
                    // that do: the rest is walked as the operating system
                    // would once that part exists (`new/../link` follows
                    // `link`), not taken lexically.
                    missing = false;
                    metadata = Some(found);
                }
            }
            Part::Name(name) => {
                let candidate = current.join(&name);
                if missing {
                    current = candidate;
                    continue;
                }
                match std::fs::symlink_metadata(&candidate) {
                    Ok(found) if found.file_type().is_symlink() => {
                        links += 1;
                        if links > MAX_LINKS {
                            return None;
                        }
                        match std::fs::read_link(&candidate) {
                            // The target replaces the link, resolved from
                            // the link's folder (`current`).
                            Ok(target) => pending.extend(parts(&target).rev()),
                            Err(_) => {
                                missing = true;
                                metadata = None;
                                current = candidate;
                            }
                        }
                    }
                    Ok(found) => {
                        metadata = Some(found);
                        current = candidate;
                    }
                    Err(_) => {
                        // Not there (or not reachable): the rest is the part
                        // that does not exist yet, taken lexically.
                        missing = true;
                        metadata = None;
                        current = candidate;
                    }
                }
            }
        }
    }
    through_system |= is_system(&current);
    Some(Walked {
        path: current,
        metadata,
        through_system,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::write(root.join("src/main.rs"), "fn main() {}").unwrap();
        (dir, root)
    }

    #[test]
    fn inside_values_resolve() {
        let (_dir, root) = workspace();
        let cases = [
            (".", root.clone()),
            ("src", root.join("src")),
            ("./src/main.rs", root.join("src/main.rs")),
            ("src/deep/../main.rs", root.join("src/main.rs")),
            ("src//deep/", root.join("src/deep")),
            ("new/file.txt", root.join("new/file.txt")),
            ("new/../src", root.join("src")),
            ("src/main.rs/x", root.join("src/main.rs/x")),
        ];
        for (value, expected) in cases {
            assert_eq!(confine_path(&root, value), Ok(expected), "{value}");
        }
        let absolute = root.join("src/main.rs");
        let absolute = absolute.to_str().unwrap();
        assert_eq!(confine_path(&root, absolute), Ok(root.join("src/main.rs")));
    }

    #[test]
    fn outside_values_are_refused() {
        let (_dir, root) = workspace();
        for value in ["..", "../x", "src/../../x", "/etc/passwd", "/", "/tmp"] {
            assert!(
                matches!(confine_path(&root, value), Err(PathRefusal::Escapes { .. })),
                "{value}"
            );
        }
        for value in ["/proc/self/environ", "/dev/null", "/sys/kernel", "/dev"] {
            assert!(
                matches!(
                    confine_path(&root, value),
                    Err(PathRefusal::SystemPath { .. })
                ),
                "{value}"
            );
        }
        assert_eq!(confine_path(&root, ""), Err(PathRefusal::Empty));
        for value in ["~", "~/.ssh/id_rsa", "~root/x"] {
            assert!(
                matches!(confine_path(&root, value), Err(PathRefusal::Home { .. })),
                "{value}"
            );
        }
        assert!(matches!(
            confine_path(&root, "..\\x"),
            Err(PathRefusal::Backslash { .. })
        ));
        assert!(matches!(
            confine_path(&root, "file:///etc/passwd"),
            Err(PathRefusal::Url { .. })
        ));
        assert!(matches!(
            confine_path(&root, &"a/".repeat(2100)),
            Err(PathRefusal::TooLong { length: 4200 })
        ));
        assert!(matches!(
            confine_path(&root, "a\0b"),
            Err(PathRefusal::Nul { .. })
        ));
    }

    #[test]
    fn symbolic_links_are_followed() {
        let (_dir, root) = workspace();
        let link = |target: &str, name: &str| {
            std::os::unix::fs::symlink(target, root.join(name)).unwrap();
        };
        link("/etc", "etc_link");
        link("src/deep", "deep_link");
        link("/dev/null", "null_link");
        link("loop_b", "loop_a");
        link("loop_a", "loop_b");
        link("../..", "up_link");
        let refused = |value: &str| confine_path(&root, value).err();
        assert!(matches!(
            refused("etc_link/passwd"),
            Some(PathRefusal::Escapes { .. })
        ));
        assert!(matches!(
            refused("null_link"),
            Some(PathRefusal::SystemPath { .. })
        ));
        assert!(matches!(
            refused("loop_a"),
            Some(PathRefusal::TooManyLinks { .. })
        ));
        assert!(matches!(
            refused("up_link"),
            Some(PathRefusal::Escapes { .. })
        ));
        // Through `/proc` and back into the workspace: another process's
        // state at run time, whatever it is now.
        link("/", "root_link");
        let cwd = format!("root_link/proc/{}/cwd", std::process::id());
        // a descriptor of this process open on the workspace: the walk
        // reads its link back into the root
        let held = std::fs::File::open(&root).unwrap();
        let fd = format!(
            "root_link/proc/self/fd/{}",
            std::os::fd::AsRawFd::as_raw_fd(&held)
        );
        for value in [
            cwd.clone(),
            format!("{cwd}/x"),
            fd.clone(),
            format!("{fd}/src/main.rs"),
        ] {
            assert!(
                matches!(refused(&value), Some(PathRefusal::SystemPath { .. })),
                "{value}: {:?}",
                refused(&value)
            );
        }
        // A folder that does not exist, then `..`, then a link: the link is
        // followed as it will be once the folder exists.
        for value in [
            "new/../up_link",
            "a/b/../../up_link/x",
            "new/../deep_link/../../..",
        ] {
            assert_eq!(
                refused(value),
                Some(PathRefusal::Escapes {
                    value: value.to_owned()
                }),
                "{value}"
            );
        }
        // `..` applies to where the link leads, as the kernel does it.
        assert!(matches!(
            refused("deep_link/../../.."),
            Some(PathRefusal::Escapes { .. })
        ));
        assert_eq!(
            confine_path(&root, "deep_link/../main.rs"),
            Ok(root.join("src/main.rs"))
        );
    }

    #[test]
    fn special_files_are_refused() {
        let (_dir, root) = workspace();
        let socket = root.join("sock");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        assert!(matches!(
            confine_path(&root, "sock"),
            Err(PathRefusal::SpecialFile { .. })
        ));
    }

    #[test]
    fn messages_are_guidance() {
        let refusal = PathRefusal::Escapes {
            value: "../x".to_owned(),
        };
        assert_eq!(
            refusal.to_string(),
            "the path \"../x\" is outside the workspace; use a path inside it, relative to the workspace root"
        );
        assert_eq!(refusal.value(), "../x");
    }
}
