#!/usr/bin/env python3
"""The two client transports side by side: RedisClone with --transport epoll (its own epoll event
loops, the default on Linux) and with --transport sockets (Pipelines.Sockets.Unofficial over .NET's
asynchronous sockets, the transport elsewhere and for TLS), with Debian's redis-server beside them
for reference; all three on 127.0.0.1.

redis-benchmark -t set,get -r 100000 -d 32 from --clients connections at pipeline 1 and 16,
--requests requests per test, each round running the three servers in a rotated order (--rounds).
Prints the median requests per second and server CPU seconds per million requests (from
/proc/<pid>/stat) of each, and the ratios sockets/epoll and each/redis-server. Every run is bounded
by its request count. With --tls the same over each server's tls-port instead (RedisClone's TLS
port is served by the sockets transport whatever --transport says, so the two RedisClone columns
differ only by noise there).
"""
import argparse, os, statistics, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import Server, build_clone, cpu_seconds, free_port  # noqa: E402
from tls import make_certificates, rps  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--requests", type=int, default=200_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tls", action="store_true", help="over the tls-ports (see above)")
    ap.add_argument("--skip-build", action="store_true")
    args = ap.parse_args()
    build_dir = build_clone(args.skip_build)
    names = ("epoll", "sockets", "redis")
    ports = {name: free_port() for name in names}
    tls_ports = {name: free_port() for name in names}
    ca = None
    tls_args = {name: [] for name in names}
    if args.tls:
        ca, cert, key = make_certificates(tempfile.mkdtemp(prefix="transport-bench-"))
        for name in names:
            tls_args[name] = ["--tls-port", str(tls_ports[name]), "--tls-cert-file", cert, "--tls-key-file", key,
                              "--tls-ca-cert-file", ca, "--tls-auth-clients", "no"]
    clone = ["dotnet", os.path.join(build_dir, "RedisClone.dll"), "--bind", "127.0.0.1", "--save", ""]
    servers = {
        "epoll": Server("epoll", clone + ["--port", str(ports["epoll"]), "--transport", "epoll"] + tls_args["epoll"],
                        ports["epoll"]),
        "sockets": Server("sockets", clone + ["--port", str(ports["sockets"]), "--transport", "sockets"] + tls_args["sockets"],
                          ports["sockets"]),
        "redis": Server("redis", ["redis-server", "--port", str(ports["redis"]), "--bind", "127.0.0.1", "--save", ""]
                        + tls_args["redis"], ports["redis"]),
    }
    target = tls_ports if args.tls else ports
    try:
        for name in ("epoll", "sockets"):
            rps(target[name], "set,get", args.clients, 16, 100_000, ca)  # warm-up (JIT, tiering)
        print(f"redis-benchmark -t set|get -r 100000 -d 32 -c {args.clients} -n {args.requests} -P 1|16"
              f"{' --tls' if args.tls else ''}; median of {args.rounds} rounds, servers in rotated order")
        print("| test | pipeline | epoll req/s | sockets req/s | redis req/s | sockets/epoll | epoll/redis | sockets/redis "
              "| CPU s/M epoll | sockets | redis |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for test in ("set", "get"):
            for pipeline in (1, 16):
                res = {name: [] for name in names}
                cpu = {name: [] for name in names}
                for r in range(args.rounds):
                    order = names[r % 3:] + names[:r % 3]
                    for name in order:
                        pid = servers[name].proc.pid
                        before = cpu_seconds(pid)
                        res[name].append(rps(target[name], test, args.clients, pipeline, args.requests, ca))
                        cpu[name].append((cpu_seconds(pid) - before) / (args.requests / 1e6))
                e, s, rd = (statistics.median(res[n]) for n in names)
                ce, cs, cr = (statistics.median(cpu[n]) for n in names)
                print(f"| {test.upper()} | {pipeline} | {e:,.0f} | {s:,.0f} | {rd:,.0f} | {s / e:.2f}x | {e / rd:.2f}x "
                      f"| {s / rd:.2f}x | {ce:.1f} | {cs:.1f} | {cr:.1f} |", flush=True)
    finally:
        for server in servers.values():
            server.stop()


if __name__ == "__main__":
    main()
