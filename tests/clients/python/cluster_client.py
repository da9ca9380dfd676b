"""redis-py's RedisCluster against a running cluster of three masters whose client ports are given
as arguments. Run by tests/Integration/Cluster/ClusterClientTests.cs with Debian's python3-redis;
prints "OK" at the end and exits non-zero (with the failed check) otherwise."""
import sys
import time

import redis
from redis.cluster import ClusterNode, RedisCluster
from redis.exceptions import ResponseError

ports = [int(p) for p in sys.argv[1:]]
admins = [redis.Redis(host="127.0.0.1", port=p, decode_responses=True, socket_timeout=10) for p in ports]
rc = RedisCluster(startup_nodes=[ClusterNode("127.0.0.1", p) for p in ports], decode_responses=True, socket_timeout=10)


def admin_of(key):
    """The plain connection to the node the client maps the key's slot to."""
    return admins[ports.index(rc.get_node_from_key(key).port)]


# Reads and writes across all slots (2,000 keys cover every node).
for i in range(2000):
    rc.set(f"k:{i}", i)
for i in range(2000):
    assert rc.get(f"k:{i}") == str(i), i
assert all(a.dbsize() > 0 for a in admins), "a node got no keys"

# Multi-key commands with a hash tag; the server's CROSSSLOT for keys of two slots.
assert rc.mset({"{user1}:a": "1", "{user1}:b": "2"})
assert rc.mget("{user1}:a", "{user1}:b", "{user1}:c") == ["1", "2", None]
assert rc.delete("{user1}:a", "{user1}:b") == 2
try:
    rc.execute_command("MSET", "a", "1", "b", "2", target_nodes=rc.get_primaries()[0])
    raise AssertionError("MSET across slots was accepted")
except ResponseError as e:
    assert str(e) == "Keys in request don't hash to the same slot", str(e)

# A pipeline (grouped per node) and a transaction on one slot (redis-py 4.3's cluster pipeline has
# no MULTI: the transaction goes to the slot's node).
pipe = rc.pipeline()
pipe.set("{p}1", "x").incr("{p}n").incr("{p}n").get("{p}1").set("k:1", "one").get("k:1")
assert pipe.execute() == [True, 1, 2, "x", True, "one"]
node = rc.get_node_from_key("{t}1").redis_connection
with node.pipeline(transaction=True) as tx:
    assert tx.set("{t}1", "y").get("{t}1").execute() == [True, "y"]

# Sharded pub/sub: redis-py 4.3 knows neither SSUBSCRIBE nor SPUBLISH's key: SPUBLISH sent to the
# node the client maps the channel's slot to is served there (0 receivers, no redirection).
assert rc.execute_command("SPUBLISH", "{news}ch", "hello", target_nodes=rc.get_node_from_key("{news}ch")) == 0

# A slot moved by hand (SETSLOT and MIGRATE): ASK while it moves, MOVED after.
slot = rc.keyslot("foo")
src = admin_of("foo")
dst = next(a for a in admins if a is not src)
src_id, dst_id = src.execute_command("CLUSTER MYID"), dst.execute_command("CLUSTER MYID")
dst_port = dst.connection_pool.connection_kwargs["port"]
rc.set("foo", "bar")
rc.set("{foo}2", "baz")
assert dst.execute_command("CLUSTER SETSLOT", slot, "IMPORTING", src_id)
assert src.execute_command("CLUSTER SETSLOT", slot, "MIGRATING", dst_id)
assert src.execute_command("MIGRATE", "127.0.0.1", dst_port, "", 0, 5000, "KEYS", "{foo}2")
assert rc.get("{foo}2") == "baz"  # ASK from the source, asked on the target
rc.set("{foo}new", "n")  # missing on the source: written on the target by ASK
assert rc.get("foo") == "bar"  # still on the source
assert src.execute_command("MIGRATE", "127.0.0.1", dst_port, "", 0, 5000, "KEYS", "foo")
for a in admins:
    assert a.execute_command("CLUSTER SETSLOT", slot, "NODE", dst_id)
assert rc.get("foo") == "bar"  # MOVED from the source, followed
assert rc.get("{foo}new") == "n"
assert dst.execute_command("CLUSTER COUNTKEYSINSLOT", slot) == 3
assert src.execute_command("CLUSTER COUNTKEYSINSLOT", slot) == 0
rc.close()
print("OK")
