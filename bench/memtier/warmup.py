#!/usr/bin/env python3
"""Full speed from the first second? How each way of building and running RedisClone behaves right
after a start, beside redis-server (issue 18).

For each variant the script starts a fresh server on a free 127.0.0.1 port in a working directory of
its own, measures its start-up (process start to the "Ready to accept connections" log line, and to
the first +PONG), waits --idle seconds and reads its idle RSS (VmRSS, and the anonymous part:
RssAnon, what the process does not share with others), then at once runs the same bounded
redis-benchmark command --runs times in a row, e.g.

    redis-benchmark -h 127.0.0.1 -p P -P 16 -t get -n 200000 --csv

and prints the first run's rate, the steady rate (the median of the last --steady runs), their
ratio (1.00 = full speed from the first run), the same for the server's CPU time per request (from
/proc/<pid>/stat; on a shared machine steadier than the rate, and it counts the JIT's own work), and
the size of the variant's output folder (for `build` and `r2r` without the shared .NET runtime). Each
test (get, set) gets a fresh server. Variants are started in turn, --starts times each, so a busy
moment of the shared machine does not land on one variant only; the table shows medians.

Variants (--variants, comma-separated; default: build,build+tc1,r2r+tc1,aot,redis):
  build          dotnet build -c Release, run as `dotnet RedisClone.dll` (the project's settings:
                 TieredCompilation off; build+tc1 is the runtime's default, tiers with dynamic PGO)
  dotnet-run     `dotnet run -c Release --project src/RedisClone` (the README's command; its start-up
                 includes the SDK's up-to-date check)
  r2r            dotnet publish -r linux-x64 --self-contained false -p:PublishReadyToRun=true
  r2r-sc         the same, self-contained (apphost, the runtime in the folder)
  r2r-composite  self-contained, -p:PublishReadyToRunComposite=true (app and framework in one image)
  aot            dotnet publish -r linux-x64 -p:PublishAot=true (NativeAOT)
  aot-speed      the same with -p:OptimizationPreference=Speed
  build+ENV..    a runtime setting on the `build` output, e.g. build+tc0 (see ENV_VARIANTS), also r2r+...
  redis          redis-server (the reference)

Outputs are built under $TMPDIR/redisclone-warmup/<variant> (each with its own --artifacts-path, so
the variants' intermediate files do not mix); --skip-build reuses them.
"""
import argparse, csv, os, shutil, signal, socket, statistics, subprocess, sys, tempfile, threading, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import ROOT, cpu_seconds, free_port  # noqa: E402

PROJECT = os.path.join(ROOT, "src", "RedisClone")
BUILDS = os.path.join(tempfile.gettempdir(), "redisclone-warmup")

# Publish/build command per output folder (the variant's name before any '+').
BUILD_COMMANDS = {
    "build": ["dotnet", "build", "-c", "Release", PROJECT],
    "r2r": ["dotnet", "publish", "-c", "Release", PROJECT, "-r", "linux-x64", "--self-contained", "false",
            "-p:PublishReadyToRun=true"],
    "r2r-sc": ["dotnet", "publish", "-c", "Release", PROJECT, "-r", "linux-x64", "--self-contained", "true",
               "-p:PublishReadyToRun=true"],
    "r2r-composite": ["dotnet", "publish", "-c", "Release", PROJECT, "-r", "linux-x64", "--self-contained", "true",
                      "-p:PublishReadyToRun=true", "-p:PublishReadyToRunComposite=true"],
    "aot": ["dotnet", "publish", "-c", "Release", PROJECT, "-r", "linux-x64", "-p:PublishAot=true"],
    "aot-speed": ["dotnet", "publish", "-c", "Release", PROJECT, "-r", "linux-x64", "-p:PublishAot=true",
                  "-p:OptimizationPreference=Speed"],
}

