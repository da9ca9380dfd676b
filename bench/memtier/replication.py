#!/usr/bin/env python3
"""Replication side by side: RedisClone as a master against redis-server as a master, on loopback
ports (127.0.0.1 only), every run bounded in time.

Full sync (--keys keys of --size bytes, DEBUG POPULATE): a replica (redis-server for both masters,
so only the master differs; --replica clone uses RedisClone replicas) is told REPLICAOF; while the
sync runs a probe client times SETs one at a time on the master. Printed: the time from REPLICAOF
to the replica's master_link_status:up, and p50/p99/max of the probe's round trips during the sync
beside the same probe with no sync (RedisClone snapshots without fork; redis-server forks).

CPU per operation (--seconds of memtier_benchmark, as compare.py runs it, pipeline 1 and 16): the
master alone, then with one replica attached; server CPU seconds per million ops, for each master,
and the ratio with a replica over without.
"""
import argparse, os, shutil, statistics, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import Server, build_clone, free_port, measure, run_memtier  # noqa: E402
from rss import command, connect, read_reply, call  # noqa: E402


def info(port, section):
    text = call(port, "INFO", section, timeout=30).decode()
    return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))] if values else float("nan")


def start(kind, build_dir, port, extra=()):
    if kind == "clone":
        argv = ["dotnet", os.path.join(build_dir, "RedisClone.dll"), "--port", str(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--enable-debug-command", "yes", *extra]
    else:
        argv = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--enable-debug-command", "yes", *extra]
    return Server(kind, argv, port)


def probe_until(port, done, deadline):
    """SETs one at a time until done() (checked every 50 calls) or the deadline; returns round trips in ms."""
    times = []
    with connect(port) as s, s.makefile("rb") as f:
        i = 0
        while time.time() < deadline:
            t0 = time.perf_counter()
            s.sendall(command("SET", f"probe:{i % 1000}", "x"))
            read_reply(s, f)
            times.append((time.perf_counter() - t0) * 1000)
            i += 1
            if i % 50 == 0 and done():
                break
    return times


def full_sync(master_kind, replica_kind, build_dir, args):
    mport, rport = free_port(), free_port()
    master = start(master_kind, build_dir, mport, ["--repl-diskless-sync", args.diskless])
    replica = None
    try:
        call(mport, "DEBUG", "POPULATE", args.keys, "key", args.size, timeout=600)
        base = probe_until(mport, lambda: False, time.time() + args.window)
        replica = start(replica_kind, build_dir, rport)
        t0 = time.time()
        call(rport, "REPLICAOF", "127.0.0.1", mport)
        up = lambda: info(rport, "replication").get("master_link_status") == "up"
        during = probe_until(mport, up, t0 + args.timeout)
        while not up():
            if time.time() - t0 > args.timeout:
                raise RuntimeError("the sync did not finish in time")
            time.sleep(0.05)
        seconds = time.time() - t0
        keys = int(info(rport, "keyspace").get("db0", "keys=0,").split(",")[0].split("=")[1])
        return {"seconds": seconds, "keys": keys, "base_p50": percentile(base, 0.5), "base_p99": percentile(base, 0.99),
                "p50": percentile(during, 0.5), "p99": percentile(during, 0.99), "max": max(during) if during else float("nan"),
                "probes": len(during)}
    finally:
        if replica:
            replica.stop()
        master.stop()


def cpu_with_replica(master_kind, build_dir, args, pipeline):
    mport, rport = free_port(), free_port()
    master = start(master_kind, build_dir, mport)
    replica = None
    try:
        measure(master, run_memtier, pipeline, 3)  # warm-up
        alone = [measure(master, run_memtier, pipeline, args.seconds)["cpu_per_mop"] for _ in range(args.rounds)]
        replica = start("redis", build_dir, rport)
        call(rport, "REPLICAOF", "127.0.0.1", mport)
        end = time.time() + 60
        while info(rport, "replication").get("master_link_status") != "up":
            if time.time() > end:
                raise RuntimeError("the replica did not come up")
            time.sleep(0.1)
        with_one = [measure(master, run_memtier, pipeline, args.seconds)["cpu_per_mop"] for _ in range(args.rounds)]
        return statistics.median(alone), statistics.median(with_one)
    finally:
        if replica:
            replica.stop()
        master.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--keys", type=int, default=1_000_000)
    ap.add_argument("--size", type=int, default=32, help="value bytes per key (default 32)")
    ap.add_argument("--window", type=float, default=3, help="seconds of probing without a sync (default 3)")
    ap.add_argument("--timeout", type=float, default=300, help="bound on one sync (default 300 s)")
    ap.add_argument("--diskless", choices=["yes", "no"], default="yes", help="repl-diskless-sync of both masters")
    ap.add_argument("--replica", choices=["redis", "clone"], default="redis", help="what the replicas are (default redis-server)")
    ap.add_argument("--seconds", type=int, default=10, help="memtier run length for the CPU part (default 10)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--skip-cpu", action="store_true", help="only the full sync")
    ap.add_argument("--skip-build", action="store_true", help="reuse the last Release build")
    args = ap.parse_args()
    if not shutil.which("redis-server"):
        sys.exit("redis-server is not installed (apt-get install -y redis-server redis-tools)")
    build_dir = build_clone(args.skip_build)

    print(f"Full sync of {args.keys:,} keys of {args.size} bytes, repl-diskless-sync {args.diskless}, "
          f"replica {args.replica}")
    results = {}
    for kind in ("clone", "redis"):
        r = full_sync(kind, args.replica, build_dir, args)
        results[kind] = r
        print(f"  {kind} master: sync {r['seconds']:.2f} s ({r['keys']:,} keys on the replica); SET round trips "
              f"during it p50 {r['p50']:.3f} ms p99 {r['p99']:.3f} ms max {r['max']:.1f} ms over {r['probes']} probes "
              f"(without a sync p50 {r['base_p50']:.3f} p99 {r['base_p99']:.3f})", flush=True)
    c, r = results["clone"], results["redis"]
    print(f"  ratios clone/redis: sync time {c['seconds'] / r['seconds']:.2f}x, p99 during {c['p99'] / r['p99']:.2f}x, "
          f"max during {c['max'] / r['max']:.2f}x")

    if args.skip_cpu or not shutil.which("memtier_benchmark"):
        if not args.skip_cpu:
            print("memtier_benchmark is not on PATH: CPU part skipped")
        return
    for pipeline in (1, 16):
        for kind in ("clone", "redis"):
            alone, with_one = cpu_with_replica(kind, build_dir, args, pipeline)
            print(f"  pipeline {pipeline}, {kind} master: CPU s/M ops alone {alone:.3f}, with one replica {with_one:.3f} "
                  f"({with_one / alone:.2f}x)", flush=True)


if __name__ == "__main__":
    main()
