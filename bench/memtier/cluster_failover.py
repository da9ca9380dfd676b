#!/usr/bin/env python3
"""Cluster failover side by side: 3 masters + 3 replicas in cluster mode, all RedisClone or all
redis-server, on loopback ports (127.0.0.1 only), every wait bounded.

The cluster is made with `redis-cli --cluster create ... --cluster-replicas 1` (cluster-node-timeout
--node-timeout). A writer (plain socket RESP, following MOVED; when the node it writes to does not
answer it asks another node, which redirects it) SETs distinct keys of one hash tag owned by one
master, one at a time. That master is SIGKILLed at a random moment; its replica is elected by the
other masters and takes the slots. Printed per round: the window in which writes to those slots
failed (the kill to the first write acknowledged after it; and the last write acknowledged before
the kill to the first after), how many writes were acknowledged, and how many of the acknowledged
ones the new master does not have (replication is asynchronous: a write acknowledged just before
the kill may not have reached the replica, in Redis as here).
"""
import argparse, os, random, shutil, signal, socket, statistics, subprocess, sys, tempfile, threading, time, traceback
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import build_clone  # noqa: E402
from rss import command  # noqa: E402
from failover import wait_for  # noqa: E402


def pick_ports(n, low, high):
    """n ports in [low, high) such that each port and its bus port (+10000) are free now."""
    ports = []
    for _ in range(2000):
        p = random.randrange(low, high)
        if p in ports:
            continue
        ok = True
        for q in (p, p + 10000):
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", q))
                except OSError:
                    ok = False
                    break
        if ok:
            ports.append(p)
            if len(ports) == n:
                return ports
    raise RuntimeError("no free port pairs")


def reply(sock, f):
    """One RESP2 reply: (kind, value) with kind '+', '-', ':', '$', '*'."""
    line = f.readline()
    if not line:
        raise OSError("connection closed")
    kind, rest = line[:1].decode(), line[1:].strip()
    if kind == "$":
        n = int(rest)
        return kind, None if n < 0 else f.read(n + 2)[:-2]
    if kind == "*":
        return kind, [reply(sock, f) for _ in range(int(rest))]
    return kind, rest.decode()


def call(port, *args, timeout=5):
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s, s.makefile("rb") as f:
        s.sendall(command(*args))
        return reply(s, f)


def text(port, *args):
    kind, value = call(port, *args)
    return value.decode() if isinstance(value, bytes) else str(value)


class Node:
    def __init__(self, kind, build_dir, port, workdir, timeout):
        self.port, self.workdir = port, workdir
        conf = os.path.join(workdir, f"node-{port}.conf")
        with open(conf, "w") as f:
            f.write(f"port {port}\nbind 127.0.0.1\nsave \"\"\nappendonly no\ndir {workdir}\n"
                    f"dbfilename dump-{port}.rdb\ncluster-enabled yes\ncluster-config-file nodes-{port}.conf\n"
                    f"cluster-node-timeout {timeout}\n")
        argv = ["dotnet", os.path.join(build_dir, "RedisClone.dll"), conf] if kind == "clone" else ["redis-server", conf]
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=workdir)
        wait_for(f"port {port}", lambda: call(port, "PING")[1] == "PONG", 60)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)


class Writer(threading.Thread):
    """SETs {tag}:n one at a time, following MOVED; records each acknowledged write's time."""

    def __init__(self, tag, ports, first):
        super().__init__(daemon=True)
        self.tag, self.ports, self.port = tag, ports, first
        self.stop, self.n, self.acked = False, 0, []  # acked: (time, key, port)
        self.dead = set()

    def run(self):
        conn = None
        pending = None
        while not self.stop:
            try:
                if conn is None:
                    s = socket.create_connection(("127.0.0.1", self.port), timeout=0.5)
                    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    conn = (s, s.makefile("rb"))
                s, f = conn
                if pending is None:
                    self.n += 1
                    pending = f"{{{self.tag}}}:{self.n}"
                s.sendall(command("SET", pending, self.n))
                kind, value = reply(s, f)
                if kind == "+":
                    self.acked.append((time.time(), pending, self.port))
                    pending = None
                elif kind == "-" and value.startswith("MOVED"):
                    self.port = int(value.rsplit(":", 1)[1])
                    s.close()
                    conn = None
                else:  # CLUSTERDOWN, TRYAGAIN...: again shortly
                    time.sleep(0.01)
            except OSError:
                if conn:
                    conn[0].close()
                conn = None
                # The node does not answer: ask another one (its MOVED names the slot's owner as it sees it).
                others = [p for p in self.ports if p != self.port and p not in self.dead]
                self.port = random.choice(others)
                time.sleep(0.01)


