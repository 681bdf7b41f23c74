use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A handle that ends a running call from another thread.
///
/// Clones share one flag. Cancelling ends the call's whole process group the
/// same way a timeout does (terminate, grace, kill) and the outcome says
/// `cancelled`.
#[derive(Debug, Clone, Default)]
pub struct CancelToken {
    flag: Arc<AtomicBool>,
}

impl CancelToken {
    /// A token that is not cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks every call holding this token to end.
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::SeqCst);
    }

    /// Whether [`cancel`](Self::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }
}