# Runtime settings tried on top of an output (as environment variables: the same knobs as the
# csproj's TieredCompilation/TieredPGO/... properties and runtimeconfig.json's configProperties).
ENV_VARIANTS = {
    "tc1": {"DOTNET_TieredCompilation": "1"},             # tiers (the runtime's default; the csproj turns them off)
    "tc0": {"DOTNET_TieredCompilation": "0"},             # no tiers: every method optimized at its first call
    "pgo0": {"DOTNET_TieredPGO": "0"},                    # tiers without the instrumented tier
    "qj0": {"DOTNET_TC_QuickJit": "0"},                   # no quick JIT: code without R2R optimized at once, R2R code still tiers
    "qj0-pgo0": {"DOTNET_TC_QuickJit": "0", "DOTNET_TieredPGO": "0"},
    "qjfl0": {"DOTNET_TC_QuickJitForLoops": "0"},         # methods with loops optimized at once (no OSR)
    "delay0": {"DOTNET_TC_CallCountingDelayMs": "0"},     # call counting from the start, not after 100 ms of quiet
    "aggr": {"DOTNET_TC_AggressiveTiering": "1"},         # threshold 1 and no delay
    "delay0-pgo0": {"DOTNET_TC_CallCountingDelayMs": "0", "DOTNET_TieredPGO": "0"},
    "r2r0": {"DOTNET_ReadyToRun": "0"},                   # ignore precompiled code (the framework's too)
    "wx0": {"DOTNET_EnableWriteXorExecute": "0"},         # no W^X double mapping of JIT'd code
    "gen0-1m": {"DOTNET_GCgen0size": "0x100000"},         # a 1 MB gen0 budget (idle RSS)
    "diag0": {"DOTNET_EnableDiagnostics": "0"},          # no debugger/EventPipe/diagnostic IPC threads (idle RSS)
    "nonconc": {"DOTNET_gcConcurrent": "0"},              # no background GC thread (idle RSS)
}

DEFAULT_VARIANTS = "build,build+tc1,r2r+tc1,aot,redis"


def output_dir(base):
    return os.path.join(BUILDS, base)


def build(base):
    out = output_dir(base)
    shutil.rmtree(out, ignore_errors=True)
    cmd = BUILD_COMMANDS[base] + ["-o", os.path.join(out, "app"), "--artifacts-path", os.path.join(out, "artifacts")]
    print("building:", " ".join(cmd), flush=True)
    t0 = time.time()
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        print(res.stdout[-4000:], res.stderr[-2000:])
        raise RuntimeError(f"{base}: build failed")
    warnings = sorted({line.split(": warning ")[1].split(" [")[0] for line in res.stdout.splitlines() if ": warning " in line})
    with open(os.path.join(out, "build.log"), "w") as f:
        f.write(res.stdout)
    print(f"  {time.time() - t0:.0f} s, {len(warnings)} distinct warnings", flush=True)
    for w in warnings[:20]:
        print("   ", w[:200])


def folder_mb(path):
    total = 0
    for dirpath, _, files in os.walk(path):
        for name in files:
            p = os.path.join(dirpath, name)
            if not os.path.islink(p):
                total += os.path.getsize(p)
    return total / 1e6


def argv_for(variant, port):
    base = variant.split("+")[0]
    common = ["--port", str(port), "--bind", "127.0.0.1"]
    if base == "redis":
        return ["redis-server", *common, "--save", "", "--appendonly", "no"], None
    if base == "dotnet-run":
        return ["dotnet", "run", "-c", "Release", "--project", PROJECT, "--", *common], None
    app = os.path.join(output_dir(base), "app")
    if base in ("build", "r2r"):
        return ["dotnet", os.path.join(app, "RedisClone.dll"), *common], app
    return [os.path.join(app, "RedisClone"), *common], app


def env_for(variant):
    env = dict(os.environ)
    for part in variant.split("+")[1:]:
        env.update(ENV_VARIANTS[part])
    return env


def proc_status(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "RssAnon", "RssFile", "Threads"):
                out[key] = int(value.split()[0])
    return out


