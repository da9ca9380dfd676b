"""redis-py's RedisCluster with read_from_replicas against three masters and three replicas (client
ports as arguments: the masters first). Reads go to replicas too (after READONLY) and see what was
written on the masters. Prints "OK" at the end."""
import sys
import time

import redis
from redis.cluster import ClusterNode, RedisCluster

ports = [int(p) for p in sys.argv[1:]]
admins = [redis.Redis(host="127.0.0.1", port=p, decode_responses=True, socket_timeout=10) for p in ports]
rc = RedisCluster(startup_nodes=[ClusterNode("127.0.0.1", ports[0])], decode_responses=True,
                  read_from_replicas=True, socket_timeout=10)
assert len(rc.get_replicas()) == 3, rc.get_nodes()
for i in range(300):
    rc.set(f"r:{i}", i)
deadline = time.time() + 30
while sum(a.dbsize() for a in admins[3:]) < 300:
    assert time.time() < deadline, [a.dbsize() for a in admins]
    time.sleep(0.1)
for _ in range(2):
    for i in range(300):
        assert rc.get(f"r:{i}") == str(i), i
stats = [a.info("commandstats") for a in admins[3:]]
assert all(s.get("cmdstat_readonly", {}).get("calls", 0) > 0 for s in stats), stats
assert sum(s.get("cmdstat_get", {}).get("calls", 0) for s in stats) > 0, stats
rc.close()
print("OK")
