#!/usr/bin/env python3
"""Promotion latency side by side: a master and one replica, all RedisClone or all redis-server,
on loopback ports (127.0.0.1 only). The master is SIGKILLed; once the replica reports
master_link_status:down, REPLICAOF NO ONE is timed, then the first successful SET after it. Each
round starts fresh processes, so the promotion runs in a process that never promoted before (for
RedisClone's JIT build: code never called before is compiled at its first call).
"""
import argparse, os, shutil, statistics, sys, tempfile, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import build_clone, free_port  # noqa: E402
from failover import server  # noqa: E402
from rss import call  # noqa: E402


def info(port, field):
    text = call(port, "INFO", "replication", timeout=10).decode()
    for line in text.splitlines():
        if line.startswith(field + ":"):
            return line.split(":", 1)[1].strip()
    return None


def wait_for(what, check, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if check():
            return
        time.sleep(0.002)
    raise RuntimeError(f"timed out waiting for {what}")


def round_(kind, build_dir):
    workdir = tempfile.mkdtemp(prefix=f"promotion-{kind}-")
    m_port, r_port = free_port(), free_port()
    nodes = []
    try:
        nodes.append(server(kind, build_dir, m_port, workdir))
        nodes.append(server(kind, build_dir, r_port, workdir, replicaof=m_port))
        wait_for("the replica's link", lambda: info(r_port, "master_link_status") == "up", 60)
        call(m_port, "SET", "before", "1")
        time.sleep(0.5)
        nodes[0].kill()
        wait_for("the replica seeing its master gone", lambda: info(r_port, "master_link_status") == "down", 10)
        t0 = time.time()
        reply = call(r_port, "REPLICAOF", "NO", "ONE")
        t1 = time.time()
        assert reply == b"OK", reply
        wait_for("a write", lambda: call(r_port, "SET", "after", "1") == b"OK", 10)
        t2 = time.time()
        return t1 - t0, t2 - t1
    finally:
        for n in nodes:
            n.kill()
        shutil.rmtree(workdir, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--skip-build", action="store_true")
    args = ap.parse_args()
    build_dir = build_clone(args.skip_build)
    results = {}
    for kind in ("clone", "redis"):
        times = []
        for rnd in range(args.rounds):
            promote, write = round_(kind, build_dir)
            print(f"  {kind} round {rnd}: REPLICAOF NO ONE {promote * 1000:.1f} ms, then first SET {write * 1000:.1f} ms", flush=True)
            times.append(promote)
        results[kind] = statistics.median(times)
    print(f"median REPLICAOF NO ONE: RedisClone {results['clone'] * 1000:.1f} ms, redis-server {results['redis'] * 1000:.1f} ms")


if __name__ == "__main__":
    main()
