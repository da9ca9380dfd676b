#!/usr/bin/env python3
"""Failover side by side: a master with two replicas, all RedisClone or all redis-server, on
loopback ports (127.0.0.1 only), every run bounded in time.

--mode sentinel (default): three redis-sentinel processes monitor the group (quorum 2,
down-after-milliseconds --down-after). A writer SETs distinct keys, each followed by WAIT 1 100,
on whatever master the sentinels name; the master is SIGKILLed at a random moment; the writer
keeps asking the sentinels and retrying. Printed per round: the time from the kill to the writer's
first successful write on the new master, writes WAIT acknowledged, and how many of those the new
master has. The old master is then started again on its port and must come back as a replica of
the new one (the sentinels reconfigure it).

--mode manual: no sentinels; the master is SIGKILLed at a random moment during the same writes and
the replica with the larger processed offset is promoted by hand (REPLICAOF NO ONE), the other made
its replica: acknowledged writes against present.
"""
import argparse, os, random, shutil, signal, subprocess, sys, tempfile, threading, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import build_clone, free_port, wait_port  # noqa: E402
from rss import command, connect, read_reply, call  # noqa: E402


class Proc:
    def __init__(self, argv, port, workdir):
        self.argv, self.port, self.workdir = argv, port, workdir
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=workdir)
        wait_port(port)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def restart(self):
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=self.workdir)
        wait_port(self.port)


def server(kind, build_dir, port, workdir, replicaof=None):
    conf = os.path.join(workdir, f"node-{port}.conf")
    with open(conf, "w") as f:
        f.write(f"port {port}\nbind 127.0.0.1\nsave \"\"\nappendonly no\ndir {workdir}\ndbfilename dump-{port}.rdb\n")
        if replicaof:
            f.write(f"replicaof 127.0.0.1 {replicaof}\n")
    if kind == "clone":
        argv = ["dotnet", os.path.join(build_dir, "RedisClone.dll"), conf]
    else:
        argv = ["redis-server", conf]
    return Proc(argv, port, workdir)


def sentinel(port, master_port, workdir, down_after):
    conf = os.path.join(workdir, f"sentinel-{port}.conf")
    with open(conf, "w") as f:
        f.write(f"port {port}\nbind 127.0.0.1\ndir {workdir}\n"
                f"sentinel monitor g 127.0.0.1 {master_port} 2\n"
                f"sentinel down-after-milliseconds g {down_after}\n"
                f"sentinel failover-timeout g 20000\nsentinel parallel-syncs g 1\n")
    return Proc(["redis-sentinel", conf], port, workdir)


def info(port, section):
    text = call(port, "INFO", section, timeout=5).decode()
    return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)


def wait_for(what, check, timeout):
    end = time.time() + timeout
    while time.time() < end:
        try:
            if check():
                return
        except (OSError, ValueError, RuntimeError):  # a reply not yet what the check parses
            pass
        time.sleep(0.05)
    raise RuntimeError(f"timed out waiting for {what}")


def master_of(sentinels):
    for s in sentinels:
        try:
            with connect(s.port, 2) as c, c.makefile("rb") as f:
                c.sendall(command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "g"))
                if f.readline().startswith(b"*2"):
                    read_reply(c, f)
                    return int(read_reply(c, f))
        except (OSError, RuntimeError, ValueError):
            continue
    return None


class Writer(threading.Thread):
    """SET w:<n> n, then WAIT 1 100; acknowledged keys are those WAIT answered 1 for."""

    def __init__(self, locate):
        super().__init__(daemon=True)
        self.locate, self.acked, self.stop, self.n = locate, [], False, 0
        self.kill_time, self.recovered = None, None
        self.lock = threading.Lock()

    def run(self):
        conn = None
        while not self.stop:
            try:
                if conn is None:
                    port = self.locate()
                    if port is None:
                        time.sleep(0.02)
                        continue
                    s = connect(port, 2)
                    conn = (s, s.makefile("rb"), port)
                s, f, port = conn
                self.n += 1
                key = f"w:{self.n}"
                s.sendall(command("SET", key, self.n) + command("WAIT", 1, 100))
                read_reply(s, f)
                with self.lock:
                    # The first successful write (its SET's reply), before its WAIT.
                    if self.kill_time is not None and self.recovered is None and port != self.killed_port:
                        self.recovered = time.time() - self.kill_time
                acked = int(read_reply(s, f)) >= 1
                with self.lock:
                    if acked:
                        self.acked.append(key)
            except (OSError, RuntimeError, ValueError):
                if conn:
                    conn[0].close()
                conn = None
                time.sleep(0.02)


