'use strict';
// Plays ai-agent's side of the bridge: loads the bridge (require, or import() when IMPORT=esm), puts its onEvent in
// the agent's callbacks, and calls callbacks.onEvent(event, meta) for each line of EVENTS ({"event", "meta"}), PACE_MS
// apart (waiting before line HOLD_AT until HOLD_FILE exists); then awaits bridge.close() and prints the bridge's
// stats as JSON. Settings come from the environment.
const fs = require('node:fs');
const { pathToFileURL } = require('node:url');

const env = process.env;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  const mod = env.IMPORT === 'esm' ? await import(pathToFileURL(env.BRIDGE).href) : require(env.BRIDGE);
  const options = { onStatus: (text) => process.stderr.write(`bridge: ${text}\n`) };
  if (env.MAXBUF) options.maxBuffered = Number(env.MAXBUF);
  const bridge = mod.createBridge(env.URL, options);
  const callbacks = { onEvent: bridge.onEvent };
  const lines = fs.readFileSync(env.EVENTS, 'utf8').split('\n').filter(Boolean);
  const pace = Number(env.PACE_MS || 0);
  const holdAt = Number(env.HOLD_AT || -1);
  for (const [i, line] of lines.entries()) {
    if (i === holdAt) { // the agent is busy elsewhere until the test creates HOLD_FILE
      while (!fs.existsSync(env.HOLD_FILE)) await sleep(20);
    }
    const { event, meta } = JSON.parse(line);
    callbacks.onEvent(event, meta);
    if (pace) await sleep(pace);
  }
  const cycle = { type: 'log' };
  cycle.entry = cycle;
  callbacks.onEvent(cycle, {}); // cannot be serialized: dropped and counted, never thrown
  const stats = await bridge.close({ timeoutMs: Number(env.CLOSE_MS || 2000) });
  process.stdout.write(`${JSON.stringify(stats)}\n`);
}

main();
