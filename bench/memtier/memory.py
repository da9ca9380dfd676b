#!/usr/bin/env python3
"""Memory per key: load N keys with 32-byte values into RedisClone and into redis-server
(redis-cli --pipe) and compare each server's RSS growth per key. With --stream, N stream entries
of three small fields instead (XADD mem * name nX age N city cY, one key), and used_memory growth
per entry is printed too. With --type hash|set|zset and --shape small|big, hashes, sets or sorted sets instead:
small is --keys keys (default 100,000) of --elements fields/members each (default 15: listpack, or intset
for a set of integers, --members int), big is one key of --keys elements (default 1,000,000: hashtable
or skiplist); RSS and used_memory growth per element and MEMORY USAGE of one key are printed."""
import argparse, os, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import Server, build_clone, free_port, rss_kb  # noqa: E402


def load(port, n, path):
    with open(path, "rb") as f:
        out = subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", str(port), "--pipe"], stdin=f,
                             capture_output=True, text=True, timeout=600).stdout
    if "errors: 0" not in out:
        raise RuntimeError(out)


def start_server(name, build_dir, shards):
    """redis-server ("redis") or RedisClone on a free loopback port, persisting nothing."""
    port = free_port()
    if name == "redis":
        return Server(name, ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no"], port)
    return Server(name, ["dotnet", os.path.join(build_dir, "RedisClone.dll"), "--port", str(port),
                         "--bind", "127.0.0.1", "--shards", str(shards)], port)


def used_memory(port):
    out = subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", str(port), "INFO", "memory"], capture_output=True, text=True,
                         timeout=60).stdout
    for line in out.splitlines():
        if line.startswith("used_memory:"):
            return int(line.split(":")[1])
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--keys", type=int, help="keys (default 1,000,000; 100,000 for --type --shape small) or elements")
    ap.add_argument("--shards", type=int, default=os.cpu_count())
    ap.add_argument("--skip-build", action="store_true")
    ap.add_argument("--stream", action="store_true", help="entries of one stream instead of string keys")
    ap.add_argument("--type", choices=("hash", "set", "zset"), help="hashes, sets or sorted sets instead of strings")
    ap.add_argument("--shape", choices=("small", "big"), default="small",
                    help="small: --keys keys of --elements each (listpack/intset); big: one key of --keys elements")
    ap.add_argument("--elements", type=int, default=15, help="fields/members per key for --shape small")
    ap.add_argument("--members", choices=("str", "int"), default="str",
                    help="set members: short strings (listpack in 7.2; redis-server 7.0 has hashtable) or integers (intset)")
    ap.add_argument("--build-dir", help="an already built RedisClone folder (RedisClone.dll) instead of building one")
    args = ap.parse_args()

    build_dir = args.build_dir or build_clone(args.skip_build)
    if args.type:
        return collections(args, build_dir)
    args.keys = args.keys or 1_000_000
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
        server = start_server(name, build_dir, args.shards)
        port = server.port
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


def type_commands(args):
    """The RESP commands that build the data set, and (number of elements, one sample key)."""
    def member(i):
        return b"%d" % (i * 7 + 1) if args.type == "set" and args.members == "int" else b"m:%d" % i

    def command(key, first, count):
        if args.type == "hash":
            parts = [b"HSET", key] + [x for i in range(first, first + count) for x in (b"f:%d" % i, b"v:%d" % i)]
        elif args.type == "set":
            parts = [b"SADD", key] + [member(i) for i in range(first, first + count)]
        else:
            parts = [b"ZADD", key] + [x for i in range(first, first + count) for x in (b"%d" % i, member(i))]
        return b"*%d\r\n" % len(parts) + b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts)

    if args.shape == "small":
        keys = args.keys or 100_000
        return (command(b"%s:%d" % (args.type.encode(), k), 0, args.elements) for k in range(keys)), \
            keys * args.elements, b"%s:0" % args.type.encode()
    n = args.keys or 1_000_000
    return (command(b"big", i, min(100, n - i)) for i in range(0, n, 100)), n, b"big"


def redis_cli(port, *argv):
    return subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", str(port), *argv], capture_output=True, text=True,
                          timeout=600).stdout.strip()


def collections(args, build_dir):
    commands, elements, sample = type_commands(args)
    shape = f"{args.type}-{args.shape}-{args.keys}-{args.elements}-{args.members}"
    data = os.path.join(tempfile.gettempdir(), f"redisclone-mem-{shape}.resp")
    if not os.path.exists(data):
        with open(data + ".tmp", "wb") as f:
            for c in commands:
                f.write(c)
        os.replace(data + ".tmp", data)
    rss, used, usage, encoding = {}, {}, {}, {}
    for name in ("redisclone", "redis"):
        server = start_server(name, build_dir, args.shards)
        port = server.port
        try:
            time.sleep(1)
            before, used_before = rss_kb(server.proc.pid), used_memory(port)
            load(port, elements, data)
            time.sleep(2)
            after, used_after = rss_kb(server.proc.pid), used_memory(port)
            rss[name] = (after - before) * 1024 / elements
            used[name] = (used_after - used_before) / elements
            usage[name] = int(redis_cli(port, "MEMORY", "USAGE", sample, "SAMPLES", "0") or 0)
            encoding[name] = redis_cli(port, "OBJECT", "ENCODING", sample)
        finally:
            server.stop()
    per_key = elements // (args.keys or 100_000) if args.shape == "small" else elements
    what = (f"{elements // per_key:,} keys of {per_key} " if args.shape == "small" else f"one key of {elements:,} ") + \
        ("fields" if args.type == "hash" else "members") + (" (integers)" if args.type == "set" and args.members == "int" else "")
    print(f"{args.type} {args.shape}: {what}; encoding RedisClone {encoding['redisclone']}, redis-server {encoding['redis']}")
    print(f"RSS growth per element: RedisClone {rss['redisclone']:.1f} B, redis-server {rss['redis']:.1f} B, "
          f"ratio {rss['redisclone'] / rss['redis']:.2f}x")
    print(f"used_memory growth per element: RedisClone {used['redisclone']:.1f} B, redis-server {used['redis']:.1f} B, "
          f"ratio {used['redisclone'] / used['redis']:.2f}x")
    print(f"MEMORY USAGE {sample.decode()} SAMPLES 0 per element: RedisClone {usage['redisclone'] / per_key:.1f} B "
          f"({usage['redisclone']}), redis-server {usage['redis'] / per_key:.1f} B ({usage['redis']}), "
          f"ratio {usage['redisclone'] / max(usage['redis'], 1):.2f}x")


if __name__ == "__main__":
    main()
