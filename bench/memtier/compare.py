#!/usr/bin/env python3
"""Side-by-side load runs: RedisClone vs Debian's redis-server on loopback ports, and Garnet (Microsoft's
C# server, when installed as .tools/garnet or given with --garnet) and another RedisClone build
(--baseline DIR, for a before/after in the same run).

Starts the servers, runs the same bounded load against each, rotating who goes first (--rounds times),
and prints the medians of ops/s, p50/p99/p99.9 latency and server CPU seconds per million ops
(from /proc/<pid>/stat), with RedisClone's ratio to each of the others; also the load generator's own
CPU per million ops, how many cores each side kept busy, and the machine's steal time during the
runs (on a small shared machine the load generator competes with the server for the cores, and a
single-threaded load generator near 1.0 core busy is what bounds the run). Results go to
bench/memtier/results/ as CSV and markdown, plus an SVG bar chart.

Loads: memtier_benchmark (1 thread, 50 clients, --ratio=1:10, -d 32, --key-maximum=100000,
--test-time) at pipeline 1 and 16 when memtier_benchmark is on PATH; otherwise redis-benchmark
(-t set,get with and without -P 16). With --evalsha: redis-benchmark sending EVALSHA of a
one-command script (INCR of a random key), with and without -P 16.
"""
import argparse, csv, hashlib, json, os, resource, shutil, signal, socket, statistics, subprocess, sys, tempfile, time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
CLK_TCK = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listening on 127.0.0.1:{port}")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime + stime


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def flush(port):
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"*1\r\n$8\r\nFLUSHALL\r\n")
        s.recv(100)


class Server:
    def __init__(self, name, argv, port, env=None):
        self.name, self.port = name, port
        # A working directory of its own (removed at stop): a server given no --dir neither loads a
        # dump.rdb left where the script runs nor leaves one there.
        self.workdir = tempfile.mkdtemp(prefix=f"bench-{name}-")
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=self.workdir)
        wait_port(port)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.workdir, ignore_errors=True)


def run_memtier(port, pipeline, seconds):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tmp:
        out = tmp.name
    cmd = ["memtier_benchmark", "-s", "127.0.0.1", "-p", str(port), "-t", "1", "-c", "50",
           "--ratio=1:10", "-d", "32", "--key-maximum=100000", f"--pipeline={pipeline}",
           f"--test-time={seconds}", "--hide-histogram", "--print-percentiles", "50,99,99.9",
           "--json-out-file", out]
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, timeout=seconds + 60)
    with open(out) as f:
        totals = json.load(f)["ALL STATS"]["Totals"]
    os.unlink(out)
    pct = totals["Percentile Latencies"]
    return {"ops": totals["Ops/sec"], "count": totals["Count"], "p50": pct["p50.00"],
            "p99": pct["p99.00"], "p999": pct["p99.90"]}


def run_redis_benchmark(port, pipeline, seconds):
    # redis-benchmark is bounded by request count; size it so a run takes about `seconds`.
    n = 200_000 * max(1, seconds // 5) * (4 if pipeline > 1 else 1)
    cmd = ["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-t", "set,get", "-n", str(n),
           "-c", "50", "-d", "32", "-r", "100000", "-P", str(pipeline), "--csv"]
    return redis_benchmark_csv(cmd, n, seconds)


def redis_benchmark_csv(cmd, n, seconds):
    """Runs redis-benchmark --csv and averages its tests' rows (n requests each)."""
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=seconds * 20 + 120).stdout
    rows = list(csv.reader(out.strip().splitlines()))
    header, data = rows[0], rows[1:]
    idx = {h: i for i, h in enumerate(header)}
    ops = sum(float(r[idx["rps"]]) for r in data) / len(data)
    p50 = statistics.mean(float(r[idx["p50_latency_ms"]]) for r in data)
    p99 = statistics.mean(float(r[idx["p99_latency_ms"]]) for r in data)
    return {"ops": ops, "count": n * len(data), "p50": p50, "p99": p99, "p999": float("nan")}


# EVALSHA of a one-command script (the issue's per-call figure): the script is loaded on each
# server once after it starts; keys spread over 100,000 as in the other loads.
EVAL_SCRIPT = "return redis.call('INCR', KEYS[1])"


def load_script(port):
    body = EVAL_SCRIPT.encode()
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"*3\r\n$6\r\nSCRIPT\r\n$4\r\nLOAD\r\n$%d\r\n%s\r\n" % (len(body), body))
        reply = s.recv(200)
    return reply.split(b"\r\n")[1].decode()


