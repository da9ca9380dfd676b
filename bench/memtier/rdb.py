#!/usr/bin/env python3
"""RDB save and load times, side by side: RedisClone and redis-server on the same dataset.

Both servers start on loopback ports (127.0.0.1 only), each in a fresh directory with no save
point, and get the same commands (generated once, cached under TMPDIR, sent with redis-cli --pipe):

  --dataset strings  --keys 100-byte strings (random printable bytes, which LZF cannot shrink,
                     or with --compressible a repetitive text it can)
  --dataset mixed    --keys keys, per 1,000: 500 strings of 100 bytes, 100 small hashes (10
                     fields), 100 small lists (10), 100 small sets (10 members; half of them
                     integers, an intset), 100 small sorted sets (10), 96 strings holding integers,
                     and one each of a hash, a list, a set and a sorted set of 1,000 elements

Per round, alternating which server goes first: SAVE is timed from the client (the command's
round trip: the file written, fsynced and renamed), then the server is stopped (SIGTERM, no save
point, so nothing is written) and started again on the same directory, and the load is timed
twice: the "DB loaded from disk: X seconds" line both servers log, and the wall time from the
process's start until PING answers PONG (the process's own start-up included), with the CPU time
the process used by then (steadier than wall times on a busy machine). The key count after
the load is checked. Prints every figure, the medians and the ratios RedisClone / redis-server.
Every step is bounded in time.

  python3 bench/memtier/rdb.py --dataset strings --keys 1000000 --rounds 3
  python3 bench/memtier/rdb.py --dataset mixed --keys 200000 --rounds 3 --policy allkeys-lfu
"""
import argparse, base64, os, random, re, shutil, signal, socket, statistics, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import build_clone, cpu_seconds, free_port  # noqa: E402
from rss import call, command as resp  # noqa: E402


