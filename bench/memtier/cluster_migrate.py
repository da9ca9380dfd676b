#!/usr/bin/env python3
"""Live migration from a redis-server cluster to RedisClone nodes, under load (issue 28).

Three redis-server masters in cluster mode on loopback ports are created with redis-cli --cluster
create and loaded with --keys string keys (every tenth with a TTL). Three RedisClone nodes join with
add-node; while one client writes and reads under load (following -MOVED and -ASK, retrying
-TRYAGAIN and -CLUSTERDOWN only), every slot of each redis-server master is resharded onto one of
them with redis-cli --cluster reshard, then the redis-server nodes leave with del-node. Printed:
the duration of each phase, the key counts before and after, what the client did and every error
it could not retry, and whether every acknowledged value is there (values and TTLs checked).

--targets redis runs the same with redis-server nodes joining instead (the baseline).

127.0.0.1 only; every wait is bounded; every process started is stopped at the end.
"""
import argparse, os, random, shutil, socket, subprocess, sys, tempfile, threading, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import build_clone  # noqa: E402

# ---------------------------------------------------------------- the hash slot (CRC16/XMODEM, as Redis Cluster)

_TABLE = []
for _i in range(256):
    _c = _i << 8
    for _ in range(8):
        _c = ((_c << 1) ^ 0x1021) if _c & 0x8000 else (_c << 1)
    _TABLE.append(_c & 0xFFFF)


def key_slot(key: bytes) -> int:
    s = key.find(b"{")
    if s >= 0:
        e = key.find(b"}", s + 1)
        if e > s + 1:
            key = key[s + 1:e]
    crc = 0
    for b in key:
        crc = ((crc << 8) & 0xFFFF) ^ _TABLE[((crc >> 8) ^ b) & 0xFF]
    return crc & 16383


# ---------------------------------------------------------------- RESP

