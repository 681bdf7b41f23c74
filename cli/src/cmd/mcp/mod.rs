//! `jig mcp`: the registry's tools served to an MCP client over stdio, with
//! the official Rust SDK (`rmcp`) behind a framing layer of our own.
//!
//! - `tools/list` answers the registry's MCP schemas, built once at start.
//! - `tools/call` is dispatched through the registry (policy, validation,
//!   kernel) on tokio's blocking pool, at most `max_in_flight` at once, so
//!   concurrent calls run concurrently and the async runtime never waits on
//!   a child process.
//! - A refusal is a tool result with `isError: true` and the guidance text;
//!   a command that ran is a plain result whatever its exit code.
//! - A cancelled request (`notifications/cancelled`) cancels the call's
//!   token: the kernel ends the command's whole process group.
//! - The client going away: after stdin ends, calls still running after
//!   `eof_grace` are cancelled and answered as cancelled; a broken stdout
//!   cancels every call at once. The server then exits 0, saying why.
//! - [`framing`] reads and answers every line (see there); [`output`] owns
//!   stdout; both run on threads of their own, so a peer that stops reading
//!   or writing never blocks the runtime. A call's short answer is written
//!   by the thread that ran the call when the writer has nothing queued
//!   and stdout takes it at once; a peer that stops reading holds up only
//!   the writer all the same.
//! - Stdout is the JSON-RPC channel: logs go to stderr (never blocking: see
//!   `crate::logging`), and command children never see the server's stdin
//!   or stdout (the kernel gives them `/dev/null` and a pipe of its own).

use std::os::fd::{AsFd, AsRawFd};
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
use tokio::sync::{mpsc, watch};

use crate::error::{CliError, EXIT_OK, exit};
use crate::settings::{McpSettings, Settings};
use crate::signals;

mod batch;
mod calls;
mod early;
mod framing;
mod output;
mod salvage;

use calls::Calls;
use framing::{ChannelTransport, Ending, Framer, Pending};

/// Arguments of `jig mcp`.
#[derive(Debug, Args)]
#[command(after_help = "\
Speaks MCP (JSON-RPC) on stdin and stdout; logs go to stderr. A client configuration:

  {\"mcpServers\": {\"jig\": {\"command\": \"jig\",
      \"args\": [\"--root\", \"/path/to/workspace\", \"mcp\"]}}}

When the client closes stdin, calls still running after --eof-grace-ms are cancelled and
answered as cancelled; when it closes stdout, every call is cancelled at once.")]
pub(crate) struct McpArgs {
    /// Calls that may run at once [default: 32 per CPU, from 32 to 256]
    #[arg(long, value_name = "N")]
    max_in_flight: Option<usize>,

    /// Calls that may wait for a free slot before reading pauses [default: 4 × --max-in-flight]
    #[arg(long, value_name = "N")]
    max_queued: Option<usize>,

    /// The longest request line, in bytes; a longer one is answered with an error [default: 4194304]
    #[arg(long, value_name = "BYTES")]
    max_line_bytes: Option<usize>,

    /// How long calls get to end after the client closed stdin, in milliseconds [default: 250]
    #[arg(long, value_name = "MS")]
    eof_grace_ms: Option<u64>,
    /// Workspace options (also accepted before the subcommand).
    #[command(flatten)]
    pub(crate) load: crate::args::LoadArgs,

    /// Call options (also accepted before the subcommand).
    #[command(flatten)]
    pub(crate) run: crate::args::RunArgs,
}

/// The limits of one MCP connection, each a plain field so that it can be a
/// configuration key.
///
/// Memory per connection is bounded by them: the requests read and not yet
/// answered hold at most `max_pending_bytes` (counted as parsed values take
/// memory, not as text; or one request, when it alone is larger), plus the
/// line being read (at most `max_line_bytes`), plus one parsed line on its
/// way; the answers hold at most `max_in_flight` results
/// being made and `outgoing_queue` results waiting for stdout, each bounded
/// by its tool's output budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct McpOptions {
    /// Calls that run at once.
    pub(crate) max_in_flight: usize,
    /// Calls that wait for a slot; past them, reading stdin pauses.
    pub(crate) max_queued: usize,
    /// The longest request line, in bytes.
    pub(crate) max_line_bytes: usize,
    /// The request text held at once (running and waiting calls).
    pub(crate) max_pending_bytes: usize,
    /// Messages waiting for stdout; past them, answers wait.
    pub(crate) outgoing_queue: usize,
    /// How long calls get to end after stdin closed, before they are
    /// cancelled.
    pub(crate) eof_grace: Duration,
}

