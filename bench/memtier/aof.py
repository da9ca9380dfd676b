#!/usr/bin/env python3
"""Writes with the AOF on, side by side: RedisClone and redis-server (127.0.0.1 only), both with
appendonly yes and the same appendfsync (--fsync, default always), each in a fresh directory.

redis-benchmark runs SET of random keys (-r 100000, -d 32) from --clients connections, with and
without -P 16, for --requests requests per round, alternating which server goes first (--rounds).
Prints the median requests per second of each and the ratio RedisClone/redis-server. With
`always` this is the cost of an fsync before every reply: Redis does one fsync per event-loop
iteration for all the clients served in it; RedisClone one per writer-thread turn for all the
writes that came meanwhile (group commit). Every run is bounded by its request count.
"""
import argparse, os, statistics, subprocess, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import Server, build_clone, free_port  # noqa: E402


def rps(port, clients, pipeline, n):
    cmd = ["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-t", "set", "-r", "100000", "-d", "32",
           "-c", str(clients), "-n", str(n), "--csv"]
    if pipeline > 1:
        cmd += ["-P", str(pipeline)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=900).stdout
    return float(out.strip().splitlines()[1].split(",")[1].strip('"'))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fsync", default="always", choices=["always", "everysec", "no"])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--requests", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--skip-build", action="store_true")
    args = ap.parse_args()
    build_dir = build_clone(args.skip_build)
    clone_port, redis_port = free_port(), free_port()
    common = ["--save", "", "--appendonly", "yes", "--appendfsync", args.fsync]
    clone = Server("clone", ["dotnet", os.path.join(build_dir, "RedisClone.dll"), "--port", str(clone_port), "--bind", "127.0.0.1",
                             "--dir", tempfile.mkdtemp(prefix="aof-clone-")] + common, clone_port)
    redis = Server("redis", ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1",
                             "--dir", tempfile.mkdtemp(prefix="aof-redis-")] + common, redis_port)
    try:
        rps(clone.port, args.clients, 1, 20_000)  # warm-up (JIT)
        print(f"appendfsync {args.fsync}, SET of random keys, {args.clients} clients, {args.requests} requests per run, "
              f"median of {args.rounds} rounds")
        print("| pipeline | RedisClone req/s | redis-server req/s | ratio |")
        print("|---|---|---|---|")
        for pipeline in (1, 16):
            res = {"clone": [], "redis": []}
            for r in range(args.rounds):
                for server in ((clone, redis) if r % 2 == 0 else (redis, clone)):
                    res[server.name].append(rps(server.port, args.clients, pipeline, args.requests))
            c, rd = statistics.median(res["clone"]), statistics.median(res["redis"])
            print(f"| {pipeline} | {c:,.0f} | {rd:,.0f} | {c / rd:.2f}x |", flush=True)
    finally:
        clone.stop()
        redis.stop()


if __name__ == "__main__":
    main()