def round_(kind, build_dir, args, rnd):
    workdir = tempfile.mkdtemp(prefix=f"failover-{kind}-")
    ports = [free_port() for _ in range(3)]
    nodes, sentinels = [], []
    try:
        nodes.append(server(kind, build_dir, ports[0], workdir))
        for p in ports[1:]:
            nodes.append(server(kind, build_dir, p, workdir, replicaof=ports[0]))
        for p in ports[1:]:
            wait_for("replica link", lambda p=p: info(p, "replication").get("master_link_status") == "up", 60)
        if args.mode == "sentinel":
            for _ in range(3):
                sentinels.append(sentinel(free_port(), ports[0], workdir, args.down_after))
            wait_for("sentinels seeing both replicas and each other",
                     lambda: all(info(s.port, "sentinel").get("master0", "").endswith("slaves=2,sentinels=3") for s in sentinels), 60)
            locate = lambda: master_of(sentinels)
        else:
            current = {"port": ports[0]}
            locate = lambda: current["port"]
        writer = Writer(locate)
        writer.killed_port = ports[0]
        writer.start()
        time.sleep(random.uniform(1.0, 3.0))
        with writer.lock:
            writer.kill_time = time.time()
        nodes[0].kill()
        if args.mode == "manual":
            # As Sentinel does: promote the replica that processed the most of the stream (WAIT 1
            # promises that one replica has a write, not which one).
            # A replica applies what it received until it reads the end of the connection; REPLICAOF
            # NO ONE before that drops the rest (in Redis too), so wait until both saw the link go.
            for p in ports[1:]:
                wait_for("the replica seeing its master gone",
                         lambda p=p: info(p, "replication").get("master_link_status") == "down", 10)
            offsets = {p: int(info(p, "replication").get("slave_repl_offset", "0")) for p in ports[1:]}
            best = max(ports[1:], key=lambda p: offsets[p])
            other = ports[2] if best == ports[1] else ports[1]
            call(best, "REPLICAOF", "NO", "ONE")
            call(other, "REPLICAOF", "127.0.0.1", best)
            current["port"] = best
        wait_for("a write on the new master", lambda: writer.recovered is not None, 60)
        time.sleep(0.5)
        writer.stop = True
        writer.join(5)
        new_master = locate()
        missing = 0
        with connect(new_master, 10) as s, s.makefile("rb") as f:
            for key in writer.acked:
                s.sendall(command("EXISTS", key))
                if int(read_reply(s, f)) != 1:
                    missing += 1
        if missing and args.mode == "manual":
            print(f"  (the other replica, replica of the new master now, may have had them: promoted the one at offset "
                  f"{max(offsets.values())}, the other was at {min(offsets.values())})")
        rejoined = ""
        if args.mode == "sentinel":
            nodes[0].restart()
            t0 = time.time()
            try:
                wait_for("the old master rejoining as a replica",
                         lambda: info(ports[0], "replication").get("master_port") == str(new_master)
                         and info(ports[0], "replication").get("master_link_status") == "up", 90)
                rejoined = f", old master rejoined as a replica after {time.time() - t0:.1f} s"
            except RuntimeError:
                rejoined = ", old master NOT back as a replica within 90 s"
        print(f"  {kind} round {rnd}: first write on the new master {writer.recovered:.2f} s after the kill; "
              f"acknowledged {len(writer.acked)}, present {len(writer.acked) - missing}{rejoined}", flush=True)
        return writer.recovered, len(writer.acked), missing
    finally:
        for p in sentinels + nodes:
            p.kill()
        shutil.rmtree(workdir, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", choices=["sentinel", "manual"], default="sentinel")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--down-after", type=int, default=1000, help="sentinel down-after-milliseconds (default 1000)")
    ap.add_argument("--skip-build", action="store_true", help="reuse the last Release build")
    args = ap.parse_args()
    for tool in ("redis-server",) + (("redis-sentinel",) if args.mode == "sentinel" else ()):
        if not shutil.which(tool):
            sys.exit(f"{tool} is not installed (apt-get install -y redis-server redis-sentinel redis-tools)")
    build_dir = build_clone(args.skip_build)
    totals = {}
    for kind in ("clone", "redis"):
        runs = [round_(kind, build_dir, args, r + 1) for r in range(args.rounds)]
        totals[kind] = runs
        times = sorted(r[0] for r in runs)
        print(f"{kind}: median time to the first write {times[len(times) // 2]:.2f} s; acknowledged "
              f"{sum(r[1] for r in runs)}, lost {sum(r[2] for r in runs)} over {args.rounds} rounds", flush=True)
    c = sorted(r[0] for r in totals["clone"])[args.rounds // 2]
    r = sorted(r[0] for r in totals["redis"])[args.rounds // 2]
    print(f"ratio clone/redis of the median time to the first write: {c / r:.2f}x")


if __name__ == "__main__":
    main()
