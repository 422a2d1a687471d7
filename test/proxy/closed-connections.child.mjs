// The measurement behind closed-connections.test.ts, in a plain Node process of its own (run with
// --expose-gc): a test runner's own machinery changes what the young generation keeps. Churns
// connections through a proxy whose stage holds a ballast per connection, then prints how many
// bytes per connection two scavenges could not free, as JSON.
//   node --expose-gc test/proxy/closed-connections.child.mjs [downUs]
import net from 'node:net';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import v8 from 'node:v8';
import { startPrivateRedis, startProxy } from '../../dist/index.js';

const downUs = Number(process.argv[2] ?? 200);
const BALLAST_OBJECTS = 8000;
const CONNECTIONS = 150;
const gc = /** @type {(o?: { type: 'minor' | 'major' }) => void} */ (globalThis.gc);

const makeBallast = () => Array.from({ length: BALLAST_OBJECTS }, (_, i) => ({ i, next: /** @type {unknown} */ (null) }));

/** A pass-through stage whose instance holds a ballast: what a connection's stages hold, made large. */
const ballastStage = {
  kind: /** @type {const} */ ('byte'),
  name: 'ballast',
  direction: /** @type {const} */ ('down'),
  /** @param {unknown} _conn @param {import('../../dist/index.js').ByteSink} next */
  create: (_conn, next) => {
    const ballast = makeBallast();
    return {
      /** @param {Buffer} chunk @param {number} nowNs */
      push: (chunk, nowNs) => {
        ballast[0].next = chunk;
        next.push(chunk, nowNs);
      },
      /** @param {'end' | 'reset'} kind @param {number} nowNs */
      end: (kind, nowNs) => next.end(kind, nowNs),
      drain: () => undefined,
      destroy: () => undefined,
      pendingBytes: 0,
    };
  },
};

/** @param {number} port */
async function pingAndClose(port) {
  const s = net.connect({ host: '127.0.0.1', port });
  s.write('*1\r\n$4\r\nPING\r\n');
  const reply = await new Promise((resolve, reject) => {
    s.once('data', (c) => resolve(String(c)));
    s.once('error', reject);
  });
  if (reply !== '+PONG\r\n') throw new Error(`PING answered ${JSON.stringify(reply)}`);
  s.end();
  await new Promise((resolve) => s.once('close', resolve));
}

const youngAndOldBytes = () =>
  v8
    .getHeapSpaceStatistics()
    .filter((s) => s.space_name === 'new_space' || s.space_name === 'old_space')
    .reduce((sum, s) => sum + s.space_used_size, 0);

/** @param {import('../../dist/index.js').RedisRttProxy} proxy */
async function drained(proxy) {
  while (proxy.stats().connections.active > 0) await sleep(5);
}

const redis = await startPrivateRedis();
const proxy = await startProxy({
  upstream: redis.address,
  link: { upUs: 0, downUs },
  compensationUs: { up: 0, down: 0 },
  handshake: false,
  stages: [ballastStage],
});
try {
  // Warm-up: the code is compiled and the heap's own growth is behind us.
  for (let i = 0; i < 30; i++) await pingAndClose(/** @type {number} */ (proxy.port));
  await drained(proxy);
  // Not weighed here by making ballasts: ten that survive a collection would teach V8 to make the
  // rest in the old generation straight away (allocation-site pretenuring), and none would be freed.
  gc();
  const beforeBytes = youngAndOldBytes();
  // Ten clients at a time, as an application with a small pool that reconnects.
  let started = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (started < CONNECTIONS) {
        started++;
        await pingAndClose(/** @type {number} */ (proxy.port));
      }
    }),
  );
  await drained(proxy);
  gc({ type: 'minor' });
  gc({ type: 'minor' });
  const keptPerConnection = (youngAndOldBytes() - beforeBytes) / CONNECTIONS;
  process.stdout.write(JSON.stringify({ keptPerConnection, ballastObjects: BALLAST_OBJECTS, connections: proxy.stats().connections.total }) + '\n');
} finally {
  await proxy.close();
  await redis.stop();
}