def encode(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class Conn:
    def __init__(self, port, timeout=30):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.file = self.sock.makefile("rb")

    def reply(self):
        line = self.file.readline()
        if not line:
            raise ConnectionError("closed")
        t, rest = line[:1], line[1:-2]
        if t in (b"+", b"-", b":"):
            return (t, rest)
        if t == b"$":
            n = int(rest)
            if n < 0:
                return (b"$", None)
            data = self.file.read(n + 2)
            return (b"$", data[:-2])
        if t == b"*":
            n = int(rest)
            return (b"*", [self.reply() for _ in range(max(n, 0))])
        raise ConnectionError(f"unexpected reply {line!r}")

    def call(self, *args):
        self.sock.sendall(encode(*args))
        return self.reply()

    def pipeline(self, commands, batch=1000):
        replies = []
        for at in range(0, len(commands), batch):
            chunk = commands[at:at + batch]
            self.sock.sendall(b"".join(encode(*c) for c in chunk))
            replies.extend(self.reply() for _ in chunk)
        return replies

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def call(port, *args):
    c = Conn(port)
    try:
        return c.call(*args)
    finally:
        c.close()


def text(port, *args):
    t, v = call(port, *args)
    return v.decode() if isinstance(v, bytes) else str(v)


# ---------------------------------------------------------------- processes

def pick_port(used):
    """A port in 45000-48999 such that it and port + 10000 (the bus) are free now."""
    for _ in range(500):
        port = random.randint(45000, 48999)
        if port in used:
            continue
        ok = True
        for p in (port, port + 10000):
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", p))
                except OSError:
                    ok = False
        if ok:
            used.add(port)
            return port
    raise RuntimeError("no free port pair in 45000-48999")


class Node:
    def __init__(self, kind, build_dir, port, workdir, node_timeout):
        self.kind, self.port = kind, port
        self.dir = os.path.join(workdir, f"{kind}-{port}")
        os.makedirs(self.dir)
        common = ["--port", str(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                  "--cluster-node-timeout", str(node_timeout), "--save", "", "--appendonly", "no", "--dir", self.dir]
        if kind == "clone":
            argv = ["dotnet", os.path.join(build_dir, "RedisClone.dll")] + common
        else:
            argv = ["redis-server"] + common + ["--logfile", "redis.log"]
        self.proc = subprocess.Popen(argv, cwd=self.dir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        end = time.time() + 60
        while time.time() < end:
            try:
                if call(port, "PING") == (b"+", b"PONG"):
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError(f"{kind} on {port} exited")
            time.sleep(0.1)
        raise RuntimeError(f"{kind} on {port} not answering")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def cli(*args, timeout=3600, stdin=None):
    r = subprocess.run(["redis-cli"] + [str(a) for a in args], capture_output=True, text=True, timeout=timeout, input=stdin)
    if r.returncode != 0:
        tail = "\n".join(l for l in r.stdout.splitlines() if not l.startswith("Moving slot"))[-3000:]
        raise RuntimeError(f"redis-cli {' '.join(map(str, args))} exited {r.returncode}:\n{tail}\n{r.stderr}")
    return r.stdout


def wait_check(port, seconds=120):
    end = time.time() + seconds
    out = ""
    while time.time() < end:
        r = subprocess.run(["redis-cli", "--cluster", "check", f"127.0.0.1:{port}"], capture_output=True, text=True, timeout=120)
        out = r.stdout
        if r.returncode == 0 and "[OK] All nodes agree" in out and "[OK] All 16384 slots covered." in out and "[WARNING]" not in out and "[ERR]" not in out:
            # A master answers CLUSTERDOWN for 2 s after it starts (the writable delay): wait for every state ok.
            ports = [int(l.split(" ")[1].split("@")[0].rsplit(":", 1)[1]) for l in text(port, "CLUSTER", "NODES").splitlines() if l]
            if all("cluster_state:ok" in text(p, "CLUSTER", "INFO") for p in ports):
                return
        time.sleep(0.5)
    raise RuntimeError("cluster check did not pass:\n" + out[-3000:])


def wait_known(ports, count, seconds=120):
    end = time.time() + seconds
    while time.time() < end:
        ok = True
        for p in ports:
            lines = [l for l in text(p, "CLUSTER", "NODES").splitlines() if l]
            if len(lines) != count or any(w in l for l in lines for w in ("handshake", "fail", "disconnected")):
                ok = False
                break
        if ok:
            return
        time.sleep(0.2)
    raise RuntimeError(f"nodes {ports} did not all know {count} nodes")


def slot_owners(port):
    owners = [0] * 16384
    for line in text(port, "CLUSTER", "NODES").splitlines():
        f = line.split(" ")
        if len(f) < 8 or "master" not in f[2]:
            continue
        p = int(f[1].split("@")[0].rsplit(":", 1)[1])
        for r in f[8:]:
            if r.startswith("["):
                continue
            a, _, b = r.partition("-")
            for s in range(int(a), int(b or a) + 1):
                owners[s] = p
    return owners


# ---------------------------------------------------------------- the client under load

class Client:
    """Follows MOVED (remembered) and ASK (ASKING first), retries TRYAGAIN and CLUSTERDOWN; anything else is an error it cannot retry."""

    def __init__(self, seed_port):
        self.owners = slot_owners(seed_port)
        self.known = {seed_port} | {p for p in self.owners if p}
        self.conns = {}
        self.moved = self.asked = self.retried = 0
        self.errors = []

    def conn(self, port):
        c = self.conns.get(port)
        if c is None:
            c = self.conns[port] = Conn(port)
        return c

    def refresh(self, slot, down_port):
        for p in list(self.known):
            if p == down_port:
                continue
            try:
                owners = slot_owners(p)
            except (OSError, ConnectionError, ValueError, IndexError):
                continue
            if owners[slot]:
                self.owners = owners
                self.known |= {o for o in owners if o}
                return

    def run(self, key, *args):
        slot = key_slot(key)
        port, asking, down = self.owners[slot], False, 0
        for _ in range(1000):
            try:
                c = self.conn(port)
                if asking:
                    c.sock.sendall(encode("ASKING") + encode(*args))
                    c.reply()
                    t, v = c.reply()
                else:
                    t, v = c.call(*args)
            except (OSError, ConnectionError) as e:
                self.conns.pop(port, None)
                self.errors.append(f"{args[0]} {key!r} on {port}: {e}")
                return None
            asking = False
            if t == b"-":
                msg = v.decode()
                if msg.startswith("MOVED "):
                    self.moved += 1
                    port = int(msg.split()[2].rsplit(":", 1)[1])
                    self.owners[slot] = port
                    self.known.add(port)
                    continue
                if msg.startswith("ASK "):
                    self.asked += 1
                    port, asking = int(msg.split()[2].rsplit(":", 1)[1]), True
                    self.known.add(port)
                    continue
                if msg.startswith("TRYAGAIN") or msg.startswith("CLUSTERDOWN"):
                    self.retried += 1
                    down += 1
                    time.sleep(0.02)
                    # A node removed from the cluster (del-node resets it) says the cluster is down:
                    # as cluster clients do, ask the other nodes for the slot table.
                    if msg.startswith("CLUSTERDOWN") and down % 5 == 0:
                        self.refresh(slot, port)
                    port = self.owners[slot]
                    continue
                self.errors.append(f"{args[0]} {key!r} on {port}: -{msg}")
                return None
            return (t, v)
        self.errors.append(f"{args[0]} {key!r}: still redirected after 1000 attempts")
        return None


def key(i):
    return b"mig:%d" % i


def load(ports, n, acked):
    owners = slot_owners(ports[0])
    by_port = {}
    for i in range(n):
        by_port.setdefault(owners[key_slot(key(i))], []).append(i)
    for port, keys in by_port.items():
        c = Conn(port, timeout=120)
        cmds = [("SET", key(i), b"v%d:0" % i, "EX", "90000") if i % 10 == 0 else ("SET", key(i), b"v%d:0" % i) for i in keys]
        for r in c.pipeline(cmds):
            if r != (b"+", b"OK"):
                raise RuntimeError(f"load: {r}")
        c.close()
        for i in keys:
            acked[i] = b"v%d:0" % i


def verify(ports, n, acked):
    """Every key on its owner with its acknowledged value (and a TTL for every tenth); the mismatches (at most 20)."""
    owners = slot_owners(ports[0])
    by_port = {}
    for i in range(n):
        by_port.setdefault(owners[key_slot(key(i))], []).append(i)
    bad = []
    for port, keys in by_port.items():
        if port not in ports:
            bad.append(f"{len(keys)} keys in slots of {port}, not one of ours")
            continue
        c = Conn(port, timeout=120)
        values = c.pipeline([("GET", key(i)) for i in keys])
        ttls = c.pipeline([("TTL", key(i)) for i in keys])
        c.close()
        for i, (t, v), (_, ttl) in zip(keys, values, ttls):
            if v != acked[i] and len(bad) < 20:
                bad.append(f"{key(i).decode()}: {v!r} instead of {acked[i]!r}")
            if i % 10 == 0 and int(ttl) <= 0 and len(bad) < 20:
                bad.append(f"{key(i).decode()}: TTL {int(ttl)}")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--keys", type=int, default=200_000)
    ap.add_argument("--pipeline", type=int, default=100, help="redis-cli --cluster-pipeline")
    ap.add_argument("--node-timeout", type=int, default=5000)
    ap.add_argument("--skip-build", action="store_true", help="reuse the last Release build")
    ap.add_argument("--targets", choices=("clone", "redis"), default="clone",
                    help="what joins and takes the slots: RedisClone nodes, or redis-server ones (the same run as a baseline)")
    args = ap.parse_args()
    for tool in ("redis-server", "redis-cli"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is missing")
    build_dir = build_clone(args.skip_build) if args.targets == "clone" else None
    workdir = tempfile.mkdtemp(prefix="cluster-migrate-")
    used, nodes = set(), []
    stop = threading.Event()
    try:
        theirs = [Node("redis", build_dir, pick_port(used), workdir, args.node_timeout) for _ in range(3)]
        nodes += theirs
        tp = [n.port for n in theirs]
        cli("--cluster", "create", *[f"127.0.0.1:{p}" for p in tp], "--cluster-yes", timeout=120)
        wait_check(tp[0])
        acked = [None] * args.keys
        t0 = time.time()
        load(tp, args.keys, acked)
        before = sum(int(text(p, "DBSIZE")) for p in tp)
        print(f"loaded {args.keys} keys into 3 redis-server masters in {time.time() - t0:.1f} s; DBSIZE sum {before}", flush=True)

        ours = [Node(args.targets, build_dir, pick_port(used), workdir, args.node_timeout) for _ in range(3)]
        nodes += ours
        op = [n.port for n in ours]

        client = Client(tp[0])
        counts = {"writes": 0, "reads": 0, "stale": 0}
        stale = []

        def under_load():
            rnd, seq = random.Random(28), 0
            while not stop.is_set() and not client.errors:
                i = rnd.randrange(args.keys)
                if rnd.random() < 0.5:
                    seq += 1
                    v = b"v%d:%d" % (i, seq)
                    cmd = ("SET", key(i), v, "EX", "90000") if i % 10 == 0 else ("SET", key(i), v)
                    if client.run(key(i), *cmd) == (b"+", b"OK"):
                        acked[i] = v
                        counts["writes"] += 1
                else:
                    r = client.run(key(i), "GET", key(i))
                    counts["reads"] += 1
                    if r is not None and r[1] != acked[i]:
                        counts["stale"] += 1
                        if len(stale) < 20:
                            stale.append(f"{key(i).decode()}: {r[1]!r} instead of {acked[i]!r}")

        worker = threading.Thread(target=under_load, daemon=True)
        worker.start()
        t_start = time.time()
        for k, p in enumerate(op):
            # add-node checks the cluster first and stops while the nodes do not agree yet: one at a time.
            cli("--cluster", "add-node", f"127.0.0.1:{p}", f"127.0.0.1:{tp[0]}", timeout=120)
            wait_known(tp + op[:k + 1], 4 + k)
            wait_check(p)
        t_joined = time.time()
        print(f"3 {'RedisClone' if args.targets == 'clone' else 'redis-server'} nodes joined in {t_joined - t_start:.1f} s", flush=True)
        for their, our in zip(tp, op):
            t = time.time()
            src, dst = text(their, "CLUSTER", "MYID"), text(our, "CLUSTER", "MYID")
            slots = sum(1 for o in slot_owners(op[0]) if o == their)
            cli("--cluster", "reshard", f"127.0.0.1:{op[0]}", "--cluster-from", src, "--cluster-to", dst, "--cluster-slots", slots,
                "--cluster-yes", "--cluster-pipeline", args.pipeline, timeout=3600)
            wait_check(op[0])
            print(f"resharded {slots} slots {their} -> {our} in {time.time() - t:.1f} s "
                  f"(client so far: {counts['writes']} writes, {counts['reads']} reads, {len(client.errors)} errors)", flush=True)
        t_moved = time.time()
        for p in tp:
            cli("--cluster", "del-node", f"127.0.0.1:{op[0]}", text(p, "CLUSTER", "MYID"), timeout=120)
        wait_known(op, 3)
        wait_check(op[0])
        t_done = time.time()
        print(f"redis-server nodes removed in {t_done - t_moved:.1f} s", flush=True)
        w = counts["writes"]
        end = time.time() + 30
        while counts["writes"] < w + 1000 and time.time() < end and worker.is_alive():
            time.sleep(0.1)
        stop.set()
        worker.join(60)

        after = sum(int(text(p, "DBSIZE")) for p in op)
        bad = verify(op, args.keys, acked)
        print(f"migration (join, reshard, remove) took {t_done - t_start:.1f} s; slots moved in {t_moved - t_joined:.1f} s")
        print(f"keys before {before}, after {after} (on the 3 new masters: {args.targets}), acknowledged keys {sum(1 for a in acked if a is not None)}")
        print(f"client: {counts['writes']} writes, {counts['reads']} reads, {client.moved} MOVED, {client.asked} ASK, "
              f"{client.retried} TRYAGAIN/CLUSTERDOWN retried, {len(client.errors)} errors it could not retry, {counts['stale']} stale reads")
        for e in client.errors[:20]:
            print("  error:", e)
        for s in stale:
            print("  stale read:", s)
        print(f"verification: {'every key present with its last acknowledged value' if not bad else f'{len(bad)} problems'}")
        for b in bad:
            print("  ", b)
        return 0 if not bad and not client.errors and not counts["stale"] and after == args.keys else 1
    finally:
        stop.set()
        for n in nodes:
            n.stop()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
