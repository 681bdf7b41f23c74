//! `jig mcp`: the registry's tools served to an MCP client over stdio, with
//! the official Rust SDK (`rmcp`).
//!
//! - `tools/list` answers the registry's MCP schemas, built once at start.
//! - `tools/call` is dispatched through the registry (policy, validation,
//!   kernel) on tokio's blocking pool, so concurrent calls run concurrently
//!   and the async runtime never waits on a child process.
//! - A refusal is a tool result with `isError: true` and the guidance text;
//!   a command that ran is a plain result whatever its exit code.
//! - A cancelled request (`notifications/cancelled`, or the client going
//!   away) cancels the call's token: the kernel ends the command's whole
//!   process group.
//! - Stdout is the JSON-RPC channel: logs go to stderr, and command children
//!   never see the server's stdin or stdout (the kernel gives them
//!   `/dev/null` and a pipe of its own).

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use jig_kernel::CancelToken;
use jig_lineage::ToolResult;
use jig_presets::{DispatchOptions, Registry, SchemaFormat};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool as McpTool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;

use crate::args::GlobalArgs;
use crate::error::{CliError, EXIT_OK, exit};

/// Arguments of `jig mcp`.
#[derive(Debug, Args)]
#[command(after_help = "\
Speaks MCP (JSON-RPC) on stdin and stdout; logs go to stderr. A client configuration:

  {\"mcpServers\": {\"jig\": {\"command\": \"jig\",
      \"args\": [\"--root\", \"/path/to/workspace\", \"mcp\"]}}}")]
pub(crate) struct McpArgs {}

/// How long in-flight calls get to end after the client went away.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Builds the registry, then serves it until the client closes stdin.
pub(crate) fn run(global: &GlobalArgs, _args: &McpArgs) -> Result<ExitCode, CliError> {
    let built = crate::preset::build(global)?;
    let confinement = built.registry.kernel().confinement();
    if confinement.is_complete() {
        tracing::info!(containment = %confinement, "commands are contained");
    } else {
        tracing::warn!(containment = %confinement, "commands are not fully contained");
    }
    let server = JigServer::new(built.registry)?;
    // The async side only moves JSON: every call runs on the blocking pool,
    // so one async thread is enough and saves a cross-thread wake-up per
    // message; calls still run concurrently, each on its own pool thread.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| CliError::Internal(format!("cannot start the async runtime: {error}")))?;
    let result = runtime.block_on(serve(server));
    // A call still running when the client left was cancelled with its
    // request; give its process group the kernel's grace to end.
    runtime.shutdown_timeout(SHUTDOWN_GRACE);
    result.map(|()| exit(EXIT_OK))
}

async fn serve(server: JigServer) -> Result<(), CliError> {
    tracing::info!(tools = server.tools.len(), "serving MCP on stdio");
    let running = server
        .serve(rmcp::transport::stdio_pipes())
        .await
        .map_err(|error| CliError::Internal(format!("MCP initialization failed: {error}")))?;
    let cancel = running.cancellation_token();
    let waiting = running.waiting();
    tokio::pin!(waiting);
    let reason = tokio::select! {
        reason = &mut waiting => reason,
        signal = termination() => {
            // Cancelling the service cancels every request in flight, which
            // ends each running command's process group before we exit: a
            // command must not outlive the server that bounds it.
            tracing::info!(signal, "stopping: cancelling the calls in flight");
            cancel.cancel();
            waiting.await
        }
    }
    .map_err(|error| CliError::Internal(format!("the MCP service failed: {error}")))?;
    tracing::info!(?reason, "MCP service stopped");
    Ok(())
}

/// Resolves when the process is asked to stop (SIGTERM, SIGINT, SIGHUP);
/// never, when the signals cannot be watched.
async fn termination() -> &'static str {
    use tokio::signal::unix::{SignalKind, signal};
    let streams = (|| {
        Ok::<_, std::io::Error>((
            signal(SignalKind::terminate())?,
            signal(SignalKind::interrupt())?,
            signal(SignalKind::hangup())?,
        ))
    })();
    let (mut term, mut int, mut hup) = match streams {
        Ok(streams) => streams,
        Err(error) => {
            tracing::warn!(%error, "cannot watch for termination signals");
            return std::future::pending().await;
        }
    };
    tokio::select! {
        _ = term.recv() => "SIGTERM",
        _ = int.recv() => "SIGINT",
        _ = hup.recv() => "SIGHUP",
    }
}

/// The MCP face of a registry.
struct JigServer {
    registry: Arc<Registry>,
    tools: Arc<Vec<McpTool>>,
}

impl JigServer {
    fn new(registry: Registry) -> Result<Self, CliError> {
        let tools = mcp_tools(&registry)?;
        Ok(Self {
            registry: Arc::new(registry),
            tools: Arc::new(tools),
        })
    }

    /// Runs one call on the blocking pool; cancelling `context.ct` cancels
    /// the call's token, which ends its process group.
    async fn dispatch(
        &self,
        name: String,
        arguments: Value,
        cancel_on: RequestContext<RoleServer>,
    ) -> Result<ToolResult, McpError> {
        let token = CancelToken::new();
        // If this future is dropped before the call ends (the runtime shuts
        // down as the client leaves), the guard still ends the command.
        let _guard = CancelOnDrop(token.clone());
        let registry = Arc::clone(&self.registry);
        let options = DispatchOptions::with_cancel(token.clone());
        let tool = name.clone();
        let mut call = tokio::task::spawn_blocking(move || {
            registry.dispatch_with(&tool, &arguments, &options)
        });
        let joined = tokio::select! {
            joined = &mut call => joined,
            () = cancel_on.ct.cancelled() => {
                tracing::info!(tool = %name, "request cancelled; ending its command");
                token.cancel();
                call.await
            }
        };
        // A failed join is a bug in a layer below (a panic), not a refusal:
        // it is reported as a JSON-RPC internal error.
        joined.map_err(|error| {
            tracing::error!(tool = %name, %error, "the call failed inside the server");
            McpError::internal_error(format!("the call failed inside the server: {error}"), None)
        })
    }
}

/// Cancels its token when dropped: a call whose request future is dropped
/// (not only cancelled) must not leave its command running.
struct CancelOnDrop(CancelToken);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// The registry's MCP schemas as rmcp's tool type.
fn mcp_tools(registry: &Registry) -> Result<Vec<McpTool>, CliError> {
    let Value::Array(entries) = registry.schemas(SchemaFormat::Mcp) else {
        return Err(CliError::Internal(
            "the registry's MCP schemas are not a list".to_owned(),
        ));
    };
    entries
        .into_iter()
        .map(|entry| {
            serde_json::from_value(entry).map_err(|error| {
                CliError::Internal(format!("a tool schema is not a valid MCP tool: {error}"))
            })
        })
        .collect()
}

impl ServerHandler for JigServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                env!("CARGO_PKG_NAME"),
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(
                "Each tool runs one fixed command template; you fill only its typed slots. \
                 Commands run in the workspace folder, without a shell, with a timeout and a \
                 bounded output. A refused call says which argument failed and what to do \
                 instead.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let arguments = request.arguments.map_or(Value::Null, Value::Object);
        let result = self
            .dispatch(request.name.into_owned(), arguments, context)
            .await?;
        let content = vec![ContentBlock::text(result.text())];
        let result = match result {
            ToolResult::Ran { .. } => CallToolResult::success(content),
            _ => CallToolResult::error(content),
        };
        Ok(result.into())
    }
}
