//! Which files the operating system itself executes to start a program: the
//! program, the ELF interpreter it names (the dynamic loader), and for a
//! `#!` script its interpreter (and that one's loader). Landlock's `EXECUTE`
//! right is granted on exactly these.

use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::stamp::Stamp;

/// How deep `#!` interpreters may nest (the operating system's own limit is
/// small too).
const MAX_DEPTH: usize = 4;

/// At most this many programs are remembered (a long-lived integrator may
/// run many; past this, the memory starts over).
const MAX_REMEMBERED: usize = 256;

/// The files read to learn what starts one program: each path as it was
/// named (the program, then each interpreter as the file before names it)
/// with its stamp, and the answer.
#[derive(Debug)]
struct Remembered {
    read: Vec<(PathBuf, Option<Stamp>)>,
    files: Vec<PathBuf>,
}

/// The files executed to start `program`, canonical, program first.
///
/// Remembered per program for as long as every file read to learn it is
/// unchanged: a call of the same program checks one stamp per file (the
/// program and its loader) instead of reading them again.
pub(crate) fn executed_files(program: &Path) -> Vec<PathBuf> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock, PoisonError};
    static MEMORY: OnceLock<Mutex<HashMap<PathBuf, Remembered>>> = OnceLock::new();
    let memory = MEMORY.get_or_init(Mutex::default);
    if let Some(remembered) = memory
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(program)
        && remembered
            .read
            .iter()
            .all(|(path, stamp)| Stamp::of(path) == *stamp)
    {
        return remembered.files.clone();
    }
    let mut files = Vec::new();
    let mut read = Vec::new();
    collect(program, &mut files, &mut read, 0);
    let mut memory = memory.lock().unwrap_or_else(PoisonError::into_inner);
    if memory.len() >= MAX_REMEMBERED {
        memory.clear();
    }
    memory.insert(
        program.to_path_buf(),
        Remembered {
            read,
            files: files.clone(),
        },
    );
    files
}

/// Adds `path` and what it names to `files`; records in `read` each path
/// looked at with its stamp, taken before it is read.
fn collect(
    path: &Path,
    files: &mut Vec<PathBuf>,
    read: &mut Vec<(PathBuf, Option<Stamp>)>,
    depth: usize,
) {
    read.push((path.to_path_buf(), Stamp::of(path)));
    let Ok(canonical) = std::fs::canonicalize(path) else {
        return;
    };
    if files.contains(&canonical) {
        return;
    }
    files.push(canonical.clone());
    if depth >= MAX_DEPTH {
        return;
    }
    let Some(mut file) = open_regular(&canonical) else {
        return;
    };
    let mut head = vec![0u8; 4096];
    let Ok(len) = read_up_to(&mut file, &mut head) else {
        return;
    };
    head.truncate(len);
    if let Some(interpreter) = shebang(&head) {
        collect(&interpreter, files, read, depth + 1);
    } else if let Some(loader) = elf_interpreter(&mut file, &head) {
        collect(&loader, files, read, depth + 1);
    }
}

/// The interpreter a `#!` script names (its first word), if `path` is one.
pub fn script_interpreter(path: &Path) -> Option<PathBuf> {
    let mut file = open_regular(path)?;
    let mut head = [0u8; 256];
    let len = read_up_to(&mut file, &mut head).ok()?;
    shebang(head.get(..len)?)
}

/// Opens `path` for reading only if it is a regular file: opened without
/// blocking (a FIFO swapped in after a check would otherwise block the
/// opener until a writer comes) and checked on the open descriptor.
fn open_regular(path: &Path) -> Option<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .ok()?;
    file.metadata().ok()?.is_file().then_some(file)
}

