//! The Python side of the benchmarks that measure against a PyPI package:
//! a throwaway virtual environment and quiet commands.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Creates a virtual environment `name` under `scratch`, installs
/// `package` (a pinned requirement) into it and returns the environment's
/// folder.
pub(crate) fn scratch_venv(scratch: &Path, name: &str, package: &str) -> Result<PathBuf, String> {
    let venv = scratch.join(name);
    run_quiet(Command::new("python3").arg("-m").arg("venv").arg(&venv))?;
    run_quiet(
        Command::new(venv.join("bin/pip"))
            .args(["install", "--quiet", "--disable-pip-version-check"])
            .arg(package),
    )?;
    Ok(venv)
}

/// Runs `command`, keeping its output; its standard error on failure.
pub(crate) fn run_quiet(command: &mut Command) -> Result<(), String> {
    let output = command.output().map_err(|e| format!("{command:?}: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{command:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}
