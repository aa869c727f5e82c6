'use strict';
/*
 * aiagent-monitor bridge: forwards ai-agent's `onEvent(event, meta)` callback to a running aiagent-monitor.
 *
 *   const { createBridge } = require('/path/to/aiagent-monitor-bridge.cjs');      // CommonJS
 *   import { createBridge } from '/path/to/aiagent-monitor-bridge.cjs';           // ES modules
 *   const bridge = createBridge('unix:/tmp/aiagent.sock');   // or 'ws://127.0.0.1:8765', or $AIAGENT_MONITOR_URL
 *   callbacks: { onEvent: bridge.onEvent }                   // in the agent's options
 *   await bridge.close();                                    // optional, at the end: sends what is still buffered
 *
 * Why a file and not three lines: a bare socket kills the agent (an 'error' event with no handler when no monitor
 * listens), loses everything sent before it connects, and never comes back after the monitor restarts. This one:
 *  - never throws into the agent and never keeps its process alive (timers and sockets are unref'd);
 *  - buffers up to `maxBuffered` events (10,000) and `maxBufferedBytes` (64 MiB) while not connected, dropping the
 *    oldest past that, and counts every dropped event; the monitor is told the count with a control event
 *    {"type":"bridge","dropped":N} (N dropped since the last report) and shows "N dropped by bridge";
 *  - reconnects with backoff, 0.25 s doubling to 10 s, after a failure or when the monitor goes away;
 *  - trusts nothing the other end sends: a WebSocket handshake unanswered for 5 s (HANDSHAKE_TIMEOUT_MS) is given
 *    up, a frame announced bigger than 64 KiB (MAX_INCOMING_BYTES: a monitor sends only pings and closes) or more
 *    than 64 KiB sent on a Unix socket (where a monitor sends nothing) drops the connection at once, so a hostile
 *    peer can neither hold the events back nor make the agent's event loop buffer and copy what it sends.
 * Wire format (the monitor's): one JSON object per event, {...event, meta}; over a Unix socket one per line,
 * over a WebSocket one text message each. Node built-ins only (net, http, https, crypto): the WebSocket client
 * below speaks just what a producer needs (masked text frames out; ping, close in), so Node 18+ will do.
 */

const net = require('node:net');
const http = require('node:http');
const https = require('node:https');
const crypto = require('node:crypto');

const MAX_BUFFERED = 10000;
const MAX_BUFFERED_BYTES = 64 * 1024 * 1024;
const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 10000;
const HANDSHAKE_TIMEOUT_MS = 5000;
const MAX_INCOMING_BYTES = 64 * 1024;
const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const SOURCE = 'aiagent-monitor-bridge';

function noop() {}

/* A queue of serialized events with O(1) push and shift (an array with a moving head, compacted now and then). */
class Queue {
  constructor() { this.items = []; this.head = 0; this.bytes = 0; }
  get length() { return this.items.length - this.head; }
  push(line) { this.items.push(line); this.bytes += line.length; }
  shift() {
    const line = this.items[this.head];
    this.items[this.head] = undefined;
    this.head += 1;
    this.bytes -= line.length;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return line;
  }
}

/* One Unix socket connection: write(line) sends a line; onOpen/onClose are called once each at most, onDrain when
 * the socket's write buffer has emptied (what waited for it can go). */
function openUnix(path, onOpen, onClose, onDrain) {
  const socket = net.createConnection({ path });
  let open = false;
  let closed = false;
  const finish = (why) => {
    if (closed) return;
    closed = true;
    onClose(why);
  };
  socket.on('connect', () => { open = true; socket.unref(); onOpen(); });
  socket.on('error', (err) => { finish(err && err.code ? err.code : String(err)); socket.destroy(); });
  socket.on('close', () => finish('closed'));
  let incoming = 0;
  socket.on('data', (chunk) => { // a listener never answers: a peer that talks is not one
    incoming += chunk.length;
    if (incoming > MAX_INCOMING_BYTES) { finish('the peer sends data (not a monitor)'); socket.destroy(); }
  });
  socket.on('drain', onDrain);
  return {
    write(line) { socket.write(line + '\n'); },
    backlog() { return socket.writableLength; },
    isOpen() { return open && !closed; },
    end(done) { socket.end(done); },
    destroy() { socket.destroy(); },
  };
}

