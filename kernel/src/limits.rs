use std::time::Duration;

/// Default timeout of one call.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default output budget of one call, in bytes (head and tail together).
pub const DEFAULT_MAX_OUTPUT: usize = 2048;
/// Default grace between the terminate and the kill signal.
pub const DEFAULT_GRACE: Duration = Duration::from_millis(100);
/// Default time given to the output pipe to close after the program exited.
pub const DEFAULT_DRAIN: Duration = Duration::from_millis(250);

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
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            timeout: DEFAULT_TIMEOUT,
            max_output: DEFAULT_MAX_OUTPUT,
            flood_limit: None,
            grace: DEFAULT_GRACE,
            drain: DEFAULT_DRAIN,
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
}
