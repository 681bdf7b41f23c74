//! Early answers: a call's result written by the thread that ran it.
//!
//! rmcp answers a `tools/call` on the runtime's thread once the handler
//! returns: the blocking thread that ran the call wakes it, it shapes and
//! wraps the result, and wakes the writer. The thread that ran the call
//! instead shapes the result as rmcp would for this session (see
//! [`shaped`]) and writes the answer itself, or hands it to the writer
//! when the writer is busy or stdout would make it wait; the handler then
//! returns a [`marker`] result, which rmcp wraps and hands to the
//! transport as it would the answer, and the transport drops it (see
//! [`is_marker`]): the client gets one answer, written without waiting for
//! the runtime.
//!
//! A request cancelled before its answer is made gets none from here: the
//! result goes back to rmcp, which drops the answer of a cancelled request.

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{
    CallToolResponse, CallToolResult, JsonRpcMessage, MetaObject, ProtocolVersion, RequestId,
    ServerResult,
};
use rmcp::service::TxJsonRpcMessage;
use serde_json::Value;
use tokio::sync::mpsc;

use super::framing::{IdKey, Outgoing};
use super::output::Output;

/// The `_meta` key of the marker result; never written to the client.
const MARKER: &str = "jig/answered-early";

/// What the thread that runs a call needs to answer it itself.
pub(crate) struct Early {
    pub(crate) out: mpsc::Sender<Outgoing>,
    pub(crate) output: Arc<Output>,
    pub(crate) id: RequestId,
    pub(crate) version: Option<ProtocolVersion>,
}

impl Early {
    /// Writes `result` as the answer, from a blocking thread: at once when
    /// the writer has nothing to do and stdout takes it (see
    /// [`Output::answer_now`]), otherwise through the writer. Where the
    /// writer is gone nothing can be answered any more, by this or by rmcp.
    pub(crate) fn answer(self, result: CallToolResult) {
        // Marked before it is written: a client that reuses the id once it
        // has the answer waits for rmcp to let the id go, no more.
        self.output.answered_early(&IdKey::of_request_id(&self.id));
        let message: TxJsonRpcMessage<RoleServer> =
            JsonRpcMessage::response(shaped(result, self.version.as_ref()), self.id.clone());
        if let Err(message) = self.output.answer_now(Box::new(message), &self.out) {
            self.queue(Outgoing::Early(message));
        }
    }

    /// Hands `message` to the writer, waiting while its queue is full,
    /// unless nobody reads any more (then it is dropped: a thread waiting
    /// here would hold up the server's exit).
    fn queue(&self, mut message: Outgoing) {
        use tokio::sync::mpsc::error::TrySendError;
        /// How often a full queue is tried again.
        const RETRY: std::time::Duration = std::time::Duration::from_millis(5);
        loop {
            match self.out.try_send(message) {
                Ok(()) | Err(TrySendError::Closed(_)) => return,
                Err(TrySendError::Full(back)) => {
                    if self.output.is_abandoned() {
                        return;
                    }
                    message = back;
                    std::thread::sleep(RETRY);
                }
            }
        }
    }
}

/// `result` as rmcp's handler shapes a `tools/call` result for a session
/// of `version`: results of 2026-07-28 and later carry their cache hints,
/// older ones keep the legacy shape (no `resultType`, no non-object
/// output).
fn shaped(result: CallToolResult, version: Option<&ProtocolVersion>) -> ServerResult {
    let mut result = ServerResult::from(CallToolResponse::from(result));
    if version.is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str()) {
        result.fill_missing_cache_hints();
    } else {
        result.strip_result_type_for_legacy_peer();
        result.strip_non_object_output_for_legacy_peer();
    }
    result
}

/// What the handler returns for a call answered early.
pub(crate) fn marker() -> CallToolResult {
    let mut result = CallToolResult::success(Vec::new());
    let mut meta = MetaObject::new();
    meta.0.insert(MARKER.to_owned(), Value::Bool(true));
    result.meta = Some(meta);
    result
}

/// Whether `message` is rmcp's copy of a call answered early (the
/// transport drops it, and it answers nothing: the early answer did).
pub(crate) fn is_marker(message: &TxJsonRpcMessage<RoleServer>) -> bool {
    let JsonRpcMessage::Response(response) = message else {
        return false;
    };
    let ServerResult::CallToolResult(result) = &response.result else {
        return false;
    };
    result
        .meta
        .as_ref()
        .is_some_and(|meta| meta.0.contains_key(MARKER))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ContentBlock;

    #[test]
    fn a_legacy_session_gets_the_legacy_shape_and_a_new_one_its_hints() {
        let result = CallToolResult::success(vec![ContentBlock::text("exit: 0\n")]);
        let legacy = serde_json::to_value(shaped(result.clone(), None)).unwrap();
        assert_eq!(
            legacy,
            serde_json::json!({"content": [{"type": "text", "text": "exit: 0\n"}], "isError": false})
        );
        let new = shaped(result, Some(&ProtocolVersion::V_2026_07_28));
        let new = serde_json::to_value(new).unwrap();
        assert_eq!(new["resultType"], "complete", "{new}");
    }

    #[test]
    fn only_the_marker_is_a_marker() {
        let id = RequestId::Number(3);
        let marker: TxJsonRpcMessage<RoleServer> =
            JsonRpcMessage::response(ServerResult::CallToolResult(marker()), id.clone());
        assert!(is_marker(&marker));
        let answer: TxJsonRpcMessage<RoleServer> = JsonRpcMessage::response(
            ServerResult::CallToolResult(CallToolResult::success(Vec::new())),
            id,
        );
        assert!(!is_marker(&answer));
    }
}