/* A masked frame from a client (RFC 6455 5.2-5.3). */
function frame(opcode, payload) {
  const length = payload.length;
  let header;
  if (length < 126) {
    header = Buffer.alloc(2);
    header[1] = 0x80 | length;
  } else if (length < 65536) {
    header = Buffer.alloc(4);
    header[1] = 0x80 | 126;
    header.writeUInt16BE(length, 2);
  } else {
    header = Buffer.alloc(10);
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  header[0] = 0x80 | opcode;
  const mask = crypto.randomBytes(4);
  const masked = Buffer.allocUnsafe(length);
  for (let i = 0; i < length; i += 1) masked[i] = payload[i] ^ mask[i & 3];
  return Buffer.concat([header, mask, masked]);
}

/* One WebSocket connection (ws:// or wss://): the handshake, text frames out, pings answered, close honoured. */
function openWs(url, token, onOpen, onClose, onDrain) {
  const target = new URL(url);
  const key = crypto.randomBytes(16).toString('base64');
  const headers = {
    Connection: 'Upgrade',
    Upgrade: 'websocket',
    'Sec-WebSocket-Version': '13',
    'Sec-WebSocket-Key': key,
  };
  if (token) headers.Authorization = `Bearer ${token}`;
  const client = target.protocol === 'wss:' ? https : http;
  let socket = null;
  let open = false;
  let closed = false;
  let request = null;
  const handshake = setTimeout(() => { // connecting and the handshake, in all
    finish(`handshake timed out (${HANDSHAKE_TIMEOUT_MS / 1000} s)`);
    request.destroy();
  }, HANDSHAKE_TIMEOUT_MS);
  if (handshake.unref) handshake.unref();
  const finish = (why) => {
    clearTimeout(handshake);
    if (closed) return;
    closed = true;
    if (socket) socket.destroy();
    onClose(why);
  };
  request = client.request({
    hostname: target.hostname.replace(/^\[|\]$/g, ''),
    port: target.port || (target.protocol === 'wss:' ? 443 : 80),
    path: `${target.pathname || '/'}${target.search}`,
    headers,
  });
  request.on('error', (err) => finish(err && err.code ? err.code : String(err)));
  request.on('response', (res) => {
    res.resume();
    finish(`HTTP ${res.statusCode}`); // 401 without the token, 403 for an Origin, ...
  });
  request.on('upgrade', (res, sock, head) => {
    clearTimeout(handshake);
    socket = sock;
    sock.on('error', (err) => finish(err && err.code ? err.code : String(err)));
    sock.on('close', () => finish('closed'));
    const expected = crypto.createHash('sha1').update(key + WS_GUID).digest('base64');
    if (res.headers['sec-websocket-accept'] !== expected) {
      finish('bad handshake');
      return;
    }
    let pending = head && head.length ? Buffer.from(head) : Buffer.alloc(0);
    const read = (chunk) => {
      if (closed) return;
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      for (;;) {
        if (pending.length < 2) return;
        const opcode = pending[0] & 0x0f;
        let length = pending[1] & 0x7f;
        let at = 2;
        if (length === 126) {
          if (pending.length < 4) return;
          length = pending.readUInt16BE(2);
          at = 4;
        } else if (length === 127) {
          if (pending.length < 10) return;
          length = Number(pending.readBigUInt64BE(2));
          at = 10;
        }
        if (length > MAX_INCOMING_BYTES) { // before its bytes are kept: a 2^62-byte frame is refused at its head
          finish(`frame too big (${length} bytes announced, at most ${MAX_INCOMING_BYTES})`);
          return;
        }
        if (pending[1] & 0x80) at += 4; // a server never masks; skip a key anyway
        if (pending.length < at + length) return;
        const payload = pending.subarray(at, at + length);
        pending = pending.subarray(at + length);
        if (opcode === 0x9) sock.write(frame(0xa, payload)); // ping -> pong
        else if (opcode === 0x8) { // close: answer and go
          sock.end(frame(0x8, payload.subarray(0, 2)));
          finish(`closed by the monitor${payload.length >= 2 ? ` (${payload.readUInt16BE(0)})` : ''}`);
          return;
        }
      }
    };
    sock.on('data', read);
    sock.on('drain', onDrain);
    open = true;
    sock.unref();
    onOpen();
    if (pending.length) read(Buffer.alloc(0));
  });
  request.end();
  return {
    write(line) { socket.write(frame(0x1, Buffer.from(line, 'utf8'))); },
    backlog() { return socket ? socket.writableLength : 0; },
    isOpen() { return open && !closed; },
    end(done) {
      if (!socket) { finish('closed'); done(); return; }
      socket.end(frame(0x8, Buffer.from([0x03, 0xe8])), done); // 1000: normal closure
    },
    destroy() { finish('closed'); request.destroy(); },
  };
}

/*
 * createBridge(url?, options?) -> { onEvent, close, stats }
 *   url: 'unix:/path', 'ws://host:port[/path]' or 'wss://...' (default $AIAGENT_MONITOR_URL)
 *   options.token: sent as Authorization: Bearer (default $AIAGENT_MONITOR_TOKEN; ws only)
 *   options.maxBuffered (10,000 events), options.maxBufferedBytes (64 MiB): what waits while not connected
 *   options.onStatus(text): told of connects, failures and drops (default: silent; console.error to see them)
 */
function createBridge(url, options) {
  const opts = options || {};
  const where = String(url || process.env.AIAGENT_MONITOR_URL || '');
  const token = opts.token !== undefined ? opts.token : process.env.AIAGENT_MONITOR_TOKEN;
  const maxBuffered = Number.isFinite(opts.maxBuffered) ? Math.max(0, opts.maxBuffered) : MAX_BUFFERED;
  const maxBytes = Number.isFinite(opts.maxBufferedBytes) ? Math.max(0, opts.maxBufferedBytes) : MAX_BUFFERED_BYTES;
  const onStatus = typeof opts.onStatus === 'function' ? opts.onStatus : noop;
  const queue = new Queue();
  const counts = { sent: 0, dropped: 0, connects: 0 };
  let unreported = 0; // dropped, not yet told to the monitor
  let transport = null;
  let delay = FIRST_DELAY_MS;
  let timer = null;
  let closing = false;
  let lastFailure = '';
  const valid = /^unix:./.test(where) || /^wss?:\/\/./.test(where);

  const status = (text) => { try { onStatus(text); } catch (_) { /* never into the agent */ } };

  const drop = (n) => {
    counts.dropped += n;
    unreported += n;
  };

  const report = () => { // the drops since the last report, before the next event
    if (unreported > 0) {
      transport.write(JSON.stringify({ type: 'bridge', dropped: unreported, meta: { source: SOURCE } }));
      unreported = 0;
    }
  };

  const send = (line) => {
    report();
    transport.write(line);
    counts.sent += 1;
  };

  const writable = () => transport !== null && transport.isOpen() && transport.backlog() < maxBytes;

  const flush = () => {
    while (queue.length > 0 && writable()) send(queue.shift());
  };

  const enqueue = (line) => {
    queue.push(line);
    while (queue.length > maxBuffered || (queue.bytes > maxBytes && queue.length > 0)) {
      queue.shift();
      drop(1);
    }
  };

  const schedule = () => {
    if (closing || timer !== null) return;
    timer = setTimeout(() => { timer = null; connect(); }, delay);
    if (timer.unref) timer.unref();
    delay = Math.min(delay * 2, MAX_DELAY_MS);
  };

  const connect = () => {
    if (closing || !valid) return;
    let t = null;
    const onOpen = () => {
      delay = FIRST_DELAY_MS;
      counts.connects += 1;
      lastFailure = '';
      status(`connected to ${where}`);
      try { flush(); } catch (err) { status(`write failed: ${err && err.message}`); }
    };
    const onDrain = () => {
      try { flush(); } catch (err) { status(`write failed: ${err && err.message}`); }
    };
    const onClose = (why) => {
      if (transport === t) transport = null;
      if (!closing && why !== lastFailure) {
        lastFailure = why;
        status(`monitor at ${where}: ${why}; buffering, retrying`);
      }
      schedule();
    };
    try {
      t = where.startsWith('unix:') ? openUnix(where.slice(5), onOpen, onClose, onDrain)
        : openWs(where, token, onOpen, onClose, onDrain);
      transport = t;
    } catch (err) {
      onClose(err && err.message ? err.message : String(err));
    }
  };

  function onEvent(event, meta) {
    try {
      if (!valid) { drop(1); return; } // nowhere to send it: counted, not kept
      let line;
      try {
        line = JSON.stringify(meta === undefined ? event : Object.assign({}, event, { meta }));
      } catch (_) {
        drop(1); // a cycle or a BigInt: not an event the monitor could read
        return;
      }
      if (typeof line !== 'string') { drop(1); return; }
      if (queue.length === 0 && writable()) send(line);
      else {
        enqueue(line);
        flush();
      }
    } catch (err) {
      status(`onEvent failed: ${err && err.message}`);
    }
  }

  /* Send what is buffered (waiting up to timeoutMs, default 2 s, for a connection), then close. Never rejects. */
  function close(closeOptions) {
    const timeoutMs = (closeOptions && Number.isFinite(closeOptions.timeoutMs)) ? closeOptions.timeoutMs : 2000;
    return new Promise((resolve) => {
      const started = Date.now();
      const done = () => {
        closing = true;
        if (timer !== null) { clearTimeout(timer); timer = null; }
        const t = transport;
        transport = null;
        if (t === null) { resolve(stats()); return; }
        const guard = setTimeout(() => { t.destroy(); resolve(stats()); }, Math.max(100, timeoutMs));
        try {
          t.end(() => { clearTimeout(guard); resolve(stats()); });
        } catch (_) {
          clearTimeout(guard);
          resolve(stats());
        }
      };
      const wait = () => {
        try { flush(); } catch (_) { /* the close below still runs */ }
        if ((queue.length === 0 && unreported === 0) || Date.now() - started >= timeoutMs) {
          done();
          return;
        }
        if (queue.length === 0 && writable()) {
          try { report(); } catch (_) { /* closed under us: the close below still runs */ }
        }
        setTimeout(wait, 20);
      };
      wait();
    });
  }

  function stats() {
    return {
      connected: transport !== null && transport.isOpen(),
      sent: counts.sent,
      buffered: queue.length,
      dropped: counts.dropped,
      connects: counts.connects,
    };
  }

  if (!valid) status(`not a monitor address: "${where}" (unix:PATH or ws://HOST:PORT, or set AIAGENT_MONITOR_URL); `
    + 'events are counted as dropped');
  connect();
  return { onEvent, close, stats };
}

module.exports = { createBridge };
