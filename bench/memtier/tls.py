#!/usr/bin/env python3
"""Throughput over TLS, side by side: RedisClone and redis-server (127.0.0.1 only), each with a
plain port and a tls-port, the same certificate (an ECDSA P-256 CA and server certificate made
with the openssl command in a fresh directory) and tls-auth-clients no.

redis-benchmark --tls --cacert runs SET and GET (-r 100000, -d 32) from --clients connections at
pipeline 1 and 16, --requests requests per run, alternating which server goes first (--rounds),
and the same on the plain ports for comparison. Prints the median requests per second of each
and the ratio RedisClone/redis-server, and for each server TLS/plain. Every run is bounded by its
request count. (RedisClone serves TLS through .NET's SslStream and Pipelines.Sockets.Unofficial's
stream pipes, not its epoll loops: see the README's TLS section.)
"""
import argparse, os, statistics, subprocess, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import Server, build_clone, free_port  # noqa: E402


def make_certificates(directory):
    """A CA and a server certificate for 127.0.0.1/localhost signed by it; returns (ca, cert, key) paths."""
    def openssl(*args):
        subprocess.run(["openssl", *args], check=True, cwd=directory, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    openssl("req", "-x509", "-new", "-nodes", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
            "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=bench CA")
    openssl("req", "-new", "-nodes", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
            "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost")
    with open(os.path.join(directory, "ext.cnf"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "server.crt", "-days", "2", "-extfile", "ext.cnf")
    return tuple(os.path.join(directory, n) for n in ("ca.crt", "server.crt", "server.key"))


def rps(port, test, clients, pipeline, n, cacert=None):
    cmd = ["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-t", test, "-r", "100000", "-d", "32",
           "-c", str(clients), "-n", str(n), "--csv"]
    if cacert:
        cmd += ["--tls", "--cacert", cacert]
    if pipeline > 1:
        cmd += ["-P", str(pipeline)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=900).stdout
    return float(out.strip().splitlines()[1].split(",")[1].strip('"'))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--requests", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--skip-build", action="store_true")
    args = ap.parse_args()
    build_dir = build_clone(args.skip_build)
    ca, cert, key = make_certificates(tempfile.mkdtemp(prefix="tls-bench-"))
    ports = {name: (free_port(), free_port()) for name in ("clone", "redis")}
    common = ["--bind", "127.0.0.1", "--save", "", "--tls-cert-file", cert, "--tls-key-file", key,
              "--tls-ca-cert-file", ca, "--tls-auth-clients", "no"]
    servers = {
        "clone": Server("clone", ["dotnet", os.path.join(build_dir, "RedisClone.dll"), "--port", str(ports["clone"][0]),
                                  "--tls-port", str(ports["clone"][1]), "--dir", tempfile.mkdtemp(prefix="tls-clone-")] + common,
                        ports["clone"][0]),
        "redis": Server("redis", ["redis-server", "--port", str(ports["redis"][0]), "--tls-port", str(ports["redis"][1]),
                                  "--dir", tempfile.mkdtemp(prefix="tls-redis-")] + common, ports["redis"][0]),
    }
    try:
        rps(ports["clone"][1], "set,get", args.clients, 1, 20_000, ca)  # warm-up (JIT)
        print(f"SET/GET of random keys (-d 32), {args.clients} clients, {args.requests} requests per run, "
              f"median of {args.rounds} rounds")
        print("| transport | test | pipeline | RedisClone req/s | redis-server req/s | RedisClone/redis |")
        print("|---|---|---|---|---|---|")
        results = {}
        for transport in ("tls", "plain"):
            for test in ("set", "get"):
                for pipeline in (1, 16):
                    res = {"clone": [], "redis": []}
                    for r in range(args.rounds):
                        for name in (("clone", "redis") if r % 2 == 0 else ("redis", "clone")):
                            port = ports[name][1] if transport == "tls" else ports[name][0]
                            res[name].append(rps(port, test, args.clients, pipeline, args.requests,
                                                 ca if transport == "tls" else None))
                    c, rd = statistics.median(res["clone"]), statistics.median(res["redis"])
                    results[(transport, test, pipeline)] = (c, rd)
                    print(f"| {transport} | {test.upper()} | {pipeline} | {c:,.0f} | {rd:,.0f} | {c / rd:.2f}x |", flush=True)
        print()
        print("| test | pipeline | RedisClone TLS/plain | redis-server TLS/plain |")
        print("|---|---|---|---|")
        for test in ("set", "get"):
            for pipeline in (1, 16):
                tc, tr = results[("tls", test, pipeline)]
                pc, pr = results[("plain", test, pipeline)]
                print(f"| {test.upper()} | {pipeline} | {tc / pc:.2f} | {tr / pr:.2f} |")
    finally:
        for server in servers.values():
            server.stop()


if __name__ == "__main__":
    main()
