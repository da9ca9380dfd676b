#!/usr/bin/env python3
"""maxmemory and eviction, side by side with redis-server: with maxmemory M and allkeys-lru (then
allkeys-lfu), twice M of data is loaded (SETs of 1,000-byte values) with reads skewed towards a
small hot set written first (each SET is followed by three GETs: 80% of them on the hot set, the
rest on any key written so far). redis-cli --pipe feeds the commands; INFO is polled meanwhile.
Printed per server and policy: the highest used_memory seen against maxmemory, evicted_keys, the
keys left, the hot keys left, and the hit rate keyspace_hits / (hits + misses). Bounded in time
(each load has a 10-minute timeout)."""
import argparse, os, random, subprocess, sys, tempfile, threading, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import Server, build_clone, free_port  # noqa: E402

VALUE = 1000
HOT = 1000


def info(port):
    out = subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", str(port), "INFO"], capture_output=True, text=True,
                         timeout=60).stdout
    fields = {}
    for line in out.splitlines():
        if ":" in line and not line.startswith("#"):
            k, v = line.split(":", 1)
            fields[k] = v.strip()
    return fields


def make_load(path, keys, seed=1):
    """The command file: SET key:i then three GETs, skewed towards key:0..key:HOT-1."""
    rnd = random.Random(seed)
    value = b"v" * VALUE

    def cmd(*args):
        return b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args)

    with open(path, "wb") as f:
        for i in range(keys):
            f.write(cmd(b"SET", b"key:%d" % i, value))
            for _ in range(3):
                j = rnd.randrange(min(HOT, i + 1)) if rnd.random() < 0.8 else rnd.randrange(i + 1)
                f.write(cmd(b"GET", b"key:%d" % j))


def run(name, argv, port, data, maxmemory):
    server = Server(name, argv, port)
    peak, stop = [0], threading.Event()

    def poll():
        while not stop.is_set():
            try:
                peak[0] = max(peak[0], int(info(port).get("used_memory", 0)))
            except Exception:  # noqa: BLE001 - a poll racing the shutdown
                pass
            time.sleep(0.05)

    try:
        time.sleep(0.5)
        poller = threading.Thread(target=poll, daemon=True)
        poller.start()
        start = time.time()
        with open(data, "rb") as f:
            out = subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", str(port), "--pipe"], stdin=f,
                                 capture_output=True, text=True, timeout=600).stdout
        seconds = time.time() - start
        stop.set()
        poller.join()
        if "errors: 0" not in out:
            raise RuntimeError(out)
        fields = info(port)
        peak[0] = max(peak[0], int(fields["used_memory"]))
        hits, misses = int(fields["keyspace_hits"]), int(fields["keyspace_misses"])
        keys = int(fields.get("db0", "keys=0").split(",")[0].split("=")[1]) if "db0" in fields else 0
        hot = sum(int(subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", str(port), "EXISTS"]
                                     + [f"key:{i}" for i in range(h, h + 100)],
                                     capture_output=True, text=True, timeout=60).stdout.strip())
                  for h in range(0, HOT, 100))
        return {"peak": peak[0], "max": maxmemory, "evicted": int(fields["evicted_keys"]), "keys": keys, "hot": hot,
                "hit_rate": hits / max(1, hits + misses), "seconds": seconds}
    finally:
        stop.set()
        server.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--maxmemory-mb", type=int, default=64)
    ap.add_argument("--shards", type=int, default=os.cpu_count())
    ap.add_argument("--policies", default="allkeys-lru,allkeys-lfu")
    ap.add_argument("--skip-build", action="store_true")
    args = ap.parse_args()

    build_dir = build_clone(args.skip_build)
    maxmemory = args.maxmemory_mb * 1024 * 1024
    keys = 2 * maxmemory // VALUE
    data = os.path.join(tempfile.gettempdir(), f"redisclone-evict-{keys}.resp")
    if not os.path.exists(data):
        make_load(data, keys)
    print(f"maxmemory {args.maxmemory_mb} MB; {keys:,} SETs of {VALUE}-byte values ({2 * args.maxmemory_mb} MB of values), "
          f"each followed by 3 GETs (80% on the first {HOT} keys)")
    for policy in args.policies.split(","):
        for name in ("redisclone", "redis"):
            port = free_port()
            workdir = tempfile.mkdtemp(prefix="evict-")  # never load a dump.rdb lying where the script runs
            common = ["--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", workdir,
                      "--maxmemory", str(maxmemory), "--maxmemory-policy", policy]
            if name == "redis":
                argv = ["redis-server"] + common
            else:
                argv = ["dotnet", os.path.join(build_dir, "RedisClone.dll")] + common + ["--shards", str(args.shards)]
            r = run(name, argv, port, data, maxmemory)
            print(f"{policy:12} {name:10}  used_memory max {r['peak'] / 1048576:7.2f} MB ({r['peak'] / r['max'] * 100:5.1f}% of "
                  f"maxmemory)  evicted_keys {r['evicted']:7,}  keys left {r['keys']:6,}  hot keys left {r['hot']:4}/{HOT}  "
                  f"hit rate {r['hit_rate'] * 100:5.1f}%  load {r['seconds']:5.1f} s")


if __name__ == "__main__":
    main()