fn read_up_to(file: &mut std::fs::File, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match file.read(&mut buffer[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

/// The interpreter path of a `#!` line.
fn shebang(head: &[u8]) -> Option<PathBuf> {
    let rest = head.strip_prefix(b"#!")?;
    let line = rest.split(|&b| b == b'\n').next()?;
    let path = line
        .split(|&b| b == b' ' || b == b'\t')
        .find(|word| !word.is_empty())?;
    Some(PathBuf::from(std::ffi::OsStr::from_bytes(path)))
}

/// The `PT_INTERP` path of a 64- or 32-bit little-endian ELF file.
fn elf_interpreter(file: &mut std::fs::File, head: &[u8]) -> Option<PathBuf> {
    use std::io::{Seek, SeekFrom};
    if head.get(..4)? != b"\x7fELF" || *head.get(5)? != 1 {
        return None;
    }
    let wide = match head.get(4)? {
        2 => true,
        1 => false,
        _ => return None,
    };
    let (phoff, phentsize, phnum) = if wide {
        (
            u64_at(head, 0x20)?,
            u64::from(u16_at(head, 0x36)?),
            u16_at(head, 0x38)?,
        )
    } else {
        (
            u64::from(u32_at(head, 0x1c)?),
            u64::from(u16_at(head, 0x2a)?),
            u16_at(head, 0x2c)?,
        )
    };
    for index in 0..u64::from(phnum.min(256)) {
        let entry = phoff.checked_add(index.checked_mul(phentsize)?)?;
        let mut header = [0u8; 56];
        file.seek(SeekFrom::Start(entry)).ok()?;
        let len = read_up_to(file, &mut header).ok()?;
        let header = header.get(..len)?;
        const PT_INTERP: u32 = 3;
        if u32_at(header, 0)? != PT_INTERP {
            continue;
        }
        let (offset, size) = if wide {
            (u64_at(header, 0x08)?, u64_at(header, 0x20)?)
        } else {
            (
                u64::from(u32_at(header, 0x04)?),
                u64::from(u32_at(header, 0x10)?),
            )
        };
        let size = usize::try_from(size.min(4096)).ok()?;
        let mut path = vec![0u8; size];
        file.seek(SeekFrom::Start(offset)).ok()?;
        let len = read_up_to(file, &mut path).ok()?;
        path.truncate(len);
        let end = path.iter().position(|&b| b == 0).unwrap_or(path.len());
        path.truncate(end);
        return Some(PathBuf::from(std::ffi::OsStr::from_bytes(&path)));
    }
    None
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dynamic_program_names_its_loader() {
        let files = executed_files(Path::new("/bin/true"));
        assert_eq!(files.len(), 2, "{files:?}");
        assert!(files[1].to_string_lossy().contains("ld-linux"), "{files:?}");
    }

    #[test]
    fn a_script_names_its_interpreter() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("s");
        std::fs::write(&script, "#!/bin/sh -e\necho hi\n").unwrap();
        let files = executed_files(&script);
        assert!(files.len() >= 3, "{files:?}");
        assert_eq!(files[1], std::fs::canonicalize("/bin/sh").unwrap());
    }

    #[test]
    fn a_changed_script_is_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("s");
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        let sh = std::fs::canonicalize("/bin/sh").unwrap();
        assert_eq!(executed_files(&script)[1], sh);
        assert_eq!(executed_files(&script)[1], sh);
        // Another file at the same path (a new inode): read again.
        let other = dir.path().join("t");
        std::fs::write(&other, "#!/bin/cat\n").unwrap();
        std::fs::rename(&other, &script).unwrap();
        let cat = std::fs::canonicalize("/bin/cat").unwrap();
        assert_eq!(executed_files(&script)[1], cat);
        // The same file changed in place (its size and times): read again.
        std::fs::write(&script, "#!/bin/sh -e\n").unwrap();
        assert_eq!(executed_files(&script)[1], sh);
    }

    #[test]
    fn garbage_is_just_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("g");
        std::fs::write(&file, b"\x7fELF\x02\x01\x01\xff\xff").unwrap();
        assert_eq!(executed_files(&file).len(), 1);
    }
}

#[cfg(test)]
mod open_tests {
    use super::script_interpreter;

    #[test]
    fn a_fifo_is_never_opened_for_its_first_line() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("prog");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        // Returns at once (no writer ever comes) and finds nothing.
        assert_eq!(script_interpreter(&fifo), None);
        let script = dir.path().join("script");
        std::fs::write(&script, "#!/bin/sh\necho\n").unwrap();
        assert_eq!(script_interpreter(&script), Some("/bin/sh".into()));
    }
}
