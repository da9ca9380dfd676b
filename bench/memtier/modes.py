#!/usr/bin/env python3
"""What a replica or cluster mode costs per operation: the same memtier load (compare.py's: 1 thread,
50 clients, 1:10 SET:GET, 32-byte values, 100,000 keys) against a plain server, a master with one
replica attached, and a single-node cluster owning every slot, side by side in one run, rotating who
goes first. Only the server under load is measured (its CPU seconds per million operations, from
/proc/<pid>/stat); the replica's own CPU is not counted, as redis-server's is not.

With --redis, redis-server in the same three modes too, so each mode's ratio to Redis's is shown.
Every server binds 127.0.0.1, and every process started is stopped at the end.
"""
import argparse, os, socket, statistics, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import Server, build_clone, free_port, measure, run_memtier  # noqa: E402


def call(port, *args):
    out = subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", str(port)] + [str(a) for a in args],
                         capture_output=True, text=True, timeout=30)
    return out.stdout


def wait_for(predicate, what, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        if predicate():
            return
        time.sleep(0.2)
    raise RuntimeError(f"timed out waiting for {what}")


def server_argv(kind, build_dir, port, extra):
    if kind == "redis":
        return ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"] + extra
    return ["dotnet", os.path.join(build_dir, "RedisClone.dll"), "--port", str(port), "--bind", "127.0.0.1", "--save", ""] + extra


def start(kind, mode, build_dir, helpers):
    """Starts a server of `kind` (clone or redis) in `mode`; returns the one to load. Replicas go to helpers."""
    port = free_port()
    name = f"{kind}-{mode}"
    if mode == "cluster":
        conf = os.path.join(tempfile.mkdtemp(prefix="bench-nodes-"), "nodes.conf")
        server = Server(name, server_argv(kind, build_dir, port, ["--cluster-enabled", "yes", "--cluster-config-file", conf]), port)
        call(port, "CLUSTER", "ADDSLOTSRANGE", 0, 16383)
        wait_for(lambda: "cluster_state:ok" in call(port, "CLUSTER", "INFO"), f"{name}: cluster_state:ok")
        return server
    server = Server(name, server_argv(kind, build_dir, port, []), port)
    if mode == "replica":
        replica_port = free_port()
        replica = Server(name + "-its-replica", server_argv(kind, build_dir, replica_port, ["--replicaof", "127.0.0.1", str(port)]),
                         replica_port)
        helpers.append(replica)
        wait_for(lambda: "master_link_status:up" in call(replica_port, "INFO", "replication"), f"{name}: replica link up")
    return server


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3, help="rotations per load (default 3)")
    ap.add_argument("--seconds", type=int, default=15, help="length of each run (default 15)")
    ap.add_argument("--pipelines", default="1,16", help="pipeline depths (default 1,16)")
    ap.add_argument("--redis", action="store_true", help="redis-server in the same three modes too")
    ap.add_argument("--skip-build", action="store_true", help="reuse the last Release build")
    args = ap.parse_args()

    build_dir = build_clone(args.skip_build)
    kinds = ["clone"] + (["redis"] if args.redis else [])
    servers, helpers = [], []
    try:
        for kind in kinds:
            for mode in ("plain", "replica", "cluster"):
                servers.append(start(kind, mode, build_dir, helpers))
        print("| load | server | mode | ops/s | p99 ms | CPU s/M ops | ratio to plain |" + (" ratio to redis-server, same mode |" if args.redis else ""))
        print("|---|---|---|---|---|---|---|" + ("---|" if args.redis else ""))
        for pipeline in (int(p) for p in args.pipelines.split(",")):
            runs = {s.name: [] for s in servers}
            for s in servers:
                measure(s, run_memtier, pipeline, 3)  # warm-up: JIT, key space
            for r in range(args.rounds):
                order = servers[r % len(servers):] + servers[:r % len(servers)]
                if r % 2:
                    order.reverse()
                for s in order:
                    runs[s.name].append(measure(s, run_memtier, pipeline, args.seconds))
            med = {n: {k: statistics.median(x[k] for x in v) for k in ("ops", "p99", "cpu_per_mop")} for n, v in runs.items()}
            for s in servers:
                kind, mode = s.name.split("-", 1)
                m = med[s.name]
                line = (f"| memtier pipeline {pipeline} | {'RedisClone' if kind == 'clone' else 'redis-server'} | {mode} | {m['ops']:,.0f} | "
                        f"{m['p99']:.3f} | {m['cpu_per_mop']:.3f} | {m['cpu_per_mop'] / med[kind + '-plain']['cpu_per_mop']:.2f}x |")
                if args.redis:
                    line += f" {m['cpu_per_mop'] / med['redis-' + mode]['cpu_per_mop']:.2f}x |"
                print(line, flush=True)
    finally:
        for s in servers + helpers:
            s.stop()


if __name__ == "__main__":
    main()
