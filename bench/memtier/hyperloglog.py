#!/usr/bin/env python3
"""HyperLogLog throughput side by side: RedisClone vs Debian's redis-server on loopback ports.

Both servers get the same HLLs (two dense ones of 20,000 and 50,000 elements, a sparse one of 300);
then redis-benchmark sends, from one client, a bounded number of PFADD of random elements to a dense
HLL, PFCOUNT of one key (the cache refreshed after each PFADD round, then served from it), PFCOUNT of
three keys (a merge and a full estimate per call) and PFMERGE of them, alternating A/B. Prints ms per
call (from the request rate) and server CPU seconds per call, with the ratio RedisClone/redis.
"""
import os, socket, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402  (side_by_side, send)


def fill(port):
    with socket.create_connection(("127.0.0.1", port)) as s:
        for key, count in ((b"hll:d", 20000), (b"hll:d2", 50000), (b"hll:s", 300)):
            for start in range(0, count, 1000):
                compare.send(s, b"PFADD", key, *[b"%s:%d" % (key, i) for i in range(start, min(count, start + 1000))])


LOADS = [
    ("PFADD dense, random elements", ["-r", "100000000", "PFADD", "hll:d", "e:__rand_int__"]),
    ("PFCOUNT one key", ["PFCOUNT", "hll:d"]),
    ("PFCOUNT three keys", ["PFCOUNT", "hll:d", "hll:d2", "hll:s"]),
    ("PFMERGE three keys", ["PFMERGE", "hll:m", "hll:d", "hll:d2", "hll:s"]),
]


if __name__ == "__main__":
    compare.side_by_side(__doc__, LOADS, fill, default_calls=20000, warmup=2000, digits=4)