def server_pid(root_pid):
    """The server process: root_pid itself, or (for dotnet run) its descendant running RedisClone."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry))
            except OSError:
                pass
    todo, found = [root_pid], root_pid
    while todo:
        pid = todo.pop()
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if b"RedisClone" in cmd and b"run\0" not in cmd:
            found = pid
        todo.extend(children.get(pid, []))
    return found


def ping(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def benchmark(port, test, pipeline, n, clients):
    cmd = ["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-P", str(pipeline), "-t", test,
           "-n", str(n), "-c", str(clients), "--csv"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=300).stdout
    rows = list(csv.reader(out.strip().splitlines()))
    return float(rows[1][rows[0].index("rps")])


def one_start(variant, test, args):
    port = free_port()
    argv, _ = argv_for(variant, port)
    workdir = tempfile.mkdtemp(prefix=f"warmup-{variant.replace('+', '-')}-")
    ready = {}
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env_for(variant), cwd=workdir,
                            start_new_session=True)

    def read_log():
        for line in proc.stdout:
            if b"Ready to accept connections" in line and "t" not in ready:
                ready["t"] = time.monotonic() - t0
    reader = threading.Thread(target=read_log, daemon=True)
    reader.start()
    try:
        deadline = t0 + 120
        while not ping(port):
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError(f"{variant}: no PONG on {port}")
            time.sleep(0.005)
        pong = time.monotonic() - t0
        time.sleep(args.idle)
        pid = server_pid(proc.pid)
        status = proc_status(pid)
        rates, cpu = [], []
        for _ in range(args.runs):
            before = cpu_seconds(pid)
            rates.append(benchmark(port, test, args.pipeline, args.requests, args.clients))
            cpu.append((cpu_seconds(pid) - before) / args.requests * 1e6)  # server CPU µs per request
        return {"ready": ready.get("t", float("nan")), "pong": pong, "rss": status["VmRSS"] / 1024,
                "anon": status["RssAnon"] / 1024, "threads": status["Threads"], "rates": rates, "cpu": cpu}
    finally:
        # The whole session: dotnet run's child server too.
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        shutil.rmtree(workdir, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variants", default=DEFAULT_VARIANTS, help=f"comma-separated (default {DEFAULT_VARIANTS})")
    ap.add_argument("--tests", default="get,set", help="redis-benchmark -t, one fresh server each (default get,set)")
    ap.add_argument("--runs", type=int, default=5, help="redis-benchmark runs in a row after a start (default 5)")
    ap.add_argument("--steady", type=int, default=2, help="the last N runs give the steady rate (default 2)")
    ap.add_argument("--starts", type=int, default=2, help="fresh starts per variant and test (default 2)")
    ap.add_argument("--requests", type=int, default=200_000, help="redis-benchmark -n (default 200000)")
    ap.add_argument("--pipeline", type=int, default=16, help="redis-benchmark -P (default 16)")
    ap.add_argument("--clients", type=int, default=50, help="redis-benchmark -c (default 50)")
    ap.add_argument("--idle", type=float, default=2.0, help="seconds between the first PONG and reading RSS (default 2)")
    ap.add_argument("--skip-build", action="store_true", help="reuse the outputs under $TMPDIR/redisclone-warmup")
    args = ap.parse_args()

    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    for v in variants:
        base, *envs = v.split("+")
        if base not in BUILD_COMMANDS and base not in ("redis", "dotnet-run") or any(e not in ENV_VARIANTS for e in envs):
            sys.exit(f"unknown variant {v}")
    bases = sorted({v.split("+")[0] for v in variants} & set(BUILD_COMMANDS))
    if not args.skip_build:
        for base in bases:
            build(base)
    if "dotnet-run" in variants:  # the project's own bin/ is what dotnet run starts: build it once first
        subprocess.run(["dotnet", "build", "-c", "Release", PROJECT], check=True, stdout=subprocess.DEVNULL)

    results = {(v, t): [] for v in variants for t in args.tests.split(",")}
    for s in range(args.starts):
        for test in args.tests.split(","):
            order = variants if s % 2 == 0 else list(reversed(variants))
            for v in order:
                r = one_start(v, test, args)
                results[(v, test)].append(r)
                print(f"  start {s + 1} {test} {v}: ready {r['ready'] * 1000:.0f} ms, PONG {r['pong'] * 1000:.0f} ms, "
                      f"RSS {r['rss']:.1f} MB (anon {r['anon']:.1f}), {r['threads']} threads, runs "
                      + " ".join(f"{x / 1000:.0f}k" for x in r["rates"]) + ", CPU µs/req "
                      + " ".join(f"{x:.2f}" for x in r["cpu"]), flush=True)

    print()
    print(f"redis-benchmark -P {args.pipeline} -c {args.clients} -n {args.requests}, {args.runs} runs after each start, "
          f"steady = median of the last {args.steady}; medians over {args.starts} starts")
    print()
    print("| variant | test | first run req/s | steady req/s | first/steady | CPU µs/req first | steady | first/steady "
          "| ready ms | PONG ms | idle RSS MB | anon MB | threads | size MB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (v, test), rs in results.items():
        first = statistics.median(r["rates"][0] for r in rs)
        steady = statistics.median(statistics.median(r["rates"][-args.steady:]) for r in rs)
        ratio = statistics.median(r["rates"][0] / statistics.median(r["rates"][-args.steady:]) for r in rs)
        cpu_first = statistics.median(r["cpu"][0] for r in rs)
        cpu_steady = statistics.median(statistics.median(r["cpu"][-args.steady:]) for r in rs)
        cpu_ratio = statistics.median(r["cpu"][0] / statistics.median(r["cpu"][-args.steady:]) for r in rs)
        med = {k: statistics.median(r[k] for r in rs) for k in ("ready", "pong", "rss", "anon", "threads")}
        _, app = argv_for(v, 0)
        size = f"{folder_mb(app):.0f}" if app else "-"
        print(f"| {v} | {test} | {first:,.0f} | {steady:,.0f} | {ratio:.2f} | {cpu_first:.2f} | {cpu_steady:.2f} | {cpu_ratio:.2f} | {med['ready'] * 1000:.0f} | "
              f"{med['pong'] * 1000:.0f} | {med['rss']:.1f} | {med['anon']:.1f} | {med['threads']:.0f} | {size} |")


if __name__ == "__main__":
    main()