impl McpOptions {
    /// How long, once the client has closed its input, the connection may
    /// stand still (stdout taking nothing, no request answered) before the
    /// client is taken to read no more: the grace, at least a second.
    pub(crate) fn patience(&self) -> Duration {
        self.eof_grace.max(STDOUT_PATIENCE)
    }

    /// The default line limit: 4 MiB.
    pub(crate) const DEFAULT_MAX_LINE_BYTES: usize = 4 << 20;
    /// The default grace after stdin closed: 250 ms.
    pub(crate) const DEFAULT_EOF_GRACE_MS: u64 = 250;

    /// The defaults, sized to this machine.
    pub(crate) fn for_this_machine() -> Self {
        let cpus = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        let max_in_flight = (32 * cpus).clamp(32, 256);
        Self {
            max_in_flight,
            max_queued: 4 * max_in_flight,
            max_line_bytes: Self::DEFAULT_MAX_LINE_BYTES,
            max_pending_bytes: 64 << 20,
            outgoing_queue: 64,
            eof_grace: Duration::from_millis(Self::DEFAULT_EOF_GRACE_MS),
        }
    }

    /// The options of `jig mcp`, then the configuration's `[mcp]`, then the
    /// defaults.
    fn from_args(args: &McpArgs, settings: &McpSettings) -> Self {
        let defaults = Self::for_this_machine();
        let max_in_flight = args
            .max_in_flight
            .or(settings.max_in_flight.value)
            .unwrap_or(defaults.max_in_flight)
            .max(1);
        Self {
            max_in_flight,
            max_queued: args
                .max_queued
                .or(settings.max_queued.value)
                .unwrap_or(4 * max_in_flight),
            max_line_bytes: args
                .max_line_bytes
                .or(settings.max_line_bytes.value)
                .unwrap_or(defaults.max_line_bytes)
                .max(1),
            max_pending_bytes: settings
                .max_pending_bytes
                .value
                .unwrap_or(defaults.max_pending_bytes)
                .max(1),
            eof_grace: args
                .eof_grace_ms
                .or(settings.eof_grace_ms.value)
                .map_or(defaults.eof_grace, Duration::from_millis),
            ..defaults
        }
    }
}

/// How long cancelled calls get to be answered before the server exits
/// anyway (the kernel ends a process group well within it).
const CANCEL_WAIT: Duration = Duration::from_secs(5);

/// How long stdout may take nothing, once the client has closed its input,
/// before the client is taken to read no more (the grace, when longer).
const STDOUT_PATIENCE: Duration = Duration::from_secs(1);

/// Builds the registry, then serves it until the client goes away.
pub(crate) fn run(settings: &Settings, args: &McpArgs) -> Result<ExitCode, CliError> {
    let options = McpOptions::from_args(args, &settings.mcp);
    let built = crate::preset::build(settings)?;
    let confinement = built.registry.kernel().confinement();
    if confinement.is_complete() {
        tracing::info!(containment = %confinement, "commands are contained");
    } else {
        tracing::warn!(containment = %confinement, "commands are not fully contained");
    }
    if !built.lifted_programs.is_empty() {
        tracing::warn!(
            lifted = %built.lifted_programs.join(","),
            "deny-list entries lifted for command and descriptor tools (never the exec tool)"
        );
    }
    let server = JigServer::new(built.registry, Calls::new(options.max_in_flight))?;
    // The async side only moves JSON: every call runs on the blocking pool,
    // so one async thread is enough and saves a cross-thread wake-up per
    // message; calls still run concurrently, each on its own pool thread.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(options.max_in_flight.saturating_add(8))
        .build()
        .map_err(|error| CliError::Internal(format!("cannot start the async runtime: {error}")))?;
    let result = runtime.block_on(serve(server, options));
    // Every call was answered or cancelled by now; a straggler gets the
    // kernel's time to end its process group, no more.
    runtime.shutdown_timeout(CANCEL_WAIT);
    result.map(|()| exit(EXIT_OK))
}

