#!/usr/bin/env python3
"""BGSAVE under load, side by side: RedisClone (no fork: a snapshot kept by writing keys ahead of
their changes) and redis-server (fork and copy-on-write), on loopback ports (127.0.0.1 only).

Each server gets --keys keys of --size bytes (DEBUG POPULATE), then, per round: writers
(redis-benchmark SET of random keys over the same key space, --clients connections) run for
the whole round; a probe client times SETs one at a time for --window seconds without a save
(the baseline), then BGSAVE is sent and the probe goes on until the save is over. The script
prints p50/p99/max of the probe's round trips without and during the save, how long the save
took, and the peak extra memory during it: for RedisClone its RSS over the RSS before the save;
for redis-server the parent's RSS growth plus the fork child's private pages (smaps_rollup),
which is what the copy-on-write costs the machine. Every run is bounded in time.
"""
import argparse, os, socket, statistics, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import Server, build_clone, free_port, rss_kb  # noqa: E402
from rss import call, command, connect, read_reply  # noqa: E402


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def private_kb(pid):
    total = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith(("Private_Clean:", "Private_Dirty:")):
                    total += int(line.split()[1])
    except OSError:
        pass
    return total


def info_field(port, section, field):
    text = call(port, "INFO", section, timeout=10).decode()
    for line in text.splitlines():
        if line.startswith(field + ":"):
            return line.split(":", 1)[1]
    return None


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))] if values else float("nan")


def probe(port, seconds, until_saved=False, memory=None, deadline=120):
    """Times SETs one by one; stops after `seconds`, or (until_saved) when the save is over."""
    times = []
    peak = 0
    with connect(port) as s, s.makefile("rb") as f:
        start = time.time()
        i = 0
        while True:
            now = time.time()
            if not until_saved and now - start >= seconds:
                break
            if now - start > deadline:
                raise RuntimeError("the save did not finish in time")
            t0 = time.perf_counter()
            s.sendall(command("SET", f"probe:{i % 1000}", "x"))
            read_reply(s, f)
            times.append((time.perf_counter() - t0) * 1000)
            i += 1
            if i % 50 == 0:
                if memory:
                    peak = max(peak, memory())
                if until_saved and info_field(port, "persistence", "rdb_bgsave_in_progress") == "0":
                    break
    return times, peak, time.time() - start


def round_(server, args):
    base_rss = rss_kb(server.proc.pid)

    def memory():
        extra = rss_kb(server.proc.pid) - base_rss
        for child in children(server.proc.pid):
            extra += private_kb(child)
        return extra

    writers = subprocess.Popen(["redis-benchmark", "-h", "127.0.0.1", "-p", str(server.port), "-t", "set", "-r", str(args.keys),
                                "-d", str(args.size), "-c", str(args.clients), "-n", str(10_000_000), "-q"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1)
        base, _, _ = probe(server.port, args.window)
        base_rss = rss_kb(server.proc.pid)
        reply = call(server.port, "BGSAVE").decode()
        assert reply.startswith("Background saving"), reply
        during, peak, took = probe(server.port, 0, until_saved=True, memory=memory)
    finally:
        writers.kill()
        writers.wait()
    return base, during, peak, took


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--keys", type=int, default=1_000_000)
    ap.add_argument("--size", type=int, default=100)
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--window", type=float, default=3.0, help="seconds of baseline probing before each BGSAVE")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--skip-build", action="store_true")
    args = ap.parse_args()
    build_dir = build_clone(args.skip_build)
    clone_dir, redis_dir = tempfile.mkdtemp(prefix="bgsave-clone-"), tempfile.mkdtemp(prefix="bgsave-redis-")
    clone_port, redis_port = free_port(), free_port()
    clone = Server("clone", ["dotnet", os.path.join(build_dir, "RedisClone.dll"), "--port", str(clone_port), "--bind", "127.0.0.1",
                             "--save", "", "--dir", clone_dir, "--enable-debug-command", "yes"], clone_port)
    redis = Server("redis", ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", redis_dir, "--enable-debug-command", "yes"], redis_port)
    results = {"clone": [], "redis": []}
    try:
        for server in (clone, redis):
            call(server.port, "DEBUG", "POPULATE", args.keys, "key", args.size, timeout=600)
        for r in range(args.rounds):
            for server in ((clone, redis) if r % 2 == 0 else (redis, clone)):
                results[server.name].append(round_(server, args))
                time.sleep(1)
    finally:
        clone.stop()
        redis.stop()
    print(f"{args.keys} keys of {args.size} bytes, {args.clients} writers (redis-benchmark SET, random keys), "
          f"{args.rounds} rounds; probe SET round trips in ms")
    print("| server | p50 no save | p99 no save | p50 during save | p99 during save | max during save | save s | peak extra MB |")
    print("|---|---|---|---|---|---|---|---|")
    for name in ("clone", "redis"):
        rows = results[name]
        base = [t for b, _, _, _ in rows for t in b]
        during = [t for _, d, _, _ in rows for t in d]
        peak = max(p for _, _, p, _ in rows) / 1024
        took = statistics.median(t for _, _, _, t in rows)
        label = "RedisClone" if name == "clone" else "redis-server"
        print(f"| {label} | {percentile(base, .5):.3f} | {percentile(base, .99):.3f} | {percentile(during, .5):.3f} | "
              f"{percentile(during, .99):.3f} | {max(during):.1f} | {took:.1f} | {peak:.1f} |")


if __name__ == "__main__":
    main()
