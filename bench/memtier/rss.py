#!/usr/bin/env python3
"""Does memory come back? RSS of RedisClone and redis-server side by side after three workloads
that make a server hold a lot of memory for a moment (issue 12, item 4):

  a) SET two 512 MB strings (raw RESP bulks, within proto-max-bulk-len), DEL them, wait;
  b) N clients each send MULTI and queue M commands (SET of a small key), then disconnect without
     EXEC; repeated for several rounds;
  c) N clients each pipeline G GETs of a 10 MB value without reading a byte, then disconnect;
     repeated for several rounds.

Both servers run at once on loopback ports (127.0.0.1 only). After each step the script waits
--settle seconds (polling RSS, keeping the last reading) and prints each server's RSS from
/proc/<pid>/status, plus used_memory from INFO. Every step is bounded: socket timeouts and a
deadline per step; a server that falls behind is reported, not waited for forever.
"""
import argparse, os, selectors, socket, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import ROOT, Server, free_port, rss_kb  # noqa: E402

MB = 1024 * 1024


def connect(port, timeout=60):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def command(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


def read_reply(s, f):
    """One RESP2 reply from the socket's file object (enough for OK, integers, bulks, errors)."""
    line = f.readline()
    if not line:
        raise RuntimeError("connection closed")
    if line[:1] == b"$":
        n = int(line[1:])
        return None if n < 0 else f.read(n + 2)[:-2]
    if line[:1] == b"-":
        raise RuntimeError(line.decode().strip())
    return line[1:].strip()


def call(port, *args, timeout=120):
    with connect(port, timeout) as s, s.makefile("rb") as f:
        s.sendall(command(*args))
        return read_reply(s, f)


def used_memory(port):
    try:
        info = call(port, "INFO", "memory", timeout=10).decode()
    except (OSError, RuntimeError):
        return float("nan")
    for line in info.splitlines():
        if line.startswith("used_memory:"):
            return int(line.split(":")[1]) / MB
    return float("nan")


def settle(server, seconds):
    """Waits up to `seconds` and returns the last RSS in MB (memory given back shows within that time)."""
    end = time.time() + seconds
    while time.time() < end:
        time.sleep(0.5)
    return rss_kb(server.proc.pid) / 1024


def big_set(port, key, size):
    """SET key <size bytes> written as one raw RESP bulk (no client library copies it again)."""
    payload = b"x" * size
    with connect(port, 300) as s, s.makefile("rb") as f:
        s.sendall(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n" % (len(key), key, size))
        s.sendall(payload)
        s.sendall(b"\r\n")
        reply = read_reply(s, f)
    if reply != b"OK":
        raise RuntimeError(f"SET {key!r}: {reply!r}")


def drive(port, clients, payload, expect, deadline):
    """
    Opens `clients` connections, writes `payload` on each and reads replies until `expect` bytes
    came back on each, then closes them all. Returns (seconds, complete).
    """
    sel = selectors.DefaultSelector()
    socks = []
    start = time.time()
    for _ in range(clients):
        s = connect(port)
        s.setblocking(False)
        st = {"sent": 0, "got": 0}
        socks.append((s, st))
        sel.register(s, selectors.EVENT_WRITE | selectors.EVENT_READ, st)
    view = memoryview(payload)
    done = 0
    try:
        while done < clients and time.time() < deadline:
            events = sel.select(timeout=0.5)
            for key, mask in events:
                s, st = key.fileobj, key.data
                if mask & selectors.EVENT_WRITE and st["sent"] < len(payload):
                    try:
                        st["sent"] += s.send(view[st["sent"]:st["sent"] + 4 * MB])
                    except BlockingIOError:
                        pass
                    if st["sent"] == len(payload):
                        sel.modify(s, selectors.EVENT_READ, st)
                if mask & selectors.EVENT_READ:
                    try:
                        data = s.recv(1 << 20)
                    except BlockingIOError:
                        continue
                    if not data:
                        raise RuntimeError("server closed a connection")
                    st["got"] += len(data)
                    if st["got"] >= expect:
                        sel.unregister(s)
                        done += 1
        return time.time() - start, done == clients
    finally:
        for s, _ in socks:
            s.close()
        sel.close()


def run(server, args, rows):
    port = server.port
    name = server.name

    def record(step, seconds=None):
        rss = settle(server, args.settle if seconds is None else seconds)
        rows.setdefault(step, {})[name] = (rss, used_memory(port))
        print(f"  {name:10} {step:42} RSS {rss:8.0f} MB  used_memory {rows[step][name][1]:8.1f} MB", flush=True)

    record("idle", 1)
    if "a" in args.steps:
        a_step(server, port, args, record)
    if "b" in args.steps:
        b_step(server, port, args, record)
    if "c" in args.steps:
        c_step(server, port, args, record)


def a_step(server, port, args, record):
    """Two big strings, then DEL."""
    size = args.big_mb * MB
    for k in (b"big:1", b"big:2"):
        big_set(port, k, size)
    record(f"a) after SET 2 x {args.big_mb} MB", 1)
    call(port, "DEL", "big:1", "big:2")
    record("a) after DEL")


def b_step(server, port, args, record):
    """MULTI queues abandoned without EXEC."""
    name = server.name
    one = command("SET", "key:000000", "value")
    payload = command("MULTI") + one * args.multi_commands
    expect = len(b"+OK\r\n") + len(b"+QUEUED\r\n") * args.multi_commands
    for r in range(args.rounds):
        secs, ok = drive(port, args.clients, payload, expect, time.time() + args.step_timeout)
        note = "" if ok else " (timed out)"
        print(f"  {name:10} b) round {r + 1}: {args.clients} x {args.multi_commands:,} queued in {secs:.1f}s{note}", flush=True)
        record(f"b) after MULTI round {r + 1}")


def c_step(server, port, args, record):
    """Non-reading clients pipelining GETs of a 10 MB value."""
    name = server.name
    call(port, "SET", "v10", b"v" * (args.value_mb * MB))
    payload = command("GET", "v10") * args.gets
    for r in range(args.rounds):
        socks = [connect(port) for _ in range(args.clients)]
        for s in socks:
            s.sendall(payload)  # a few dozen bytes: the replies are what is big, and nobody reads them
        time.sleep(args.hold)
        peak = rss_kb(server.proc.pid) / 1024
        for s in socks:
            s.close()
        print(f"  {name:10} c) round {r + 1}: {args.clients} x {args.gets} GETs unread for {args.hold:g}s, "
              f"RSS before disconnect {peak:.0f} MB", flush=True)
        record(f"c) after GET round {r + 1}")
    call(port, "DEL", "v10")
    record("c) end (v10 deleted)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--big-mb", type=int, default=512, help="size of each of the two strings in a) (default 512)")
    ap.add_argument("--clients", type=int, default=100)
    ap.add_argument("--multi-commands", type=int, default=100_000, help="commands each client queues in b)")
    ap.add_argument("--gets", type=int, default=3, help="GETs each client pipelines in c)")
    ap.add_argument("--value-mb", type=int, default=10)
    ap.add_argument("--hold", type=float, default=3, help="seconds the non-reading clients of c) stay connected")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--settle", type=float, default=10,
                    help="seconds to wait before reading RSS after a step (default 10: jemalloc returns freed pages over about 10 s)")
    ap.add_argument("--step-timeout", type=float, default=180, help="bound on one round of b) or c)")
    ap.add_argument("--shards", type=int, default=os.cpu_count())
    ap.add_argument("--steps", default="abc", help="which workloads to run (default abc)")
    ap.add_argument("--only", choices=["redisclone", "redis"], help="run one server only")
    ap.add_argument("--clone-env", action="append", default=[], metavar="NAME=VALUE",
                    help="environment for RedisClone, e.g. DOTNET_GCConserveMemory=5 (repeatable)")
    ap.add_argument("--build-dir", default=os.path.join(tempfile.gettempdir(), "redisclone-rss-build"))
    ap.add_argument("--skip-build", action="store_true")
    args = ap.parse_args()

    if not args.skip_build:
        subprocess.run(["dotnet", "build", "-c", "Release", os.path.join(ROOT, "src", "RedisClone"), "-o", args.build_dir],
                       check=True, stdout=subprocess.DEVNULL)
    rows = {}
    for name in ("redisclone", "redis"):
        if args.only and name != args.only:
            continue
        port = free_port()
        if name == "redis":
            argv = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        else:
            argv = ["dotnet", os.path.join(args.build_dir, "RedisClone.dll"), "--port", str(port),
                    "--bind", "127.0.0.1", "--shards", str(args.shards)]
        env = dict(os.environ, **dict(kv.split("=", 1) for kv in args.clone_env)) if name == "redisclone" else None
        server = Server(name, argv, port, env)
        try:
            time.sleep(1)
            run(server, args, rows)
        finally:
            server.stop()

    print()
    print(f"RSS in MB (used_memory in MB); {args.clients} clients, b) {args.multi_commands:,} queued commands each, "
          f"c) {args.gets} GETs of {args.value_mb} MB each, {args.settle:g}s settle")
    print("| step | RedisClone RSS | redis-server RSS | RedisClone used_memory | redis used_memory |")
    print("|---|---|---|---|---|")
    for step, by in rows.items():
        a, b = by.get("redisclone", (float("nan"),) * 2), by.get("redis", (float("nan"),) * 2)
        print(f"| {step} | {a[0]:,.0f} | {b[0]:,.0f} | {a[1]:,.1f} | {b[1]:,.1f} |")


if __name__ == "__main__":
    main()
