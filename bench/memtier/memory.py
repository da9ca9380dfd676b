#!/usr/bin/env python3
"""Memory per key: load N keys with 32-byte values into RedisClone and into redis-server
(redis-cli --pipe) and compare each server's RSS growth per key."""
import argparse, os, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import ROOT, Server, free_port, rss_kb  # noqa: E402


def load(port, n, path):
    with open(path, "rb") as f:
        out = subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", str(port), "--pipe"], stdin=f,
                             capture_output=True, text=True, timeout=600).stdout
    if "errors: 0" not in out:
        raise RuntimeError(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--keys", type=int, default=1_000_000)
    ap.add_argument("--shards", type=int, default=os.cpu_count())
    ap.add_argument("--skip-build", action="store_true")
    args = ap.parse_args()

    build_dir = os.path.join(tempfile.gettempdir(), "redisclone-bench-build")
    if not args.skip_build:
        subprocess.run(["dotnet", "build", "-c", "Release", os.path.join(ROOT, "src", "RedisClone"), "-o", build_dir],
                       check=True, stdout=subprocess.DEVNULL)
    data = os.path.join(tempfile.gettempdir(), f"redisclone-mem-{args.keys}.resp")
    if not os.path.exists(data):
        value = b"v" * 32
        with open(data, "wb") as f:
            for i in range(args.keys):
                key = b"key:%012d" % i
                f.write(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$32\r\n%s\r\n" % (len(key), key, value))

    results = {}
    for name in ("redisclone", "redis"):
        port = free_port()
        if name == "redis":
            server = Server(name, ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                   "--appendonly", "no"], port)
        else:
            server = Server(name, ["dotnet", os.path.join(build_dir, "RedisClone.dll"), "--port", str(port),
                                   "--bind", "127.0.0.1", "--shards", str(args.shards)], port)
        try:
            time.sleep(1)
            before = rss_kb(server.proc.pid)
            load(port, args.keys, data)
            time.sleep(2)
            after = rss_kb(server.proc.pid)
            results[name] = (after - before) * 1024 / args.keys
        finally:
            server.stop()
    ratio = results["redisclone"] / results["redis"]
    print(f"RSS growth per key ({args.keys:,} keys, 32-byte values): "
          f"RedisClone {results['redisclone']:.1f} B, redis-server {results['redis']:.1f} B, ratio {ratio:.2f}x")


if __name__ == "__main__":
    main()
