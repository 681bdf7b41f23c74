use std::time::Duration;

/// Default timeout of one call.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default output budget of one call, in bytes (head and tail together).
pub const DEFAULT_MAX_OUTPUT: usize = 2048;
/// Default grace between the terminate and the kill signal.
pub const DEFAULT_GRACE: Duration = Duration::from_millis(100);
/// Default time given to the output pipe to close after the program exited.
pub const DEFAULT_DRAIN: Duration = Duration::from_millis(250);
/// Default bound on the processes of one contained call.
pub const DEFAULT_MAX_PROCESSES: u64 = 256;
/// Default bound on the size of any one file a contained call writes.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 1024 * 1024 * 1024;
/// Default size of a contained call's temporary folder (a tmpfs).
pub const DEFAULT_MAX_TMP: u64 = 64 * 1024 * 1024;

/// The bounds of one call: time, output kept, output tolerated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Wall-clock time the program may run before its process group is ended.
    pub timeout: Duration,
    /// Bytes of output kept for the result (a head and a tail); the rest is
    /// counted and dropped.
    pub max_output: usize,
    /// Total bytes of output after which the program is ended as a flood
    /// (`None`: only the timeout ends a program that writes without end).
    pub flood_limit: Option<u64>,
    /// Time between the terminate and the kill signal when a call is ended.
    pub grace: Duration,
    /// Time the output pipe may stay open after the program exited (held by a
    /// descendant that left the process group) before the call returns anyway.
    pub drain: Duration,
    /// Processes a contained call may have at once (where a user namespace
    /// makes the bound per call).
    pub max_processes: u64,
    /// Bytes any one file written by a contained call may reach.
    pub max_file_size: u64,
    /// Bytes of the contained call's temporary folder (a tmpfs where mount
    /// namespaces are available; elsewhere only `max_file_size` applies).
    pub max_tmp: u64,
    /// Bytes of address space each process of a contained call may map
    /// (`None`: no bound).
    pub max_memory: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            timeout: DEFAULT_TIMEOUT,
            max_output: DEFAULT_MAX_OUTPUT,
            flood_limit: None,
            grace: DEFAULT_GRACE,
            drain: DEFAULT_DRAIN,
            max_processes: DEFAULT_MAX_PROCESSES,
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            max_tmp: DEFAULT_MAX_TMP,
            max_memory: None,
        }
    }
}

impl Limits {
    /// These limits with another timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// These limits with another output budget.
    pub fn with_max_output(mut self, bytes: usize) -> Self {
        self.max_output = bytes;
        self
    }

    /// These limits with a flood limit: a program that writes more than
    /// `bytes` in all is ended.
    pub fn with_flood_limit(mut self, bytes: u64) -> Self {
        self.flood_limit = Some(bytes);
        self
    }

    /// These limits with another grace between terminate and kill.
    pub fn with_grace(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }

    /// These limits with another drain deadline.
    pub fn with_drain(mut self, drain: Duration) -> Self {
        self.drain = drain;
        self
    }

    /// These limits with another bound on a contained call's processes.
    pub fn with_max_processes(mut self, processes: u64) -> Self {
        self.max_processes = processes;
        self
    }

    /// These limits with another bound on the size of a written file.
    pub fn with_max_file_size(mut self, bytes: u64) -> Self {
        self.max_file_size = bytes;
        self
    }

    /// These limits with another size of the temporary folder.
    pub fn with_max_tmp(mut self, bytes: u64) -> Self {
        self.max_tmp = bytes;
        self
    }

    /// These limits with a bound on each process's address space.
    pub fn with_max_memory(mut self, bytes: u64) -> Self {
        self.max_memory = Some(bytes);
        self
    }

    /// The CPU-time backstop of a contained call's processes: twice the
    /// timeout plus a second, so that only a program the timeout failed to
    /// end ever meets it.
    pub fn cpu_backstop(&self) -> Duration {
        self.timeout.saturating_mul(2) + Duration::from_secs(1)
    }
}
