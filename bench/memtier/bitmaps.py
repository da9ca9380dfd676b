#!/usr/bin/env python3
"""Bitmap throughput side by side: RedisClone vs Debian's redis-server on loopback ports.

Both servers get the same two 100 MB strings (random bytes, written in 1 MB SETRANGE pieces); then
redis-benchmark sends, from one client, a bounded number of BITCOUNT over the whole string, BITCOUNT
over a bit range, BITPOS for a bit that is not there (a full scan), and BITOP AND/XOR of the two
into a third key, alternating A/B. Prints ms per call (from the request rate) and server CPU
seconds per call, with the ratio RedisClone/redis: at 100 MB a call is a memory-speed scan, so the
ratio says how close each server's loop comes to the machine's bandwidth.
"""
import os, random, socket, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402  (side_by_side, send)

SIZE = 100 * 1024 * 1024
PIECE = 1024 * 1024

LOADS = [
    ("BITCOUNT whole", ["BITCOUNT", "bm:a"]),
    ("BITCOUNT bit range", ["BITCOUNT", "bm:a", "3", "838860000", "BIT"]),
    ("BITPOS absent bit", ["BITPOS", "bm:z", "1"]),  # a key of zero bytes only
    ("BITOP AND", ["BITOP", "AND", "bm:d", "bm:a", "bm:b"]),
    ("BITOP XOR", ["BITOP", "XOR", "bm:d", "bm:a", "bm:b"]),
]


def fill(port):
    rnd = random.Random(7)
    with socket.create_connection(("127.0.0.1", port)) as s:
        for key in (b"bm:a", b"bm:b"):
            for off in range(0, SIZE, PIECE):
                compare.send(s, b"SETRANGE", key, off, rnd.randbytes(PIECE))
        compare.send(s, b"SETRANGE", b"bm:z", SIZE - 1, b"\0")


if __name__ == "__main__":
    compare.side_by_side(__doc__, LOADS, fill, default_calls=40, warmup=5, digits=2)