/// Stdin or stdout as a file of its own (a duplicate descriptor), read and
/// written without std's buffering and locks.
fn duplicate(fd: std::os::fd::BorrowedFd<'_>, what: &str) -> Result<std::fs::File, CliError> {
    fd.try_clone_to_owned()
        .map(std::fs::File::from)
        .map_err(|error| CliError::Internal(format!("cannot use {what}: {error}")))
}

/// Stdin, when it is a pipe, opened again as a non-blocking pipe of our own
/// for the runtime to read (see [`framing::read_pipe`]). Opening it again
/// gives a file description of its own: the non-blocking flag is not set on
/// the one the client or a parent shares. Anything else (a file, a
/// terminal, a socket, no `/proc`) is read by a thread, as before.
fn own_pipe(stdin: std::os::fd::BorrowedFd<'_>) -> Option<tokio::net::unix::pipe::Receiver> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
    let shared = std::fs::File::from(stdin.try_clone_to_owned().ok()?);
    let before = shared.metadata().ok()?;
    if !before.file_type().is_fifo() {
        return None;
    }
    // Only a read end: opened again, a write end would give a read end of
    // its own pipe, whose one writer is this process (no end, ever); a
    // thread reading it finds it unreadable and says so.
    let mode = nix::fcntl::fcntl(stdin, nix::fcntl::FcntlArg::F_GETFL).ok()?;
    let mode = nix::fcntl::OFlag::from_bits_truncate(mode) & nix::fcntl::OFlag::O_ACCMODE;
    if mode != nix::fcntl::OFlag::O_RDONLY {
        return None;
    }
    let own = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NONBLOCK | nix::libc::O_CLOEXEC)
        .open(format!("/proc/self/fd/{}", stdin.as_raw_fd()))
        .ok()?;
    let after = own.metadata().ok()?;
    if (after.dev(), after.ino()) != (before.dev(), before.ino()) {
        return None;
    }
    tokio::net::unix::pipe::Receiver::from_file(own).ok()
}

