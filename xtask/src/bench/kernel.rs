//! Kernel figures: spawn overhead, memory under flood, timeout overrun,
//! concurrency.

use std::process::Command;
use std::time::{Duration, Instant};

use jig_kernel::{Kernel, Limits, Mechanism};

use super::Figures;

pub(crate) fn run(figures: &mut Figures) -> Result<(), String> {
    let workspace = std::env::temp_dir().join(format!("jig-bench-kernel-{}", std::process::id()));
    std::fs::create_dir_all(&workspace).map_err(|e| e.to_string())?;
    let result = run_in(&workspace, figures);
    let _ = std::fs::remove_dir_all(&workspace);
    result
}

fn run_in(workspace: &std::path::Path, figures: &mut Figures) -> Result<(), String> {
    let kernel = Kernel::builder(workspace)
        .build()
        .map_err(|e| e.to_string())?;

    // Flood first, before anything else has raised the peak.
    let (baseline, peak) = flood_rss(&kernel)?;
    figures.add("kernel.flood_baseline_rss_mib", baseline, "MiB");
    figures.add("kernel.flood_peak_rss_mib", peak, "MiB");
    figures.add("kernel.flood_rss_growth_mib", peak - baseline, "MiB");

    // Spawn overhead, interleaved with the baseline (a bare std spawn): the
    // default kernel (contained, temporary folder included), one tier per
    // mechanism left out, and one built without containment, each against
    // the same baseline.
    figures.add(
        "kernel.containment_complete",
        f64::from(u8::from(kernel.confinement().is_complete())),
        "bool",
    );
    let tier = |without: &[Mechanism]| {
        without
            .iter()
            .fold(Kernel::builder(workspace), |builder, mechanism| {
                builder.dangerous_without(*mechanism)
            })
            .build()
            .map_err(|e| e.to_string())
    };
    let uncontained = Kernel::builder(workspace)
        .dangerous_no_containment()
        .build()
        .map_err(|e| e.to_string())?;
    // (figure name, kernel): the first is the default, the last none.
    let tiers: Vec<(&str, Kernel)> = vec![
        ("full", kernel.clone()),
        (
            "namespaces_only",
            tier(&[Mechanism::Landlock, Mechanism::Seccomp])?,
        ),
        ("landlock_seccomp", tier(&[Mechanism::Namespaces])?),
        (
            "seccomp_only",
            tier(&[Mechanism::Namespaces, Mechanism::Landlock])?,
        ),
        ("none", uncontained),
    ];
    let rounds = 300;
    let mut times: Vec<Vec<Duration>> = vec![Vec::with_capacity(rounds); tiers.len()];
    let mut bare = Vec::with_capacity(rounds);
    for _ in 0..20 {
        for (_, kernel) in &tiers {
            kernel.run(&["/bin/true"]).map_err(|e| e.to_string())?;
        }
        Command::new("/bin/true")
            .status()
            .map_err(|e| e.to_string())?;
    }
    for _ in 0..rounds {
        for ((_, kernel), times) in tiers.iter().zip(&mut times) {
            let t = Instant::now();
            kernel.run(&["/bin/true"]).map_err(|e| e.to_string())?;
            times.push(t.elapsed());
        }
        let t = Instant::now();
        Command::new("/bin/true")
            .status()
            .map_err(|e| e.to_string())?;
        bare.push(t.elapsed());
    }
    let bare = median(&mut bare);
    let medians: Vec<Duration> = times.iter_mut().map(|t| median(t)).collect();
    let (ours, plain) = (medians[0], medians[medians.len() - 1]);
    figures.add("kernel.spawn_median_us", micros(ours), "us");
    figures.add("kernel.spawn_uncontained_median_us", micros(plain), "us");
    figures.add("kernel.spawn_baseline_median_us", micros(bare), "us");
    figures.add(
        "kernel.contained_spawn_ratio",
        ours.as_secs_f64() / bare.as_secs_f64(),
        "ratio",
    );
    figures.add(
        "kernel.uncontained_spawn_ratio",
        plain.as_secs_f64() / bare.as_secs_f64(),
        "ratio",
    );
    for ((name, _), median) in tiers.iter().zip(&medians) {
        figures.add(
            &format!("kernel.tier_{name}_median_us"),
            micros(*median),
            "us",
        );
        figures.add(
            &format!("kernel.tier_{name}_ratio"),
            median.as_secs_f64() / bare.as_secs_f64(),
            "ratio",
        );
    }

    large_workspace(workspace, figures)?;

    // Timeout overrun with three sleeping descendants (forked, not
    // executed: a contained call may execute only its own program).
    let timeout = Duration::from_millis(300);
    let limits = Limits::default().with_timeout(timeout);
    let mut overruns = Vec::new();
    for _ in 0..5 {
        let outcome = kernel
            .run_with(
                &[
                    "python3",
                    "-c",
                    "import os, time\nfor _ in range(3):\n    os.fork() or time.sleep(30)\ntime.sleep(30)",
                ],
                &jig_kernel::RunOptions::new(limits),
            )
            .map_err(|e| e.to_string())?;
        if !outcome.timed_out() {
            return Err("timeout benchmark: the command was not timed out".to_owned());
        }
        overruns.push(outcome.duration.saturating_sub(timeout));
    }
    figures.add(
        "kernel.timeout_overrun_ms",
        millis(median(&mut overruns)),
        "ms",
    );

    // Eight 100 ms children, sequential then concurrent.
    let argv = ["sleep", "0.1"];
    let t = Instant::now();
    for _ in 0..8 {
        kernel.run(&argv).map_err(|e| e.to_string())?;
    }
    let sequential = t.elapsed();
    let t = Instant::now();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8).map(|_| scope.spawn(|| kernel.run(&argv))).collect();
        handles
            .into_iter()
            .all(|h| h.join().is_ok_and(|r| r.is_ok()))
    })
    .then_some(())
    .ok_or("a concurrent run failed")?;
    let concurrent = t.elapsed();
    figures.add(
        "kernel.concurrent_speedup",
        sequential.as_secs_f64() / concurrent.as_secs_f64(),
        "ratio",
    );
    Ok(())
}

