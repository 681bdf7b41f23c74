"""An MCP client built on the official Python SDK (`mcp`), as a real client
would drive a stdio server.

Two modes, both printing one JSON object on stdout:

  mcp_client.py calls CALLS_JSON -- SERVER_COMMAND...
      Starts the server, initializes, lists its tools and makes the calls
      given as a JSON list of [name, arguments] pairs, one after the other.
      Prints the server's name and version, the tool names and schemas, and
      for each call whether it is an error and its text.

  mcp_client.py bench --tool NAME --args JSON [--warmup N] [--calls N]
                -- SERVER_COMMAND...
      Makes N warm-up calls, then N timed `tools/call` requests, one at a
      time, and prints each call's latency in milliseconds and the server
      process's peak resident memory (VmHWM), read before it exits.

Extra variables for the server's environment are passed with
`--env KEY=VALUE` (repeatable); `--quiet-server` drops the server's stderr.
The script exits 1 on any protocol failure.
"""

import argparse
import json
import os
import sys
import time

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


def server_children():
    """The pids of this process's children (the server the SDK spawned)."""
    me = os.getpid()
    children = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me:
            children.append(int(entry))
    return children


def peak_rss_kib(pid):
    """VmHWM of `pid`, in KiB, or None when it cannot be read."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def text_of(result):
    return "".join(
        block.text for block in result.content if getattr(block, "type", None) == "text"
    )


async def with_session(args, body):
    params = StdioServerParameters(
        command=args.server[0],
        args=args.server[1:],
        env=dict(pair.split("=", 1) for pair in args.env),
    )
    errlog = open(os.devnull, "w") if args.quiet_server else sys.stderr
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            return await body(session, init)


async def calls_mode(args):
    calls = json.loads(args.calls)

    async def body(session, init):
        listed = await session.list_tools()
        results = []
        for name, arguments in calls:
            result = await session.call_tool(name, arguments)
            results.append({"is_error": bool(result.is_error), "text": text_of(result)})
        return {
            "server": {
                "name": init.server_info.name,
                "version": init.server_info.version,
                "instructions": init.instructions,
            },
            "tools": [
                {"name": tool.name, "input_schema": tool.input_schema} for tool in listed.tools
            ],
            "results": results,
        }

    return await with_session(args, body)


async def bench_mode(args):
    arguments = json.loads(args.args)

    async def body(session, init):
        for _ in range(args.warmup):
            result = await session.call_tool(args.tool, arguments)
            if result.is_error:
                raise RuntimeError(f"warm-up call failed: {text_of(result)}")
        latencies = []
        for _ in range(args.calls):
            start = time.perf_counter()
            result = await session.call_tool(args.tool, arguments)
            latencies.append((time.perf_counter() - start) * 1000.0)
            if result.is_error:
                raise RuntimeError(f"call failed: {text_of(result)}")
        pids = server_children()
        peaks = {pid: peak_rss_kib(pid) for pid in pids}
        return {
            "server": init.server_info.name,
            "sample": text_of(result),
            "latencies_ms": latencies,
            "server_pids": pids,
            "server_peak_rss_kib": max((v for v in peaks.values() if v), default=None),
        }

    return await with_session(args, body)


def describe(error):
    """`error` as one line: the errors inside an exception group (anyio's
    task groups wrap what failed in one) rather than the group's summary."""
    inner = getattr(error, "exceptions", None)
    if inner:
        return "; ".join(describe(e) for e in inner)
    return f"{type(error).__name__}: {error}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    calls = sub.add_parser("calls")
    calls.add_argument("calls")
    bench = sub.add_parser("bench")
    bench.add_argument("--tool", required=True)
    bench.add_argument("--args", default="{}")
    bench.add_argument("--warmup", type=int, default=50)
    bench.add_argument("--calls", type=int, default=500)
    for p in (calls, bench):
        p.add_argument("--env", action="append", default=[])
        p.add_argument("--quiet-server", action="store_true", help="drop the server's stderr")
        p.add_argument("server", nargs="+")
    args = parser.parse_args()
    mode = calls_mode if args.mode == "calls" else bench_mode
    try:
        report = anyio.run(mode, args)
    except Exception as error:  # report any failure as one line for the Rust test
        print(f"mcp_client.py: {describe(error)}", file=sys.stderr)
        return 1
    json.dump(report, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
