//! The calls of one connection: at most `max_in_flight` run at once, and all
//! of them can be cancelled together (the client left, stdout broke, a
//! termination signal came).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use jig_kernel::CancelToken;
use tokio::sync::{Semaphore, SemaphorePermit};

/// The running calls and the slots they take.
pub(crate) struct Calls {
    slots: Semaphore,
    state: Mutex<State>,
    next: AtomicU64,
}

#[derive(Default)]
struct State {
    running: HashMap<u64, CancelToken>,
    /// Why every call was cancelled, once it was.
    stopped: Option<String>,
}

/// Why a call could not take a slot: every call was cancelled, for this
/// reason.
pub(crate) struct Stopped(pub(crate) String);

impl Calls {
    /// Calls of which at most `max_in_flight` (at least one) run at once.
    pub(crate) fn new(max_in_flight: usize) -> Arc<Self> {
        Arc::new(Self {
            slots: Semaphore::new(max_in_flight.clamp(1, Semaphore::MAX_PERMITS)),
            state: Mutex::default(),
            next: AtomicU64::new(0),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // The state is a map and a string: a panic elsewhere cannot leave it
        // half-updated in a way that matters.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits for a free slot.
    pub(crate) async fn slot(&self) -> Result<SemaphorePermit<'_>, Stopped> {
        self.slots.acquire().await.map_err(|_| self.stopped())
    }

    fn stopped(&self) -> Stopped {
        Stopped(
            self.state()
                .stopped
                .clone()
                .unwrap_or_else(|| "the server is stopping".to_owned()),
        )
    }

    /// Registers a running call's token until the guard is dropped; a call
    /// registered after [`cancel_all`](Self::cancel_all) is cancelled at once.
    pub(crate) fn register(self: &Arc<Self>, token: CancelToken) -> Registered {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let mut state = self.state();
        if state.stopped.is_some() {
            token.cancel();
        }
        state.running.insert(id, token);
        Registered {
            calls: Arc::clone(self),
            id,
        }
    }

    /// Cancels every running call (the kernel ends their process groups) and
    /// every call still waiting for a slot; returns how many were running.
    pub(crate) fn cancel_all(&self, why: &str) -> usize {
        let mut state = self.state();
        if state.stopped.is_none() {
            state.stopped = Some(why.to_owned());
        }
        self.slots.close();
        for token in state.running.values() {
            token.cancel();
        }
        state.running.len()
    }

    /// How many calls are running.
    pub(crate) fn running(&self) -> usize {
        self.state().running.len()
    }
}

/// A running call's registration; dropping it forgets the call.
pub(crate) struct Registered {
    calls: Arc<Calls>,
    id: u64,
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.calls.state().running.remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn cancelling_all_cancels_the_running_and_the_later_calls() {
        let calls = Calls::new(1);
        let slot = calls.slot().await.ok();
        assert!(slot.is_some());
        let running = CancelToken::new();
        let registered = calls.register(running.clone());
        assert_eq!(calls.cancel_all("the client left"), 1);
        assert!(running.is_cancelled());
        let Err(Stopped(why)) = calls.slot().await else {
            panic!("a slot after cancel_all");
        };
        assert_eq!(why, "the client left");
        let late = CancelToken::new();
        let _late = calls.register(late.clone());
        assert!(late.is_cancelled());
        drop(registered);
        assert_eq!(calls.running(), 1);
    }
}
