'use strict';
// An agent's process under a hostile monitor: loads the bridge, calls onEvent every 20 ms for RUN_MS, and meanwhile
// measures its own event-loop lag (a 10 ms interval: how late each tick fires) and its memory. Prints one JSON line:
// {maxLagMs, rssGrowthMiB, stats, statuses}. Settings come from the environment (BRIDGE, URL, RUN_MS).
const env = process.env;
const { createBridge } = require(env.BRIDGE);

const statuses = [];
const bridge = createBridge(env.URL, { onStatus: (text) => statuses.push(text) });
const runMs = Number(env.RUN_MS || 5000);
const rss0 = process.memoryUsage().rss;
let rssMax = rss0;
let maxLag = 0;
let last = Date.now();
const tick = setInterval(() => {
  const now = Date.now();
  maxLag = Math.max(maxLag, now - last - 10);
  last = now;
  rssMax = Math.max(rssMax, process.memoryUsage().rss);
}, 10);
let n = 0;
const feed = setInterval(() => {
  n += 1;
  bridge.onEvent({ type: 'log', entry: { message: `event ${n}` } }, { sessionId: 's', n });
}, 20);
setTimeout(async () => {
  clearInterval(feed);
  const stats = await bridge.close({ timeoutMs: 1000 });
  clearInterval(tick);
  process.stdout.write(`${JSON.stringify({ maxLagMs: maxLag, rssGrowthMiB: (rssMax - rss0) / 1048576, sent: n, stats, statuses })}\n`);
}, runMs);
