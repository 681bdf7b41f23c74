//! "The registry is the only caller of the kernel": no library crate's
//! source but the kernel's own and the preset's (whose registry runs what
//! the run point vetted) names the kernel's `Kernel` type or calls its
//! `run_with`. A tool cannot run anything, because it cannot reach a kernel.
//!
//! A textual check over `src/` (tests and benchmarks may run things): the
//! type can only be reached through a `jig_kernel::` path, so a path that
//! names it, outside comments, is a violation.

use std::path::Path;

/// Crates whose library may hold and call the kernel.
const CALLERS: &[&str] = &["jig-kernel", "jig-presets"];

/// Crates exempt: the chore binary, and the command-line front end (it
/// builds the preset and never runs a call itself; its tests show that).
const EXEMPT: &[&str] = &["xtask", "jig-cli"];

/// Every line of a library source, outside the callers, that reaches the
/// kernel.
pub(crate) fn violations<'a>(
    root: &Path,
    packages: impl IntoIterator<Item = &'a str>,
) -> Vec<String> {
    let mut found = Vec::new();
    for package in packages {
        if CALLERS.contains(&package) || EXEMPT.contains(&package) {
            continue;
        }
        let Some(folder) = package.strip_prefix("jig-") else {
            continue;
        };
        let mut files = Vec::new();
        collect(&root.join(folder).join("src"), &mut files);
        for file in files {
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            for (line, what) in reaches_kernel(&text) {
                found.push(format!(
                    "{}:{line}: {package} {what}; only the registry (jig-presets) runs calls",
                    file.display()
                ));
            }
        }
    }
    found
}

/// What `text` (one source file) does with the kernel, if anything, with
/// the line number: a path through `jig_kernel::` (a `use` or an inline
/// path, braces included) that names `Kernel` or `KernelBuilder`, or a call
/// of `run_with`.
fn reaches_kernel(text: &str) -> Vec<(usize, &'static str)> {
    let mut found = Vec::new();
    let line_of = |at: usize| text[..at].matches('\n').count() + 1;
    let code = |at: usize| {
        let start = text[..at].rfind('\n').map_or(0, |n| n + 1);
        !text[start..at].trim_start().starts_with("//")
    };
    for (at, _) in text.match_indices(".run_with(") {
        if code(at) {
            found.push((line_of(at), "calls the kernel's run_with"));
        }
    }
    for (at, prefix) in text.match_indices("jig_kernel::") {
        if !code(at) {
            continue;
        }
        let rest = &text[at + prefix.len()..];
        let end = if rest.starts_with('{') {
            rest.find('}').map_or(rest.len(), |n| n + 1)
        } else {
            rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len())
        };
        let names_kernel = rest[..end]
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|word| word == "Kernel" || word == "KernelBuilder");
        if names_kernel {
            found.push((line_of(at), "names the kernel's `Kernel` type"));
        }
    }
    found
}

fn collect(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::reaches_kernel;

    #[test]
    fn a_source_reaching_the_kernel_is_found() {
        let lines = |text: &str| -> Vec<usize> {
            reaches_kernel(text).into_iter().map(|(l, _)| l).collect()
        };
        assert_eq!(lines("use jig_kernel::{Kernel, Limits};"), [1]);
        assert_eq!(
            lines("use jig_kernel::{\n    Limits,\n    Kernel,\n};"),
            [1]
        );
        assert_eq!(lines("fn f(k: &jig_kernel::Kernel) {}"), [1]);
        assert_eq!(lines("x\nlet out = kernel.run_with(&argv, &options);"), [2]);
        assert!(lines("use jig_kernel::{KernelError, Limits};").is_empty());
        assert!(lines("    Layer::Kernel,\n    Kernel,").is_empty());
        assert!(lines("/// see jig_kernel::Kernel and run_with(").is_empty());
    }
}
