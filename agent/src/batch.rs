//! Running the calls of one reply: in the order written, results in that
//! order. Consecutive calls that only read (the dispatcher's
//! [`is_concurrency_safe`](Dispatcher::is_concurrency_safe)) overlap; a call
//! that may write is a barrier: it starts after every call before it has
//! ended, and every call after it starts after it has ended.

use jig_lineage::Layer;
use jig_lineage::{Dispatcher, ErrorCode, Refusal, ToolResult};
use jig_toolcall::ToolCall;
use serde_json::Value;

/// One call, ready to dispatch.
struct Pending<'c> {
    call: &'c ToolCall,
    arguments: Value,
    read_only: bool,
}

/// Runs `calls` through `dispatcher`; one result per call, in the order of
/// the calls.
pub(crate) fn run_in_order(dispatcher: &dyn Dispatcher, calls: &[ToolCall]) -> Vec<ToolResult> {
    let pending: Vec<Pending<'_>> = calls
        .iter()
        .map(|call| {
            let arguments = Value::Object(call.arguments().clone());
            let read_only = dispatcher.is_concurrency_safe(call.name(), &arguments);
            Pending {
                call,
                arguments,
                read_only,
            }
        })
        .collect();
    let mut results = Vec::with_capacity(pending.len());
    let mut rest = pending.as_slice();
    while let Some(first) = rest.first() {
        let together = if first.read_only {
            rest.iter().take_while(|p| p.read_only).count()
        } else {
            1
        };
        let (group, after) = rest.split_at(together);
        if let [one] = group {
            results.push(dispatcher.dispatch(one.call.name(), &one.arguments));
        } else {
            results.extend(overlapped(dispatcher, group));
        }
        rest = after;
    }
    results
}

/// Runs read-only calls at the same time, one thread each; the results in
/// the order of the calls.
fn overlapped(dispatcher: &dyn Dispatcher, group: &[Pending<'_>]) -> Vec<ToolResult> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = group
            .iter()
            .map(|p| scope.spawn(move || dispatcher.dispatch(p.call.name(), &p.arguments)))
            .collect();
        handles
            .into_iter()
            .zip(group)
            .map(|(handle, p)| handle.join().unwrap_or_else(|_| failed(p.call.name())))
            .collect()
    })
}

/// The result of a call whose dispatcher panicked (a dispatcher must not:
/// the loop goes on rather than fail with it).
fn failed(name: &str) -> ToolResult {
    ToolResult::Refused(Refusal::new(
        ErrorCode::StartFailed,
        Layer::Agent,
        format!("the call of {name} failed inside the dispatcher; nothing is known of its effects"),
    ))
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::{Duration, Instant};

    use jig_lineage::{Dispatcher, ErrorCode, Refusal, ToolInfo, ToolResult};
    use jig_toolcall::ToolCall;
    use serde_json::{Value, json};

    use super::run_in_order;

    /// `read` calls only read: each waits until `wait_for` reads have
    /// started (so reads that do not overlap time out). `write` calls check
    /// that nothing else runs while they do.
    #[derive(Default)]
    struct Recorder {
        started_reads: AtomicUsize,
        running: AtomicUsize,
        problems: Mutex<Vec<String>>,
    }

    impl Recorder {
        fn problem(&self, text: String) {
            self.problems.lock().unwrap().push(text);
        }
    }

    impl Dispatcher for Recorder {
        fn tools(&self) -> Vec<ToolInfo> {
            Vec::new()
        }

        fn dispatch(&self, name: &str, arguments: &Value) -> ToolResult {
            let others = self.running.fetch_add(1, Ordering::SeqCst);
            let tag = &arguments["tag"];
            if name == "write" && others != 0 {
                self.problem(format!("write {tag} ran beside {others} other calls"));
            }
            if name == "read" {
                self.started_reads.fetch_add(1, Ordering::SeqCst);
                let wait_for = arguments["wait_for"].as_u64().unwrap_or(0) as usize;
                let deadline = Instant::now() + Duration::from_secs(10);
                while self.started_reads.load(Ordering::SeqCst) < wait_for {
                    if Instant::now() > deadline {
                        self.problem(format!("read {tag} never overlapped"));
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
            self.running.fetch_sub(1, Ordering::SeqCst);
            ToolResult::Refused(Refusal::new(
                ErrorCode::UnknownTool,
                jig_lineage::Layer::Registry,
                format!("{name} {tag}"),
            ))
        }

        fn is_concurrency_safe(&self, name: &str, _: &Value) -> bool {
            name == "read"
        }
    }

    fn call(name: &str, arguments: Value) -> ToolCall {
        let Value::Object(arguments) = arguments else {
            panic!("arguments must be an object");
        };
        ToolCall::new(name, arguments).unwrap()
    }

    #[test]
    fn reads_overlap_writes_are_barriers_results_keep_the_order() {
        let calls = [
            call("read", json!({"tag": 1, "wait_for": 2})),
            call("read", json!({"tag": 2, "wait_for": 2})),
            call("write", json!({"tag": 3})),
            call("read", json!({"tag": 4, "wait_for": 5})),
            call("read", json!({"tag": 5, "wait_for": 5})),
            call("read", json!({"tag": 6, "wait_for": 5})),
            call("write", json!({"tag": 7})),
            call("write", json!({"tag": 8})),
        ];
        let recorder = Recorder::default();
        let results = run_in_order(&recorder, &calls);
        let texts: Vec<String> = results
            .iter()
            .map(|r| r.refusal().unwrap().message.clone())
            .collect();
        assert_eq!(
            texts,
            [
                "read 1", "read 2", "write 3", "read 4", "read 5", "read 6", "write 7", "write 8"
            ]
        );
        assert_eq!(
            recorder.problems.lock().unwrap().as_slice(),
            [] as [String; 0]
        );
    }

    /// A dispatcher that does not answer the concurrency question runs
    /// every call alone (a read waiting for another would time out).
    #[test]
    fn without_an_answer_calls_run_one_at_a_time() {
        struct Alone(Recorder);
        impl Dispatcher for Alone {
            fn tools(&self) -> Vec<ToolInfo> {
                Vec::new()
            }
            fn dispatch(&self, name: &str, arguments: &Value) -> ToolResult {
                self.0.dispatch(name, arguments)
            }
        }
        let calls = [
            call("write", json!({"tag": 1})),
            call("write", json!({"tag": 2})),
        ];
        let alone = Alone(Recorder::default());
        assert_eq!(run_in_order(&alone, &calls).len(), 2);
        assert!(alone.0.problems.lock().unwrap().is_empty());
        assert!(!alone.is_concurrency_safe("read", &json!({})));
    }
}
