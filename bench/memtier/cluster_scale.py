#!/usr/bin/env python3
"""Scale-out figure: memtier_benchmark --cluster-mode on clusters of 1, 2 and 3 masters (no replicas)
of RedisClone and of Debian's redis-server, side by side, on 127.0.0.1.

For each shape and server kind the script starts the nodes (cluster-enabled, own directory, bus on
a port of its own), gives each master an equal range of the 16,384 slots, joins them with CLUSTER
MEET, waits until every node says cluster_state:ok, then runs memtier_benchmark --cluster-mode
(50 clients over 2 threads, --ratio=1:10 SET:GET, 32-byte values, 100,000 keys, a fixed number of
seconds) at pipeline 1 and 16, alternating RedisClone and redis-server for --rounds. It reports
the medians of throughput and of server CPU per million operations (the sum of every node
process's utime + stime from /proc/<pid>/stat over the run, as compare.py measures one server),
and the ratio RedisClone / redis-server.

On a small shared machine the nodes and the load generator compete for the same cores, so
throughput hardly grows with masters here; the CPU per operation is the honest figure: with one
machine per master, a cluster's throughput is about masters x (one machine's cores / CPU per op).

Example: python3 bench/memtier/cluster_scale.py --rounds 2 --seconds 5
"""
import argparse, json, os, shutil, signal, socket, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import build_clone, cpu_seconds, wait_port  # noqa: E402  (same folder)

MEMTIER = os.environ.get("MEMTIER", shutil.which("memtier_benchmark") or "")
PORT_LOW, PORT_HIGH = 49000, 52999  # client ports; each node's bus port is picked apart in the same range


def port_free(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


_next_port = [PORT_LOW + (os.getpid() * 7) % 1000]


def pick_port():
    for _ in range(PORT_HIGH - PORT_LOW):
        p = _next_port[0]
        _next_port[0] = PORT_LOW + (p + 1 - PORT_LOW) % (PORT_HIGH - PORT_LOW)
        if port_free(p):
            return p
    raise RuntimeError("no free port in %d-%d" % (PORT_LOW, PORT_HIGH))


def call(port, *args, timeout=10):
    """One command over a fresh connection; the reply's first line (a bulk's content for bulks)."""
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(out)
        buf = b""
        while b"\r\n" not in buf:
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
        if buf.startswith(b"$") and not buf.startswith(b"$-1"):
            n = int(buf[1:buf.index(b"\r\n")])
            head = buf.index(b"\r\n") + 2
            while len(buf) < head + n + 2:
                chunk = s.recv(65536)
                if not chunk:
                    break
                buf += chunk
            return buf[head:head + n].decode()
        return buf.split(b"\r\n")[0].decode()


class Node:
    def __init__(self, kind, build_dir, shards, io_threads):
        self.kind = kind
        self.dir = tempfile.mkdtemp(prefix=f"cluscale-{kind}-")
        self.port, self.bus = pick_port(), pick_port()
        common = ["--port", str(self.port), "--bind", "127.0.0.1", "--cluster-enabled", "yes",
                  "--cluster-config-file", os.path.join(self.dir, "nodes.conf"), "--cluster-port", str(self.bus),
                  "--save", "", "--appendonly", "no",
                  # a node that was never met does not know its own IP (CLUSTER SLOTS would say "")
                  "--cluster-announce-ip", "127.0.0.1"]
        if kind == "clone":
            argv = ["dotnet", os.path.join(build_dir, "RedisClone.dll")] + common + [
                "--shards", str(shards), "--io-threads", str(io_threads)]
        else:
            argv = ["redis-server"] + common + ["--dir", self.dir]
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=self.dir)
        wait_port(self.port, 60)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)


class Cluster:
    """masters nodes of one kind, the slots split evenly, met and settled."""

    def __init__(self, kind, masters, build_dir, shards, io_threads):
        self.kind, self.nodes = kind, []
        try:
            for _ in range(masters):
                self.nodes.append(Node(kind, build_dir, shards, io_threads))
            per = 16384 // masters
            for i, n in enumerate(self.nodes):
                lo, hi = i * per, (16383 if i == masters - 1 else (i + 1) * per - 1)
                assert call(n.port, "CLUSTER", "ADDSLOTSRANGE", lo, hi) == "+OK"
            for n in self.nodes[1:]:
                assert call(self.nodes[0].port, "CLUSTER", "MEET", "127.0.0.1", n.port, n.bus) == "+OK"
            end = time.time() + 60
            while True:
                infos = [call(n.port, "CLUSTER", "INFO") for n in self.nodes]
                counts = [call(n.port, "CLUSTER", "NODES").count("connected") for n in self.nodes]
                if all("cluster_state:ok" in i for i in infos) and all(c == masters for c in counts):
                    break
                if time.time() > end:
                    raise RuntimeError(f"{kind} cluster of {masters} did not settle: {infos}")
                time.sleep(0.2)
        except BaseException:
            self.stop()
            raise

    def cpu(self):
        return sum(cpu_seconds(n.proc.pid) for n in self.nodes)

    def flush(self):
        for n in self.nodes:
            call(n.port, "FLUSHALL")

    def stop(self):
        for n in self.nodes:
            n.stop()