def run_redis_benchmark_evalsha(port, pipeline, seconds):
    sha = hashlib.sha1(EVAL_SCRIPT.encode()).hexdigest()
    n = 100_000 * max(1, seconds // 5) * (4 if pipeline > 1 else 1)
    cmd = ["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-n", str(n), "-c", "50", "-r", "100000",
           "-P", str(pipeline), "--csv", "EVALSHA", sha, "1", "key:__rand_int__"]
    return redis_benchmark_csv(cmd, n, seconds)


def machine_ticks():
    """(steal, total) jiffies of the whole machine, from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    return (fields[7] if len(fields) > 7 else 0), sum(fields[:8])


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # finished load runs (the servers are still running)
    return usage.ru_utime + usage.ru_stime


def measure(server, load, pipeline, seconds):
    flush(server.port)
    before = cpu_seconds(server.proc.pid)
    steal0, total0 = machine_ticks()
    load0 = children_cpu()
    result = load(server.port, pipeline, seconds)
    cpu = cpu_seconds(server.proc.pid) - before
    load_cpu = children_cpu() - load0
    steal1, total1 = machine_ticks()
    mops = result["count"] / 1e6 if result["count"] else float("nan")
    result["cpu_per_mop"] = cpu / mops
    # The load generator shares the machine's cores with the server: what it spent per op, how much
    # of a core each side kept busy (a load generator near 1.0 is the bound, not the server), and
    # how much time the hypervisor took from this machine, say how far a run measured the server.
    result["load_cpu_per_mop"] = load_cpu / mops
    # Over the load's measured time (its op count over its rate), not the process's lifetime, which
    # adds start-up and connection set-up to a few seconds of load.
    measured = result["count"] / result["ops"] if result["ops"] else float("nan")
    result["server_cores"] = cpu / measured
    result["load_cores"] = load_cpu / measured
    result["steal_pct"] = 100.0 * (steal1 - steal0) / max(1, total1 - total0)
    return result


def svg_chart(rows, path):
    metrics = [("ops", "ops/s (higher is better)"), ("p99", "p99 ms (lower is better)"),
               ("cpu_per_mop", "CPU s / M ops (lower is better)")]
    width, bar_h, gap = 760, 16, 10
    lines, y = [], 30
    lines.append('<text x="10" y="18" font-size="14" font-family="sans-serif">RedisClone (blue) vs redis-server (grey), medians</text>')
    for load in rows:
        for key, label in metrics:
            a, b = load["clone"][key], load["redis"][key]
            top = max(a, b) or 1
            lines.append(f'<text x="10" y="{y + 12}" font-size="11" font-family="sans-serif">{load["load"]}: {label}</text>')
            y += 16
            for value, color in ((a, "#2f6db5"), (b, "#999")):
                w = int((width - 220) * value / top)
                lines.append(f'<rect x="10" y="{y}" width="{w}" height="{bar_h}" fill="{color}"/>')
                lines.append(f'<text x="{w + 16}" y="{y + 12}" font-size="11" font-family="sans-serif">{value:,.3f}</text>')
                y += bar_h + 2
            y += gap
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{y + 10}">' + "".join(lines) + "</svg>"
    with open(path, "w") as f:
        f.write(svg)


def build_clone(skip_build):
    """Builds RedisClone in Release into a folder under TMPDIR (unless skip_build) and returns the folder."""
    build_dir = os.path.join(tempfile.gettempdir(), "redisclone-bench-build")
    if not skip_build:
        subprocess.run(["dotnet", "build", "-c", "Release", os.path.join(ROOT, "src", "RedisClone"), "-o", build_dir],
                       check=True, stdout=subprocess.DEVNULL)
    return build_dir


# --- Shared by the per-family scripts (bitmaps.py, hyperloglog.py): one client, a fixed number of calls.

def send(sock, *args):
    """Sends one command (arguments as bytes, str or numbers) and returns the first reply line's bytes."""
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    sock.sendall(out)
    buf = b""
    while b"\r\n" not in buf:
        buf += sock.recv(65536)
    return buf


def calls(port, pid, args, n):
    """redis-benchmark from one client, n requests of args: (ms per call, server CPU seconds per call)."""
    before = cpu_seconds(pid)
    out = subprocess.run(["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-n", str(n), "-c", "1", "--csv"] + args,
                         capture_output=True, text=True, check=True, timeout=600).stdout
    cpu = cpu_seconds(pid) - before
    rps = float(out.strip().splitlines()[1].split(",")[1].strip('"'))
    return 1000.0 / rps, cpu / n


def side_by_side(description, loads, fill, default_calls, warmup, digits):
    """Starts both servers, runs fill(port) on each, then every (name, redis-benchmark args) load,
    alternating A/B for --rounds, and prints a markdown table of ms and server CPU ms per call."""
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--calls", type=int, default=default_calls, help=f"requests per load and round (default {default_calls})")
    ap.add_argument("--skip-build", action="store_true")
    args = ap.parse_args()
    build_dir = build_clone(args.skip_build)
    clone_port, redis_port = free_port(), free_port()
    clone = Server("clone", ["dotnet", os.path.join(build_dir, "RedisClone.dll"), "--port", str(clone_port),
                             "--bind", "127.0.0.1"], clone_port)
    redis = Server("redis", ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no"], redis_port)
    try:
        for server in (clone, redis):
            fill(server.port)
        print("| load | RedisClone ms/call | redis ms/call | ratio | RedisClone CPU ms/call | redis CPU ms/call | ratio |")
        print("|---|---|---|---|---|---|---|")
        for name, cmd in loads:
            res = {"clone": [], "redis": []}
            calls(clone.port, clone.proc.pid, cmd, warmup)  # warm-up (JIT)
            for r in range(args.rounds):
                for server in ((clone, redis) if r % 2 == 0 else (redis, clone)):
                    res[server.name].append(calls(server.port, server.proc.pid, cmd, args.calls))
            c_ms = statistics.median(x[0] for x in res["clone"])
            r_ms = statistics.median(x[0] for x in res["redis"])
            c_cpu = statistics.median(x[1] for x in res["clone"]) * 1000
            r_cpu = statistics.median(x[1] for x in res["redis"]) * 1000
            f = f".{digits}f"
            print(f"| {name} | {c_ms:{f}} | {r_ms:{f}} | {c_ms / r_ms:.2f}x | {c_cpu:{f}} | {r_cpu:{f}} | {c_cpu / r_cpu:.2f}x |", flush=True)
    finally:
        clone.stop()
        redis.stop()


def garnet_path(arg):
    """The Garnet server to compare with: --garnet PATH, or the dotnet tool under .tools/garnet when installed
    (dotnet tool install --tool-path .tools/garnet garnet-server --version 2.2.8), else None."""
    if arg == "none":
        return None
    if arg:
        return arg
    local = os.path.join(ROOT, ".tools", "garnet", "garnet-server")
    return local if os.path.exists(local) else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3, help="rotations per load (default 3)")
    ap.add_argument("--seconds", type=int, default=15, help="length of each run (default 15)")
    ap.add_argument("--shards", type=int, default=os.cpu_count(), help="RedisClone --shards (default: cores)")
    ap.add_argument("--io-threads", type=int, default=max(1, (os.cpu_count() or 2) // 2),
                    help="RedisClone --io-threads, its event loops (default: cores / 2)")
    ap.add_argument("--tool", choices=["auto", "memtier", "redis-benchmark"], default="auto")
    ap.add_argument("--skip-build", action="store_true", help="reuse the last Release build")
    ap.add_argument("--evalsha", action="store_true",
                    help="load: EVALSHA of a one-command script (redis-benchmark), instead of SET/GET")
    ap.add_argument("--garnet", default="", help="Garnet's garnet-server to run as a third server (default: "
                    ".tools/garnet/garnet-server when installed; 'none' to leave it out)")
    ap.add_argument("--baseline", default="", help="a folder holding another RedisClone build (RedisClone.dll) to run "
                    "as a fourth server, 'before' (an old-versus-new comparison in the same run)")
    ap.add_argument("--pipelines", default="1,16", help="pipeline depths to load (default 1,16)")
    ap.add_argument("--clone-args", default="", help="extra RedisClone arguments, e.g. '--appendonly yes'")
    args = ap.parse_args()

    tool = args.tool
    if tool == "auto":
        tool = "memtier" if shutil.which("memtier_benchmark") else "redis-benchmark"
    if not shutil.which("redis-server"):
        sys.exit("redis-server is not installed (apt-get install -y redis-server redis-tools)")
    load = run_memtier if tool == "memtier" else run_redis_benchmark
    if args.evalsha:
        tool, load = "redis-benchmark EVALSHA", run_redis_benchmark_evalsha

    build_dir = build_clone(args.skip_build)
    servers = []

    def clone_server(name, folder):
        port = free_port()
        return Server(name, ["dotnet", os.path.join(folder, "RedisClone.dll"), "--port", str(port), "--bind", "127.0.0.1",
                             "--shards", str(args.shards), "--io-threads", str(args.io_threads)] + args.clone_args.split(), port)

    try:
        servers.append(clone_server("clone", build_dir))
        port = free_port()
        servers.append(Server("redis", ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                        "--appendonly", "no"], port))
        garnet = garnet_path(args.garnet)
        if garnet:
            port = free_port()
            # Garnet as it starts by default, bound to loopback; no checkpoints or AOF (its defaults).
            servers.append(Server("garnet", [garnet, "--port", str(port), "--bind", "127.0.0.1"], port))
        if args.baseline:
            servers.append(clone_server("before", args.baseline))
        if args.evalsha:
            for server in servers:
                load_script(server.port)
        rows = []
        for pipeline in (int(p) for p in args.pipelines.split(",")):
            name = f"{tool} pipeline {pipeline}"
            runs = {s.name: [] for s in servers}
            for s in servers:
                if s.name in ("clone", "before", "garnet"):
                    measure(s, load, pipeline, 3)  # warm-up: JIT, key space
            for r in range(args.rounds):
                order = servers[r % len(servers):] + servers[:r % len(servers)]  # rotate who goes first
                if r % 2:
                    order.reverse()
                for server in order:
                    runs[server.name].append(measure(server, load, pipeline, args.seconds))
                    last = runs[server.name][-1]
                    print(f"  {name} round {r + 1} {server.name}: {last['ops']:,.0f} ops/s, server {last['server_cores']:.2f} cores, "
                          f"load generator {last['load_cores']:.2f} cores, steal {last['steal_pct']:.0f}%", flush=True)
            med = {k: {m: statistics.median(x[m] for x in v) for m in v[0]} for k, v in runs.items()}
            rows.append({"load": name, **med})
    finally:
        for server in servers:
            server.stop()

    names = [s.name for s in servers]
    titles = {"clone": "RedisClone", "redis": "redis-server", "garnet": "Garnet", "before": "RedisClone (baseline)"}
    others = [n for n in names if n != "clone"]
    os.makedirs(RESULTS, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    metrics = [("ops", "ops/s"), ("p50", "p50 ms"), ("p99", "p99 ms"), ("p999", "p99.9 ms"), ("cpu_per_mop", "CPU s/M ops"),
               ("load_cpu_per_mop", "load generator CPU s/M ops"), ("server_cores", "server cores busy"),
               ("load_cores", "load generator cores busy"), ("steal_pct", "machine steal %")]
    md = [f"RedisClone ({args.shards} shards, {args.io_threads} io threads{', ' + args.clone_args if args.clone_args else ''}) vs "
          f"{', '.join(titles[n] for n in others)}, {tool}, medians of {args.rounds} rotated runs of {args.seconds}s", "",
          "| load | metric | " + " | ".join(titles[n] for n in names) + " | " + " | ".join(f"ratio to {titles[n]}" for n in others) + " |",
          "|---|---|" + "---|" * (len(names) + len(others))]
    with open(os.path.join(RESULTS, f"compare-{stamp}.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["load", "metric"] + names + [f"ratio_{n}" for n in others])
        for row in rows:
            for key, label in metrics:
                values = [row[n][key] for n in names]
                ratios = [row["clone"][key] / row[n][key] if row[n][key] else float("nan") for n in others]
                w.writerow([row["load"], label] + [f"{v:.4f}" for v in values] + [f"{x:.3f}" for x in ratios])
                md.append(f"| {row['load']} | {label} | " + " | ".join(f"{v:,.3f}" for v in values) + " | "
                          + " | ".join(f"{x:.2f}x" for x in ratios) + " |")
    text = "\n".join(md) + "\n"
    with open(os.path.join(RESULTS, f"compare-{stamp}.md"), "w") as f:
        f.write(text)
    svg_chart(rows, os.path.join(RESULTS, f"compare-{stamp}.svg"))
    print()
    print(text)
    print(f"results: {RESULTS}/compare-{stamp}.{{csv,md,svg}}")


if __name__ == "__main__":
    main()
