// ioredis's Cluster against a running cluster of three masters whose client ports are given as
// arguments. Run by tests/Integration/Cluster/ClusterClientTests.cs; prints "OK" at the end and
// exits non-zero (with the failed check) otherwise. Every wait is bounded.
"use strict";
const assert = require("assert");
const { Cluster, Redis } = require("ioredis");

const ports = process.argv.slice(2).map(Number);
const admin = (port) => new Redis({ host: "127.0.0.1", port, lazyConnect: false, maxRetriesPerRequest: 1 });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function ownerOf(slot, admins) {
  for (const a of admins) {
    const nodes = await a.cluster("NODES");
    const me = nodes.split("\n").find((l) => l.includes("myself"));
    const ranges = me.split(" ").slice(8);
    if (ranges.some((r) => { const [lo, hi] = r.split("-").map(Number); return slot >= lo && slot <= (hi ?? lo); })) return a;
  }
  throw new Error("no owner of slot " + slot);
}

async function main() {
  const cluster = new Cluster(ports.map((port) => ({ host: "127.0.0.1", port })), {
    shardedSubscribers: true,
    redisOptions: { maxRetriesPerRequest: 3 },
    clusterRetryStrategy: (times) => (times > 20 ? null : 100),
  });
  const admins = ports.map(admin);
  try {
    // Reads and writes across all slots (2,000 keys cover every node).
    for (let i = 0; i < 2000; i++) await cluster.set(`k:${i}`, String(i));
    for (let i = 0; i < 2000; i++) assert.strictEqual(await cluster.get(`k:${i}`), String(i));
    for (const a of admins) assert.ok((await a.dbsize()) > 0, "a node got no keys");

    // Multi-key commands with a hash tag; CROSSSLOT from the server for keys of two slots.
    await cluster.mset("{user1}:a", "1", "{user1}:b", "2");
    assert.deepStrictEqual(await cluster.mget("{user1}:a", "{user1}:b", "{user1}:c"), ["1", "2", null]);
    assert.strictEqual(await cluster.del("{user1}:a", "{user1}:b"), 2);
    await assert.rejects(cluster.mset("a", "1", "b", "2"), /CROSSSLOT Keys in request don't hash to the same slot/);

    // A pipeline and a transaction on one slot.
    const p = await cluster.pipeline().set("{p}1", "x").incr("{p}n").incr("{p}n").get("{p}1").exec();
    assert.deepStrictEqual(p.map(([e, v]) => { assert.strictEqual(e, null); return v; }), ["OK", 1, 2, "x"]);
    const t = await cluster.multi().set("{t}1", "y").get("{t}1").exec();
    assert.deepStrictEqual(t.map(([, v]) => v), ["OK", "y"]);

    // Sharded pub/sub: SSUBSCRIBE on the slot's owner, SPUBLISH routed there.
    const got = new Promise((resolve) => cluster.on("smessage", (ch, msg) => resolve([ch, msg])));
    await cluster.ssubscribe("{news}ch");
    let n = 0;
    for (let i = 0; i < 50 && n === 0; i++) { n = await cluster.spublish("{news}ch", "hello"); if (n === 0) await sleep(100); }
    assert.strictEqual(n, 1);
    const msg = await Promise.race([got, sleep(10000).then(() => null)]);
    assert.deepStrictEqual(msg, ["{news}ch", "hello"]);
    await cluster.sunsubscribe("{news}ch");

    // A slot moved by hand (SETSLOT and MIGRATE): ASK while it moves, MOVED after.
    const slot = Number(await admins[0].cluster("KEYSLOT", "foo"));
    const src = await ownerOf(slot, admins);
    const dst = admins.find((a) => a !== src);
    const srcId = await src.cluster("MYID"), dstId = await dst.cluster("MYID");
    await cluster.set("foo", "bar");
    await cluster.set("{foo}2", "baz");
    assert.strictEqual(await dst.cluster("SETSLOT", slot, "IMPORTING", srcId), "OK");
    assert.strictEqual(await src.cluster("SETSLOT", slot, "MIGRATING", dstId), "OK");
    assert.strictEqual(await src.migrate("127.0.0.1", dst.options.port, "", 0, 5000, "KEYS", "{foo}2"), "OK");
    // {foo}2 is on the target now: the source answers ASK, the client asks there.
    assert.strictEqual(await cluster.get("{foo}2"), "baz");
    await cluster.set("{foo}new", "n"); // missing here: written on the target by ASK
    assert.strictEqual(await dst.call("ASKING").then(() => dst.get("{foo}new")), "n");
    assert.strictEqual(await cluster.get("foo"), "bar"); // still on the source
    assert.strictEqual(await src.migrate("127.0.0.1", dst.options.port, "", 0, 5000, "KEYS", "foo"), "OK");
    for (const a of admins) assert.strictEqual(await a.cluster("SETSLOT", slot, "NODE", dstId), "OK");
    // The client still sends to the source: MOVED, followed, then its map is refreshed.
    assert.strictEqual(await cluster.get("foo"), "bar");
    assert.strictEqual(await cluster.get("{foo}new"), "n");
    assert.strictEqual(Number(await dst.cluster("COUNTKEYSINSLOT", slot)), 3);
    assert.strictEqual(Number(await src.cluster("COUNTKEYSINSLOT", slot)), 0);
    console.log("OK");
  } finally {
    cluster.disconnect();
    admins.forEach((a) => a.disconnect());
  }
}

const timer = setTimeout(() => { console.error("timed out"); process.exit(3); }, 60000);
main().then(() => { clearTimeout(timer); process.exit(0); }, (e) => { console.error(e && e.stack || e); process.exit(1); });
