#!/usr/bin/env python3
"""The active hash-field expiry cycle under load: RedisClone alone (the redis-server on this machine,
7.0, has no field TTLs), on a loopback port (127.0.0.1 only).

One hash gets --fields fields (pipelined HSET), all given the same absolute TTL --ttl-ms ahead
(pipelined HPEXPIREAT ... FIELDS n, --batch fields a command); active expiry is left on. A probe
client meanwhile times GET and HGET on other keys one at a time (round trips), before and while the
fields expire, and INFO stats expired_subkeys is sampled to time the cycle. The script prints how
long the hash took to go once its fields were due, the fields expired per second, and the probe's
p50/p99/max before and during the expiry. Every wait is bounded (--deadline).
"""
import argparse, os, socket, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import ROOT, Server, free_port  # noqa: E402
from rss import command, connect  # noqa: E402


def read_reply(f):
    """One RESP2 reply, arrays included: (type byte, payload); errors raise."""
    line = f.readline()
    if not line:
        raise RuntimeError("connection closed")
    kind, rest = line[:1], line[1:-2]
    if kind == b"-":
        raise RuntimeError(line.decode().strip())
    if kind == b"$":
        n = int(rest)
        return kind, (None if n < 0 else f.read(n + 2)[:-2])
    if kind == b"*":
        return kind, [read_reply(f) for _ in range(max(0, int(rest)))]
    return kind, rest


def call(port, *args, timeout=60):
    with connect(port, timeout) as s, s.makefile("rb") as f:
        s.sendall(command(*args))
        return read_reply(f)[1]


def build(skip_build):
    """Release build of RedisClone into a folder of this script's own (other scripts share theirs)."""
    build_dir = os.path.join(tempfile.gettempdir(), "redisclone-bench-build-field-expiry")
    if not skip_build:
        subprocess.run(["dotnet", "build", "-c", "Release", os.path.join(ROOT, "src", "RedisClone"), "-o", build_dir],
                       check=True, stdout=subprocess.DEVNULL)
    return build_dir


def pipeline(port, commands, window=200):
    """Sends the commands with up to `window` in flight; returns the replies' first bytes."""
    firsts = []
    with connect(port) as s, s.makefile("rb") as f:
        pending = 0
        for cmd in commands:
            s.sendall(command(*cmd))
            pending += 1
            if pending == window:
                for _ in range(pending):
                    firsts.append(read_reply(f)[0])
                pending = 0
        for _ in range(pending):
            firsts.append(read_reply(f)[0])
    return firsts


def info_int(port, section, field):
    for line in call(port, "INFO", section, timeout=10).decode().splitlines():
        if line.startswith(field + ":"):
            return int(line.split(":", 1)[1])
    return 0


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))] if values else float("nan")


def probe_until(port, stop, deadline):
    """Alternates GET and HGET round trips until stop() (checked every 100 calls) or the deadline."""
    times = []
    with connect(port) as s, s.makefile("rb") as f:
        i = 0
        while time.time() < deadline:
            t0 = time.perf_counter()
            s.sendall(command("GET", "probe:str") if i % 2 == 0 else command("HGET", "probe:hash", "f"))
            read_reply(f)
            times.append((time.perf_counter() - t0) * 1000)
            i += 1
            if i % 100 == 0 and stop():
                break
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fields", type=int, default=1_000_000)
    ap.add_argument("--batch", type=int, default=1000, help="fields per HSET / HPEXPIREAT command")
    ap.add_argument("--ttl-ms", type=int, default=3000, help="how far ahead the fields' common TTL is, from the end of loading")
    ap.add_argument("--deadline", type=float, default=120.0, help="seconds the expiry may take before the run fails")
    ap.add_argument("--skip-build", action="store_true")
    args = ap.parse_args()
    build_dir = build(args.skip_build)
    port = free_port()
    server = Server("clone", ["dotnet", os.path.join(build_dir, "RedisClone.dll"), "--port", str(port), "--bind", "127.0.0.1",
                              "--save", "", "--appendonly", "no"], port)
    try:
        call(port, "SET", "probe:str", "x")
        call(port, "HSET", "probe:hash", "f", "v")
        n, b = args.fields, args.batch
        replies = pipeline(port, (["HSET", "big"] + [x for i in range(j, min(n, j + b)) for x in (f"field:{i}", "v")]
                                  for j in range(0, n, b)))
        assert all(r == b":" for r in replies), "HSET failed"
        load_started = time.time()
        # Loading the TTLs takes a while on a shared machine: aim the TTL at the end of loading plus --ttl-ms.
        estimate = max(1.0, n / 200_000)
        at = int((time.time() + estimate) * 1000) + args.ttl_ms
        replies = pipeline(port, (["HPEXPIREAT", "big", at, "FIELDS", min(n, j + b) - j] + [f"field:{i}" for i in range(j, min(n, j + b))]
                                  for j in range(0, n, b)))
        assert all(r == b"*" for r in replies), "HPEXPIREAT failed"
        loaded = time.time()
        start_expired = info_int(port, "stats", "expired_subkeys")
        if loaded * 1000 >= at:
            print(f"warning: loading the TTLs took {loaded - load_started:.1f}s, past the TTL; raise --ttl-ms", file=sys.stderr)
        before = probe_until(port, lambda: time.time() * 1000 >= at, deadline=at / 1000 + 5)
        due = at / 1000
        gone = []

        def done():
            if call(port, "EXISTS", "big", timeout=10) == b"0":
                gone.append(time.time())
                return True
            return False

        during = probe_until(port, done, deadline=time.time() + args.deadline)
        if not gone:
            raise RuntimeError(f"the hash still had {call(port, 'HLEN', 'big').decode()} fields after {args.deadline}s")
        expired = info_int(port, "stats", "expired_subkeys") - start_expired
        took = gone[0] - due
    finally:
        server.stop()
    print(f"{n} fields in one hash with one common TTL (HPEXPIREAT, {b} fields a command), active expiry on; "
          f"probe: GET and HGET round trips one at a time, in ms")
    print(f"expired {expired} fields in {took:.2f}s after they were due: {expired / took:,.0f} fields/s")
    print("| probe | calls | p50 | p99 | max |")
    print("|---|---|---|---|---|")
    for label, times in (("before the TTL", before), ("while the fields expire", during)):
        print(f"| {label} | {len(times)} | {percentile(times, .5):.3f} | {percentile(times, .99):.3f} | {max(times):.1f} |")


if __name__ == "__main__":
    main()