async fn serve(mut server: JigServer, options: McpOptions) -> Result<(), CliError> {
    tracing::info!(
        tools = server.tools.len(),
        max_in_flight = options.max_in_flight,
        max_queued = options.max_queued,
        "serving MCP on stdio"
    );
    let calls = Arc::clone(&server.calls);
    let pending = Arc::new(Pending::default());
    let (lines_tx, lines_rx) = mpsc::channel(1);
    let (out_tx, out_rx) = mpsc::channel(options.outgoing_queue.max(1));
    let (to_rmcp_tx, to_rmcp_rx) = mpsc::channel(16);
    let (broken_tx, broken_rx) = watch::channel(false);
    let (hangup_tx, hangup_rx) = watch::channel(false);
    let watched = duplicate(std::io::stdin().as_fd(), "stdin")?;
    // Without the watcher, a client that closes its input while reading is
    // paused and reads no answers keeps the server: said, not fatal.
    if let Err(error) = framing::watch_hangup(watched.into(), hangup_tx) {
        tracing::warn!(%error, "cannot watch stdin for its end");
    }

    let max_line = options.max_line_bytes;
    // Reading is aborted with the runtime (a thread reader is left blocked
    // in its read; the process ends after `serve`).
    let _reading = match own_pipe(std::io::stdin().as_fd()) {
        Some(pipe) => Some(tokio::spawn(framing::read_pipe(pipe, lines_tx, max_line))),
        None => {
            // (a socket the client made non-blocking is waited on)
            let input = super::Patient(duplicate(std::io::stdin().as_fd(), "stdin")?);
            std::thread::Builder::new()
                .name("jig-mcp-in".to_owned())
                .spawn(move || {
                    let input = std::io::BufReader::with_capacity(64 << 10, input);
                    framing::read_lines(input, &lines_tx, max_line);
                })
                .map_err(|error| CliError::Internal(format!("cannot start a thread: {error}")))?;
            None
        }
    };
    let output = duplicate(std::io::stdout().as_fd(), "stdout")?;
    let polled = duplicate(std::io::stdout().as_fd(), "stdout")?;
    let counted = output::Counted::new(output, Arc::clone(&pending));
    let output = Arc::new(output::Output::new(
        std::io::BufWriter::with_capacity(64 << 10, counted),
        polled.into(),
        Arc::clone(&pending),
        Arc::clone(&calls),
        broken_tx,
    ));
    let written = output::spawn(Arc::clone(&output), out_rx)
        .map_err(|error| CliError::Internal(format!("cannot start a thread: {error}")))?;
    // Without the watcher, a client that closes stdout's other end while a
    // call runs is seen only when its answer fails to go out: said, not
    // fatal.
    let watched = duplicate(std::io::stdout().as_fd(), "stdout")?;
    if let Err(error) = output::watch_closed(Arc::clone(&output), watched.into()) {
        tracing::warn!(%error, "cannot watch stdout for its end");
    }
    let stdout = Arc::clone(&output);

    server.out = Some((out_tx.clone(), output));
    server.pending = Some(Arc::clone(&pending));
    let framer = Framer {
        lines: lines_rx,
        to_rmcp: to_rmcp_tx,
        out: out_tx.clone(),
        pending: Arc::clone(&pending),
        broken: broken_rx,
        hangup: hangup_rx,
        calls: Arc::clone(&calls),
        options: options.clone(),
        started: false,
        versions: ServerHandler::supported_protocol_versions(&server).into_owned(),
        draining: std::sync::atomic::AtomicBool::new(false),
        batch: None,
    };
    let framing = tokio::spawn(leave(framer, Arc::clone(&pending), Arc::clone(&calls)));
    let transport = ChannelTransport {
        incoming: to_rmcp_rx,
        out: out_tx,
        pending: Arc::clone(&pending),
    };

    let mut service = Box::pin(run_service(server, transport));
    let served = tokio::select! {
        served = &mut service => served,
        stop = signals::termination() => {
            // Cancelling every call ends each running command's process
            // group before we exit: a command must not outlive the server
            // that bounds it.
            let cancelled = calls.cancel_all(stop.name());
            say_cancelled(cancelled, &format!("stopping on {}", stop.name()));
            // The service runs on until the cancelled calls are answered
            // (their commands end within the kernel's grace), as long as
            // the connection moves: a client that reads gets each answer;
            // one that goes on sending does not hold the server past
            // `CANCEL_WAIT`.
            let answered = async {
                tokio::select! {
                    _ = &mut service => {}
                    () = pending.drained() => {}
                }
            };
            let moving = pending.while_moving(options.patience(), answered);
            let _ = tokio::time::timeout(CANCEL_WAIT, moving).await;
            Ok(())
        }
    };
    // The service holds a sender of the writer's queue: the writer ends
    // once it is gone.
    drop(service);
    if framing.is_finished() {
        match framing.await {
            // Said as an error below.
            Ok(Ending::OutputClosed) if stdout.write_error().is_some() => {}
            Ok(ending) => log_ending(ending),
            Err(error) => tracing::error!(%error, "the framing layer failed"),
        }
    } else {
        framing.abort();
    }
    // Let the last answers out, as long as stdout takes them: a client
    // reading slowly gets every one, whole; one that reads nothing for the
    // grace gets no more.
    if pending
        .while_moving(options.patience(), written)
        .await
        .is_none()
    {
        pending.abandon();
    }
    if let Some(error) = stdout.write_error() {
        return Err(CliError::Internal(format!(
            "cannot write the answers to stdout: {error}"
        )));
    }
    served
}

