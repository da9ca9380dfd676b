#!/usr/bin/env python3
"""How long a graceful stop takes, side by side: RedisClone and redis-server, SIGTERM to exit.

Per round and server: start it on a loopback port in a fresh directory with a save point
(`--save "3600 1"`), fill it with --keys keys of --size bytes (DEBUG POPULATE), connect --idle
idle clients (they stay connected and never read, as a pooled connection does), then send
SIGTERM and time until the process has exited (waitpid). Rounds alternate the servers. Prints
each time, the median per server, the exit statuses, and the size of the saved file. Each round
is bounded (a server that has not exited 30 s after the signal is killed and reported).
"""
import argparse, os, signal, socket, statistics, subprocess, sys, tempfile, shutil, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import build_clone, free_port, wait_port  # noqa: E402
from rss import call  # noqa: E402


def one_stop(argv, keys, size, idle):
    workdir = tempfile.mkdtemp(prefix="bench-stop-")
    port = free_port()
    proc = subprocess.Popen(argv(port) + ["--dir", workdir, "--save", "3600 1", "--enable-debug-command", "yes"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=workdir)
    try:
        wait_port(port)
        call(port, "DEBUG", "POPULATE", str(keys), "key", str(size), timeout=300)
        sockets = []
        for _ in range(idle):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"PING\r\n")
            sockets.append(s)
        time.sleep(0.2)
        start = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            status = proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            status = "killed after 30 s"
        elapsed = time.monotonic() - start
        for s in sockets:
            s.close()
        dump = os.path.join(workdir, "dump.rdb")
        return elapsed, status, os.path.getsize(dump) if os.path.exists(dump) else 0
    finally:
        if proc.poll() is None:
            proc.kill()
        shutil.rmtree(workdir, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keys", type=int, default=100_000)
    parser.add_argument("--size", type=int, default=100)
    parser.add_argument("--idle", type=int, default=0, help="idle clients connected during the stop")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--skip-build", action="store_true")
    args = parser.parse_args()
    clone = os.path.join(build_clone(args.skip_build), "RedisClone.dll")
    servers = {
        "RedisClone": lambda port: ["dotnet", clone, "--port", str(port), "--bind", "127.0.0.1"],
        "redis-server": lambda port: ["redis-server", "--port", str(port), "--bind", "127.0.0.1"],
    }
    times = {name: [] for name in servers}
    for r in range(args.rounds):
        for name, argv in servers.items():
            elapsed, status, dump = one_stop(argv, args.keys, args.size, args.idle)
            times[name].append(elapsed)
            print(f"round {r + 1} {name:12} SIGTERM->exit {elapsed * 1000:7.0f} ms  exit status {status}  dump.rdb {dump} bytes",
                  flush=True)
    for name, values in times.items():
        print(f"{name:12} median {statistics.median(values) * 1000:.0f} ms  (min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f})")


if __name__ == "__main__":
    main()
