#!/usr/bin/env python3
"""Memory per key: load N keys with 32-byte values into RedisClone and into redis-server
(redis-cli --pipe) and compare each server's RSS growth per key. With --stream, N stream entries
of three small fields instead (XADD mem * name nX age N city cY, one key), and used_memory growth
per entry is printed too."""
import argparse, os, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import Server, build_clone, free_port, rss_kb  # noqa: E402


def load(port, n, path):
    with open(path, "rb") as f:
        out = subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", str(port), "--pipe"], stdin=f,
                             capture_output=True, text=True, timeout=600).stdout
    if "errors: 0" not in out:
        raise RuntimeError(out)


def used_memory(port):
    out = subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", str(port), "INFO", "memory"], capture_output=True, text=True,
                         timeout=60).stdout
    for line in out.splitlines():
        if line.startswith("used_memory:"):
            return int(line.split(":")[1])
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--keys", type=int, default=1_000_000)
    ap.add_argument("--shards", type=int, default=os.cpu_count())
    ap.add_argument("--skip-build", action="store_true")
    ap.add_argument("--stream", action="store_true", help="entries of one stream instead of string keys")
    args = ap.parse_args()

    build_dir = build_clone(args.skip_build)
    data = os.path.join(tempfile.gettempdir(), f"redisclone-mem-{'stream-' if args.stream else ''}{args.keys}.resp")
    if args.stream and not os.path.exists(data):
        with open(data, "wb") as f:
            for i in range(args.keys):
                args_ = [b"XADD", b"mem", b"*", b"name", b"n%d" % (i % 1000), b"age", b"%d" % (i % 100), b"city", b"c%d" % (i % 50)]
                f.write(b"*%d\r\n" % len(args_) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args_))
    if not os.path.exists(data):
        value = b"v" * 32
        with open(data, "wb") as f:
            for i in range(args.keys):
                key = b"key:%012d" % i
                f.write(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$32\r\n%s\r\n" % (len(key), key, value))

    results, used = {}, {}
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
            before, used_before = rss_kb(server.proc.pid), used_memory(port)
            load(port, args.keys, data)
            time.sleep(2)
            after, used_after = rss_kb(server.proc.pid), used_memory(port)
            results[name] = (after - before) * 1024 / args.keys
            used[name] = (used_after - used_before) / args.keys
        finally:
            server.stop()
    what = "stream entries of 3 small fields" if args.stream else "keys, 32-byte values"
    ratio = results["redisclone"] / results["redis"]
    print(f"RSS growth per {'entry' if args.stream else 'key'} ({args.keys:,} {what}): "
          f"RedisClone {results['redisclone']:.1f} B, redis-server {results['redis']:.1f} B, ratio {ratio:.2f}x")
    print(f"used_memory growth per {'entry' if args.stream else 'key'}: RedisClone {used['redisclone']:.1f} B, "
          f"redis-server {used['redis']:.1f} B, ratio {used['redisclone'] / used['redis']:.2f}x")


if __name__ == "__main__":
    main()