/// Serves until rmcp stops (the framing layer closed its input).
async fn run_service(server: JigServer, transport: ChannelTransport) -> Result<(), CliError> {
    let running = match server.serve(transport).await {
        Ok(running) => running,
        Err(error) => {
            // A client that left before initializing is not a failure.
            tracing::info!(%error, "the client left before the MCP session started");
            return Ok(());
        }
    };
    let reason = running
        .waiting()
        .await
        .map_err(|error| CliError::Internal(format!("the MCP service failed: {error}")))?;
    tracing::debug!(?reason, "MCP service stopped");
    Ok(())
}

/// Runs the framing layer; when stdin ends, gives the calls in flight the
/// grace, cancels those still running and waits (bounded) for their answers;
/// then closes rmcp's input, which ends the service.
async fn leave(framer: Framer, pending: Arc<Pending>, calls: Arc<Calls>) -> Ending {
    let grace = framer.options.eof_grace;
    let framer_patience = framer.options.patience();
    let ending = framer.run().await;
    match ending {
        Ending::InputClosed => {
            if tokio::time::timeout(grace, pending.drained())
                .await
                .is_err()
            {
                let cancelled = calls.cancel_all("the client closed its input");
                say_cancelled(
                    cancelled,
                    &format!(
                        "the client closed its input and calls still ran after the grace ({} ms)",
                        grace.as_millis()
                    ),
                );
                let patience = framer_patience;
                if pending
                    .while_moving(patience, pending.drained())
                    .await
                    .is_none()
                {
                    pending.abandon();
                }
            }
        }
        Ending::OutputClosed => {
            let cancelled = calls.cancel_all("the client closed the server's output");
            say_cancelled(cancelled, "the client closed the server's output");
        }
        Ending::InputAbandoned => {
            pending.abandon();
            let cancelled = calls.cancel_all("the client closed its input and reads no answers");
            say_cancelled(
                cancelled,
                &format!(
                    "the client closed its input and read no answers within the grace ({} ms)",
                    grace.as_millis()
                ),
            );
        }
        Ending::ServiceStopped => {}
    }
    ending
}

/// Says why the calls in flight were cancelled: a warning when there were
/// any (their commands were stopped; their answers, where stdout still
/// takes them, say cancelled), so that the integrator sees it at the
/// default level; information otherwise.
fn say_cancelled(cancelled: usize, why: &str) {
    if cancelled > 0 {
        tracing::warn!(cancelled, "{why}: cancelled the calls in flight");
    } else {
        tracing::info!("{why}: no call was in flight");
    }
}

fn log_ending(ending: Ending) {
    match ending {
        Ending::InputClosed => tracing::info!("stopping: the client closed its input"),
        Ending::OutputClosed => tracing::info!("stopping: the client closed the server's output"),
        Ending::ServiceStopped => tracing::info!("stopping: the MCP service ended"),
        Ending::InputAbandoned => tracing::info!(
            "stopping: the client closed its input while reading was paused and read no answers"
        ),
    }
}

/// The name the server announces (the binary's, not the package's).
pub(crate) const SERVER_NAME: &str = "jig";

/// What the server tells the client's model about its tools.
pub(crate) const INSTRUCTIONS: &str = "Each tool runs one fixed command template; you fill \
     only its typed slots. Commands run in the workspace folder, without a shell, with a \
     timeout and a bounded output. A refused call says which argument failed and what to do \
     instead.";

/// The MCP face of a registry.
struct JigServer {
    registry: Arc<Registry>,
    tools: Arc<Vec<McpTool>>,
    calls: Arc<Calls>,
    /// The writer's channel and stdout, for answers made where the call
    /// ran (see [`early`]).
    out: Option<(mpsc::Sender<framing::Outgoing>, Arc<output::Output>)>,
    /// The requests not yet answered: a cancelled call, which rmcp answers
    /// not, gives its room back here.
    pending: Option<Arc<Pending>>,
}

