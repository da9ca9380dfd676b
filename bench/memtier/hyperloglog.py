#!/usr/bin/env python3
"""HyperLogLog throughput side by side: RedisClone vs Debian's redis-server on loopback ports.

Both servers get the same HLLs (two dense ones of 20,000 and 50,000 elements, a sparse one of 300);
then redis-benchmark sends, from one client, a bounded number of PFADD of random elements to a dense
HLL, PFCOUNT of one key (the cache refreshed after each PFADD round, then served from it), PFCOUNT of
three keys (a merge and a full estimate per call) and PFMERGE of them, alternating A/B. Prints ms per
call (from the request rate) and server CPU seconds per call, with the ratio RedisClone/redis.
"""
import argparse, os, socket, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402  (Server, free_port, cpu_seconds)


def send(sock, *args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    sock.sendall(out)
    buf = b""
    while b"\r\n" not in buf:
        buf += sock.recv(65536)
    return buf


def fill(port):
    with socket.create_connection(("127.0.0.1", port)) as s:
        for key, count in ((b"hll:d", 20000), (b"hll:d2", 50000), (b"hll:s", 300)):
            for start in range(0, count, 1000):
                send(s, b"PFADD", key, *[b"%s:%d" % (key, i) for i in range(start, min(count, start + 1000))])


LOADS = [
    ("PFADD dense, random elements", ["-r", "100000000", "PFADD", "hll:d", "e:__rand_int__"]),
    ("PFCOUNT one key", ["PFCOUNT", "hll:d"]),
    ("PFCOUNT three keys", ["PFCOUNT", "hll:d", "hll:d2", "hll:s"]),
    ("PFMERGE three keys", ["PFMERGE", "hll:m", "hll:d", "hll:d2", "hll:s"]),
]


def run(port, pid, args, n):
    before = compare.cpu_seconds(pid)
    out = subprocess.run(["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-n", str(n), "-c", "1", "--csv"] + args,
                         capture_output=True, text=True, check=True, timeout=600).stdout
    cpu = compare.cpu_seconds(pid) - before
    rps = float(out.strip().splitlines()[1].split(",")[1].strip('"'))
    return 1000.0 / rps, cpu / n


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--calls", type=int, default=20000, help="requests per load and round (default 20000)")
    ap.add_argument("--skip-build", action="store_true")
    args = ap.parse_args()
    build_dir = os.path.join(tempfile.gettempdir(), "redisclone-bench-build")
    if not args.skip_build:
        subprocess.run(["dotnet", "build", "-c", "Release", os.path.join(compare.ROOT, "src", "RedisClone"), "-o", build_dir],
                       check=True, stdout=subprocess.DEVNULL)
    clone_port, redis_port = compare.free_port(), compare.free_port()
    clone = compare.Server("clone", ["dotnet", os.path.join(build_dir, "RedisClone.dll"), "--port", str(clone_port),
                                     "--bind", "127.0.0.1"], clone_port)
    redis = compare.Server("redis", ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
                                     "--appendonly", "no"], redis_port)
    try:
        for server in (clone, redis):
            fill(server.port)
        print(f"| load | RedisClone ms/call | redis ms/call | ratio | RedisClone CPU ms/call | redis CPU ms/call | ratio |")
        print("|---|---|---|---|---|---|---|")
        for name, cmd in LOADS:
            res = {"clone": [], "redis": []}
            run(clone.port, clone.proc.pid, cmd, 2000)  # warm-up (JIT)
            for r in range(args.rounds):
                for server in ((clone, redis) if r % 2 == 0 else (redis, clone)):
                    res[server.name].append(run(server.port, server.proc.pid, cmd, args.calls))
            c_ms = statistics.median(x[0] for x in res["clone"]); r_ms = statistics.median(x[0] for x in res["redis"])
            c_cpu = statistics.median(x[1] for x in res["clone"]) * 1000; r_cpu = statistics.median(x[1] for x in res["redis"]) * 1000
            print(f"| {name} | {c_ms:.4f} | {r_ms:.4f} | {c_ms / r_ms:.2f}x | {c_cpu:.4f} | {r_cpu:.4f} | {c_cpu / r_cpu:.2f}x |", flush=True)
    finally:
        clone.stop()
        redis.stop()


if __name__ == "__main__":
    main()
