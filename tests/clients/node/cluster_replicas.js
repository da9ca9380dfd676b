// ioredis's Cluster with scaleReads "slave" against three masters and three replicas (client ports
// as arguments: the masters first): reads go to the replicas (after READONLY) and see what was
// written on the masters. Prints "OK" at the end.
"use strict";
const assert = require("assert");
const { Cluster, Redis } = require("ioredis");

const ports = process.argv.slice(2).map(Number);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const cluster = new Cluster([{ host: "127.0.0.1", port: ports[0] }], { scaleReads: "slave" });
  const admins = ports.map((port) => new Redis({ host: "127.0.0.1", port }));
  try {
    for (let i = 0; i < 300; i++) await cluster.set(`r:${i}`, String(i));
    const deadline = Date.now() + 30000;
    for (;;) {
      const sizes = await Promise.all(admins.slice(3).map((a) => a.dbsize()));
      if (sizes.reduce((a, b) => a + b, 0) >= 300) break;
      assert.ok(Date.now() < deadline, "replicas did not get the keys: " + sizes);
      await sleep(100);
    }
    for (let i = 0; i < 300; i++) assert.strictEqual(await cluster.get(`r:${i}`), String(i));
    const stats = await Promise.all(admins.slice(3).map((a) => a.info("commandstats")));
    assert.ok(stats.every((s) => /cmdstat_readonly:calls=[1-9]/.test(s)), stats.join("\n"));
    assert.ok(stats.some((s) => /cmdstat_get:calls=[1-9]/.test(s)), stats.join("\n"));
    console.log("OK");
  } finally {
    cluster.disconnect();
    admins.forEach((a) => a.disconnect());
  }
}

const timer = setTimeout(() => { console.error("timed out"); process.exit(3); }, 60000);
main().then(() => { clearTimeout(timer); process.exit(0); }, (e) => { console.error(e && e.stack || e); process.exit(1); });