/// What a call came to: a result of the registry, already answered by the
/// thread that ran it, or cancelled before it started.
enum Called {
    Dispatched(Box<ToolResult>),
    Answered,
    NotStarted(String),
}

/// The MCP result of a registry's result: a command that ran is a plain
/// result whatever its exit code; a refusal is a tool error.
fn call_result(result: ToolResult) -> CallToolResult {
    if matches!(result, ToolResult::Ran { .. }) {
        CallToolResult::success(vec![ContentBlock::text(result.into_text())])
    } else {
        CallToolResult::error(vec![ContentBlock::text(result.into_text())])
    }
}

impl JigServer {
    fn new(registry: Registry, calls: Arc<Calls>) -> Result<Self, CliError> {
        let tools = mcp_tools(&registry)?;
        Ok(Self {
            registry: Arc::new(registry),
            tools: Arc::new(tools),
            calls,
            out: None,
            pending: None,
        })
    }

    /// Waits for a call slot, then runs one call on the blocking pool;
    /// cancelling `context.ct` cancels the call's token, which ends its
    /// process group.
    async fn dispatch(
        &self,
        name: String,
        arguments: Value,
        cancel_on: RequestContext<RoleServer>,
    ) -> Result<Called, McpError> {
        let _slot = tokio::select! {
            slot = self.calls.slot() => match slot {
                Ok(slot) => slot,
                Err(calls::Stopped(why)) => return Ok(Called::NotStarted(why)),
            },
            // rmcp drops the answer of a cancelled request.
            () = cancel_on.ct.cancelled() => {
                return Ok(Called::NotStarted("the request was cancelled".to_owned()));
            }
        };
        let token = CancelToken::new();
        let _registered = self.calls.register(token.clone());
        // If this future is dropped before the call ends (the runtime shuts
        // down as the client leaves), the guard still ends the command.
        let _guard = CancelOnDrop(token.clone());
        let registry = Arc::clone(&self.registry);
        let options = DispatchOptions::with_cancel(token.clone());
        let tool = name.clone();
        // The thread that runs the call answers it (see `early`), unless
        // the request was cancelled meanwhile: rmcp answers none then.
        let early = self.out.clone().map(|(out, output)| early::Early {
            out,
            output,
            id: cancel_on.id.clone(),
            version: cancel_on.protocol_version(),
        });
        let cancelled = cancel_on.ct.clone();
        let mut call = tokio::task::spawn_blocking(move || {
            let result = registry.dispatch_with(&tool, &arguments, &options);
            match early {
                Some(early) if !cancelled.is_cancelled() => {
                    early.answer(call_result(result));
                    Called::Answered
                }
                _ => Called::Dispatched(Box::new(result)),
            }
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
            .with_server_info(Implementation::new(SERVER_NAME, env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
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
        let cancelled = context.ct.clone();
        if let Some(pending) = &self.pending {
            // The framing layer cancels the call through its token when the
            // client cancels it.
            let token = context.ct.clone();
            pending.handling(
                &framing::IdKey::of_request_id(&context.id),
                Box::new(move || token.cancel()),
            );
        }
        let result = self
            .dispatch(request.name.into_owned(), arguments, context)
            .await;
        if cancelled.is_cancelled() && self.pending.is_some() {
            // A call the client cancelled gets no answer: the marker, which
            // the transport drops, giving the request's room and id back
            // as it passes (rmcp still holds the id: the cancellation was
            // carried out by the framing layer, not by rmcp).
            return Ok(early::marker().into());
        }
        let result = result?;
        let result = match result {
            Called::Dispatched(result) => call_result(*result),
            // rmcp hands it to the transport as the answer; the transport
            // drops it.
            Called::Answered => early::marker(),
            Called::NotStarted(why) => CallToolResult::error(vec![ContentBlock::text(format!(
                "cancelled before it started: {why}; nothing ran"
            ))]),
        };
        Ok(result.into())
    }
}