/// A contained call in a large workspace (a folder of 3,000 package
/// folders and one of 2,000 files, as a `node_modules` and a source folder
/// would be) against one in an empty workspace, both with secret files
/// hidden, in interleaved rounds: the search for secret files lists each
/// folder again only when it has changed (`contain::masked`), so the ratio
/// stays near 1 however large the workspace.
fn large_workspace(base: &std::path::Path, figures: &mut Figures) -> Result<(), String> {
    let large = base.join("large");
    let empty = base.join("empty");
    let made = |e: std::io::Error| e.to_string();
    for n in 0..3_000 {
        std::fs::create_dir_all(large.join(format!("node_modules/pkg{n}"))).map_err(made)?;
    }
    std::fs::create_dir_all(large.join("src")).map_err(made)?;
    for n in 0..2_000 {
        std::fs::write(large.join(format!("src/f{n}.rs")), "").map_err(made)?;
    }
    std::fs::create_dir_all(&empty).map_err(made)?;
    // What a folder held is kept once its last change is a few seconds old.
    std::thread::sleep(Duration::from_millis(3_200));
    let masking = |root: &std::path::Path| {
        Kernel::builder(root)
            .mask_files(|name| name == ".env")
            .build()
            .map_err(|e| e.to_string())
    };
    let kernels = [masking(&large)?, masking(&empty)?];
    let rounds = 200;
    let mut times = [Vec::with_capacity(rounds), Vec::with_capacity(rounds)];
    for round in 0..rounds + 10 {
        for (kernel, times) in kernels.iter().zip(&mut times) {
            let t = Instant::now();
            kernel.run(&["/bin/true"]).map_err(|e| e.to_string())?;
            if round >= 10 {
                times.push(t.elapsed());
            }
        }
    }
    let [large_median, empty_median] = times.map(|mut t| median(&mut t));
    figures.add(
        "kernel.large_workspace_median_us",
        micros(large_median),
        "us",
    );
    figures.add(
        "kernel.large_workspace_ratio",
        large_median.as_secs_f64() / empty_median.as_secs_f64(),
        "ratio",
    );
    Ok(())
}

/// Resets the peak-RSS mark, floods 1 GiB through the kernel and returns the
/// resident memory before and the peak during, in MiB.
fn flood_rss(kernel: &Kernel) -> Result<(f64, f64), String> {
    // Writing 5 to clear_refs resets VmHWM to the current RSS (Linux >= 4.0).
    std::fs::write("/proc/self/clear_refs", "5").map_err(|e| format!("clear_refs: {e}"))?;
    let baseline = status_kib("VmRSS")?;
    let outcome = kernel
        .run(&["head", "-c", "1073741824", "/dev/zero"])
        .map_err(|e| e.to_string())?;
    if outcome.output.total_bytes() != 1 << 30 {
        return Err(format!(
            "flood: read {} bytes",
            outcome.output.total_bytes()
        ));
    }
    let peak = status_kib("VmHWM")?;
    Ok((baseline / 1024.0, peak / 1024.0))
}

fn status_kib(field: &str) -> Result<f64, String> {
    process_status_kib("self", field)
}

/// A kibibyte field (`VmRSS`, `VmHWM`) of `/proc/<process>/status`;
/// `process` is a pid or `self`.
pub(crate) fn process_status_kib(process: &str, field: &str) -> Result<f64, String> {
    let path = format!("/proc/{process}/status");
    let status = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| format!("no {field} in {path}"))
}

pub(crate) fn median(values: &mut [Duration]) -> Duration {
    values.sort();
    values.get(values.len() / 2).copied().unwrap_or_default()
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