def value(rng, size, compressible):
    if compressible:
        text = b"value:%d;" % rng.randrange(1 << 30)
        return (text * (size // len(text) + 1))[:size]
    return base64.b64encode(rng.randbytes(size * 3 // 4 + 3))[:size]


def generate(path, dataset, keys, compressible):
    """Writes the fill commands to path; returns the number of keys they make."""
    rng = random.Random(42)
    with open(path + ".part", "wb") as f:
        for i in range(keys):
            key = b"key:%010d" % i
            if dataset == "strings":
                f.write(resp(b"SET", key, value(rng, 100, compressible)))
                continue
            kind = i % 1000
            if kind < 500:
                f.write(resp(b"SET", key, value(rng, 100, compressible)))
            elif kind < 600:
                args = [b"HSET", key]
                for j in range(10):
                    args += [b"field:%d" % j, value(rng, 20, compressible)]
                f.write(resp(*args))
            elif kind < 700:
                f.write(resp(b"RPUSH", key, *[value(rng, 20, compressible) for _ in range(10)]))
            elif kind < 750:
                f.write(resp(b"SADD", key, *[value(rng, 20, compressible) for _ in range(10)]))
            elif kind < 800:
                f.write(resp(b"SADD", key, *[b"%d" % rng.randrange(1 << 40) for _ in range(10)]))
            elif kind < 900:
                args = [b"ZADD", key]
                for _ in range(10):
                    args += [b"%.3f" % (rng.random() * 1000), value(rng, 20, compressible)]
                f.write(resp(*args))
            elif kind < 996:
                f.write(resp(b"SET", key, b"%d" % rng.randrange(1 << 62)))
            elif kind == 996:
                args = [b"HSET", key]
                for j in range(1000):
                    args += [b"field:%d" % j, value(rng, 20, compressible)]
                f.write(resp(*args))
            elif kind == 997:
                f.write(resp(b"RPUSH", key, *[value(rng, 20, compressible) for _ in range(1000)]))
            elif kind == 998:
                f.write(resp(b"SADD", key, *[value(rng, 20, compressible) for _ in range(1000)]))
            else:
                args = [b"ZADD", key]
                for _ in range(1000):
                    args += [b"%.3f" % (rng.random() * 1000), value(rng, 20, compressible)]
                f.write(resp(*args))
    os.replace(path + ".part", path)


class Running:
    """One server process on its own directory; started again on the same directory to load."""

    def __init__(self, name, argv, workdir):
        self.name, self.argv, self.workdir = name, argv, workdir
        self.proc, self.port = None, None

    def start(self):
        """Starts the process; returns (wall seconds until PING answers PONG, the logged load seconds or
        None, the process's CPU seconds by then: start-up and load, the steadier figure on a busy machine)."""
        self.port = free_port()
        log = os.path.join(self.workdir, "server.log")
        if os.path.exists(log):
            os.unlink(log)
        started = time.monotonic()
        self.proc = subprocess.Popen(self.argv(self.port) + ["--dir", self.workdir, "--logfile", log],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=self.workdir)
        deadline = started + 300
        while True:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.name} did not answer PONG within 300 s")
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode} while starting (see {log})")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    s.settimeout(5)
                    s.sendall(b"PING\r\n")
                    if s.recv(100).startswith(b"+PONG"):
                        break
            except OSError:
                pass
            time.sleep(0.005)
        wall = time.monotonic() - started
        cpu = cpu_seconds(self.proc.pid)
        logged = None
        for _ in range(100):  # the log line may be written just after the listener answers
            with open(log, errors="replace") as f:
                m = re.search(r"DB loaded from disk: ([0-9.]+) seconds", f.read())
            if m:
                logged = float(m.group(1))
                break
            if not os.path.exists(os.path.join(self.workdir, "dump.rdb")):
                break
            time.sleep(0.01)
        return wall, logged, cpu

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def dbsize(port):
    return int(call(port, "DBSIZE", timeout=60).decode().strip().lstrip(":"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", choices=["strings", "mixed"], default="strings")
    ap.add_argument("--keys", type=int, default=1_000_000)
    ap.add_argument("--compressible", action="store_true", help="values LZF can shrink (default: random printable bytes)")
    ap.add_argument("--policy", default="noeviction", help="maxmemory-policy of both servers (allkeys-lfu: LFU counters saved and loaded)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--shards", type=int, default=0, help="RedisClone --shards (default: its own default, one per core)")
    ap.add_argument("--skip-build", action="store_true")
    args = ap.parse_args()

    fill = os.path.join(tempfile.gettempdir(), f"rdb-fill-{args.dataset}-{args.keys}-{'c' if args.compressible else 'r'}.resp")
    if not os.path.exists(fill):
        print(f"generating {fill}", flush=True)
        generate(fill, args.dataset, args.keys, args.compressible)
    clone_dll = os.path.join(build_clone(args.skip_build), "RedisClone.dll")
    common = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--maxmemory-policy", args.policy]
    shards = ["--shards", str(args.shards)] if args.shards else []
    servers = [
        Running("RedisClone", lambda port: ["dotnet", clone_dll, "--port", str(port)] + common + shards,
                tempfile.mkdtemp(prefix="bench-rdb-clone-")),
        Running("redis-server", lambda port: ["redis-server", "--port", str(port)] + common,
                tempfile.mkdtemp(prefix="bench-rdb-redis-")),
    ]
    results = {s.name: {"save": [], "load_logged": [], "load_wall": [], "load_cpu": []} for s in servers}
    try:
        for s in servers:
            s.start()
            with open(fill, "rb") as f:
                subprocess.run(["redis-cli", "-p", str(s.port), "--pipe"], stdin=f, check=True, timeout=600,
                               stdout=subprocess.DEVNULL)
            s.keys = dbsize(s.port)
            print(f"{s.name}: {s.keys} keys", flush=True)
        if servers[0].keys != servers[1].keys:
            raise RuntimeError(f"key counts differ: {servers[0].keys} and {servers[1].keys}")
        for r in range(args.rounds):
            for s in (servers if r % 2 == 0 else servers[::-1]):
                t0 = time.monotonic()
                reply = call(s.port, "SAVE", timeout=600)
                save = time.monotonic() - t0
                assert reply == b"OK", reply
                size = os.path.getsize(os.path.join(s.workdir, "dump.rdb"))
                s.stop()
                wall, logged, cpu = s.start()
                keys = dbsize(s.port)
                if keys != s.keys:
                    raise RuntimeError(f"{s.name} loaded {keys} keys, saved {s.keys}")
                results[s.name]["save"].append(save)
                results[s.name]["load_wall"].append(wall)
                results[s.name]["load_cpu"].append(cpu)
                if logged is not None:
                    results[s.name]["load_logged"].append(logged)
                print(f"round {r + 1} {s.name:12} SAVE {save * 1000:7.0f} ms   load (log) "
                      f"{(logged or float('nan')) * 1000:7.0f} ms   start to PONG {wall * 1000:7.0f} ms (CPU {cpu * 1000:5.0f} ms)   "
                      f"dump.rdb {size} bytes",
                      flush=True)
    finally:
        for s in servers:
            s.stop()
            shutil.rmtree(s.workdir, ignore_errors=True)

    print()
    print(f"{args.dataset}, {servers[0].keys} keys{', compressible' if args.compressible else ''}, policy {args.policy}, "
          f"medians of {args.rounds} rounds")
    print("| step | RedisClone ms | redis-server ms | ratio |")
    print("|---|---|---|---|")
    for step, label in (("save", "SAVE"), ("load_logged", "load (DB loaded from disk)"), ("load_wall", "start to PONG"),
                        ("load_cpu", "CPU, start to PONG")):
        a, b = results["RedisClone"][step], results["redis-server"][step]
        if a and b:
            ma, mb = statistics.median(a) * 1000, statistics.median(b) * 1000
            print(f"| {label} | {ma:.0f} | {mb:.0f} | {ma / mb:.2f}x |")


if __name__ == "__main__":
    main()