def round_(kind, build_dir, args, rnd):
    workdir = tempfile.mkdtemp(prefix=f"cluster-failover-{kind}-")
    ports = pick_ports(6, args.port_low, args.port_high)
    nodes = []
    writer = None
    try:
        for p in ports:
            nodes.append(Node(kind, build_dir, p, workdir, args.node_timeout))
        out = subprocess.run(["redis-cli", "--cluster", "create", *[f"127.0.0.1:{p}" for p in ports],
                              "--cluster-replicas", "1", "--cluster-yes"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=180)
        if out.returncode != 0:
            raise RuntimeError(out.stdout.decode())

        def formed():
            for p in ports:
                if "cluster_state:ok" not in text(p, "CLUSTER", "INFO"):
                    return False
                lines = text(p, "CLUSTER", "NODES").splitlines()
                if len(lines) != 6 or sum(" slave " in l or ",slave " in l for l in lines) != 3:
                    return False
                if any("fail" in l or "handshake" in l for l in lines):
                    return False
                info = text(p, "INFO", "replication")
                if "role:slave" in info and "master_link_status:up" not in info:
                    return False
            return True
        wait_for("the cluster", formed, 120)

        # The victim: the master of a hash tag; the writer's keys all go to its slots.
        tag = "bench"
        slot = int(call(ports[0], "CLUSTER", "KEYSLOT", tag)[1])
        victim = None
        for p in ports:
            myid = text(p, "CLUSTER", "MYID")
            for line in text(p, "CLUSTER", "NODES").splitlines():
                f = line.split()
                if f[0] == myid and "master" in f[2]:
                    for r in f[8:]:
                        lo, _, hi = r.partition("-")
                        if not r.startswith("[") and int(lo) <= slot <= int(hi or lo):
                            victim = p
        assert victim, "no master for the tag's slot"
        vnode = nodes[ports.index(victim)]

        writer = Writer(tag, ports, victim)
        writer.start()
        time.sleep(args.before + random.random())
        acked_before = len(writer.acked)
        kill_time = time.time()
        writer.dead.add(victim)
        vnode.kill()
        # (a write the victim acknowledged between kill_time and its death does not count as after it)
        wait_for("a write after the kill", lambda: writer.acked and writer.acked[-1][2] != victim, args.deadline)
        time.sleep(args.after)
        writer.stop = True
        writer.join(10)

        last_before = max((t for t, _, p in writer.acked if p == victim), default=kill_time)
        first_after = min(t for t, _, p in writer.acked if p != victim)
        # Every acknowledged key read back from the slot's owner now (one connection, MGET in batches: one slot).
        new_master = writer.acked[-1][2]
        missing = 0
        keys = [key for _, key, _ in writer.acked]
        with socket.create_connection(("127.0.0.1", new_master), timeout=10) as s, s.makefile("rb") as f:
            for i in range(0, len(keys), 500):
                s.sendall(command("MGET", *keys[i:i + 500]))
                answer, values = reply(s, f)
                assert answer == "*", values
                missing += sum(1 for _, v in values if v is None)
        result = dict(window=first_after - kill_time, gap=first_after - last_before, acked=len(writer.acked),
                      before=acked_before, missing=missing)
        print(f"  {kind} round {rnd}: writes failed for {result['window'] * 1000:.0f} ms after the kill "
              f"({result['gap'] * 1000:.0f} ms from the last write the old master acknowledged); "
              f"{result['acked']} writes acknowledged, {missing} of them missing on the new master", flush=True)
        return result
    finally:
        if writer:
            writer.stop = True
        for n in nodes:
            n.kill()
        shutil.rmtree(workdir, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--node-timeout", type=int, default=2000)
    ap.add_argument("--before", type=float, default=2.0, help="seconds of writes before the kill (plus up to 1 s at random)")
    ap.add_argument("--after", type=float, default=1.0, help="seconds of writes after the first one on the new master")
    ap.add_argument("--deadline", type=float, default=60.0, help="give up a round when no write succeeds this long after the kill")
    ap.add_argument("--port-low", type=int, default=41000)
    ap.add_argument("--port-high", type=int, default=45000)
    ap.add_argument("--skip-build", action="store_true")
    args = ap.parse_args()
    build_dir = build_clone(args.skip_build)
    results = {"clone": [], "redis": []}
    for rnd in range(args.rounds):
        for kind in ("clone", "redis"):
            try:
                results[kind].append(round_(kind, build_dir, args, rnd))
            except (RuntimeError, OSError, AssertionError, subprocess.TimeoutExpired) as e:
                print(f"  {kind} round {rnd}: failed: {e}", flush=True)
                traceback.print_exc()
    print(f"\nnode-timeout {args.node_timeout} ms, median of {args.rounds} rounds:")
    print(f"{'':34}{'RedisClone':>12}{'redis-server':>14}")
    for label, key, scale in (("writes failed after the kill (ms)", "window", 1000), ("gap between acked writes (ms)", "gap", 1000),
                              ("acked writes missing afterwards", "missing", 1)):
        row = []
        for kind in ("clone", "redis"):
            vals = [r[key] * scale for r in results[kind]]
            row.append(f"{statistics.median(vals):.0f}" if vals else "-")
        print(f"{label:34}{row[0]:>12}{row[1]:>14}")


if __name__ == "__main__":
    main()