def memtier(port, pipeline, seconds):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tmp:
        out = tmp.name
    cmd = [MEMTIER, "-s", "127.0.0.1", "-p", str(port), "--cluster-mode", "-t", "2", "-c", "25",
           "--ratio=1:10", "-d", "32", "--key-maximum=100000", f"--pipeline={pipeline}",
           f"--test-time={seconds}", "--hide-histogram", "--json-out-file", out]
    try:
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, timeout=seconds + 60)
        with open(out) as f:
            totals = json.load(f)["ALL STATS"]["Totals"]
    finally:
        os.unlink(out)
    return totals["Ops/sec"], totals["Count"]


def measure(cluster, pipeline, seconds):
    cluster.flush()
    before = cluster.cpu()
    ops, count = memtier(cluster.nodes[0].port, pipeline, seconds)
    cpu = cluster.cpu() - before
    return {"ops": ops, "cpu_per_mop": cpu / (count / 1e6) if count else float("nan")}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=2, help="A/B alternations per shape and pipeline (default 2)")
    ap.add_argument("--seconds", type=int, default=5, help="length of each memtier run (default 5, 3 to 60)")
    ap.add_argument("--masters", default="1,2,3", help="cluster shapes (default 1,2,3)")
    ap.add_argument("--shards", type=int, default=1, help="RedisClone --shards per node (default 1)")
    ap.add_argument("--io-threads", type=int, default=1, help="RedisClone --io-threads per node (default 1)")
    ap.add_argument("--skip-build", action="store_true", help="reuse the last Release build")
    args = ap.parse_args()
    # A SIGTERM (timeout, kill) unwinds through the finally blocks, so every node started is stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    args.seconds = max(3, min(args.seconds, 60))  # memtier's ops/s of a shorter run is not meaningful
    args.rounds = max(1, min(args.rounds, 10))
    if not MEMTIER or not os.path.exists(MEMTIER):
        sys.exit("memtier_benchmark not found (on PATH or in $MEMTIER)")
    if not shutil.which("redis-server"):
        sys.exit("redis-server is not installed (apt-get install -y redis-server)")
    shapes = [int(x) for x in args.masters.split(",")]
    if any(m < 1 or m > 8 for m in shapes):
        sys.exit("--masters: 1 to 8 each")
    build_dir = build_clone(args.skip_build)

    rows = []
    for masters in shapes:
        clusters = {}
        try:
            for kind in ("clone", "redis"):
                clusters[kind] = Cluster(kind, masters, build_dir, args.shards, args.io_threads)
            for pipeline in (1, 16):
                runs = {"clone": [], "redis": []}
                measure(clusters["clone"], pipeline, min(3, args.seconds))  # warm-up: JIT, connections
                for r in range(args.rounds):
                    for kind in (("clone", "redis") if r % 2 == 0 else ("redis", "clone")):
                        runs[kind].append(measure(clusters[kind], pipeline, args.seconds))
                        last = runs[kind][-1]
                        print(f"  {masters} master(s) pipeline {pipeline} round {r + 1} {kind}: {last['ops']:,.0f} ops/s, "
                              f"{last['cpu_per_mop']:.2f} CPU s/M ops", flush=True)
                med = {k: {m: statistics.median(x[m] for x in v) for m in v[0]} for k, v in runs.items()}
                rows.append((masters, pipeline, med))
        finally:
            for c in clusters.values():
                c.stop()

    print()
    print(f"memtier_benchmark --cluster-mode -t 2 -c 25 --ratio=1:10 -d 32 --key-maximum=100000, {args.seconds}s runs, "
          f"medians of {args.rounds}; RedisClone nodes: --shards {args.shards} --io-threads {args.io_threads}; "
          f"{os.cpu_count()} cores")
    print()
    print("| masters | pipeline | RedisClone ops/s | redis ops/s | ratio | RedisClone CPU s/M ops | redis CPU s/M ops | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for masters, pipeline, med in rows:
        c, r = med["clone"], med["redis"]
        print(f"| {masters} | {pipeline} | {c['ops']:,.0f} | {r['ops']:,.0f} | {c['ops'] / r['ops']:.2f}x | "
              f"{c['cpu_per_mop']:.2f} | {r['cpu_per_mop']:.2f} | {c['cpu_per_mop'] / r['cpu_per_mop']:.2f}x |")


if __name__ == "__main__":
    main()
