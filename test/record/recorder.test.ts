import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { createKeyHasher } from '../../src/record/key-hash.js';
import { createRecorder } from '../../src/record/recorder.js';
import { readTrace } from '../../src/record/trace-reader.js';
import type { CommandEvent } from '../../src/stats/types.js';
import { LOCAL_LINK } from './synthetic.js';

const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-record-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function get(i: number, atUs: number): CommandEvent {
  return {
    type: 'command', conn: 1, name: 'GET', argc: 2, argSizes: [3, 6], bytesUp: 24, bytesDown: 9,
    arrivedUs: atUs, sentUs: atUs + 1, firstReplyUs: atUs + 40, deliveredUs: atUs + 50, reply: '$', roundTrip: i + 1,
  };
}

describe('recorder', () => {
  it('writes a header and one line per event, times relative to its start', async () => {
    const clock = new FakeClock(5_000_000_000); // 5 s of uptime: t0 = 5e6 us
    const path = join(dir, 'plain.trace');
    const rec = createRecorder({ path, link: LOCAL_LINK, clock });
    expect(rec.keyHash).toBeUndefined();
    rec.onEvent({ type: 'open', conn: 1, atUs: 5_000_010, client: '127.0.0.1:4000' });
    for (let i = 0; i < 3; i++) rec.onEvent(get(i, 5_000_100 + i * 100));
    clock.advanceUs(1000);
    const summary = await rec.close();
    expect(summary).toEqual({ bytes: statSync(path).size, events: 4, dropped: 0, truncated: false });
    const trace = await readTrace(path);
    expect(trace.header.keys).toBe('none');
    expect(trace.warnings).toEqual([]);
    expect(trace.events.map((e) => (e.type === 'command' ? e.arrivedUs : e.atUs))).toEqual([10, 100, 200, 300]);
    expect(trace.end).toEqual({ atUs: 1000, events: 4, dropped: 0, bytes: expect.any(Number) });
    // Closing twice is harmless and events after close are dropped, not written.
    rec.onEvent(get(9, 5_000_900));
    expect(await rec.close()).toEqual(summary);
  });

  it('can be read while it is being written: the events flushed so far, and a note that it may still be going', async () => {
    const clock = new FakeClock(5_000_000_000);
    const path = join(dir, 'live.trace');
    const rec = createRecorder({ path, link: LOCAL_LINK, clock });
    try {
      rec.onEvent({ type: 'open', conn: 1, atUs: 5_000_010 });
      for (let i = 0; i < 3; i++) rec.onEvent(get(i, 5_000_100 + i * 100));
      await vi.waitFor(() => expect(readFileSync(path, 'utf8').split('\n')).toHaveLength(6), { timeout: 5000 });
      const live = await readTrace(path);
      expect(live.events).toHaveLength(4);
      expect(live.end).toBeUndefined();
      // It said 'the recording was not closed cleanly' of a recording still going.
      expect(live.warnings).toEqual([
        'no end line: the trace is still being written, or its proxy stopped without closing it (killed); the last requests may be missing',
      ]);
    } finally {
      await rec.close();
    }
  });

  it('stops recording at --record-max-bytes, says so once, and drops every later event', async () => {
    const path = join(dir, 'bounded.trace');
    const logs: string[] = [];
    const maxBytes = 4096;
    const rec = createRecorder({ path, link: LOCAL_LINK, maxBytes, log: (l) => logs.push(l), clock: new FakeClock() });
    for (let i = 0; i < 200; i++) rec.onEvent(get(i, i * 100));
    const summary = await rec.close();
    expect(summary.truncated).toBe(true);
    expect(summary.reason).toBe('max-bytes');
    expect(summary.events + summary.dropped).toBe(200);
    expect(summary.events).toBeGreaterThan(10);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/^recording stopped at \d+ bytes \(--record-max-bytes 4096\); traffic continues$/);
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    const types = lines.map((l) => (JSON.parse(l) as { type: string }).type);
    const truncatedAt = types.indexOf('truncated');
    expect(truncatedAt).toBe(lines.length - 2);
    expect(types.slice(truncatedAt + 1)).toEqual(['end']);
    expect(lines.slice(0, truncatedAt).join('\n').length + 1).toBeLessThanOrEqual(maxBytes);
    expect(statSync(path).size).toBeLessThanOrEqual(maxBytes + 256);
    const trace = await readTrace(path);
    expect(trace.events).toHaveLength(summary.events);
    expect(trace.truncation).toMatchObject({ reason: 'max-bytes' });
    expect(trace.end).toMatchObject({ events: summary.events, dropped: summary.dropped });
  });

  it('skips a malformed event, counts it as dropped and goes on recording', async () => {
    const path = join(dir, 'malformed.trace');
    const logs: string[] = [];
    const rec = createRecorder({ path, link: LOCAL_LINK, log: (l) => logs.push(l), clock: new FakeClock() });
    rec.onEvent(get(0, 10));
    rec.onEvent({ ...get(1, 20), arrivedUs: NaN });
    rec.onEvent({ ...get(1, 20), arrivedUs: NaN });
    rec.onEvent(get(2, 30));
    expect(await rec.close()).toMatchObject({ events: 2, dropped: 2, truncated: false });
    expect(logs).toHaveLength(1);
    expect((await readTrace(path)).events).toHaveLength(2);
  });

  it('fails at once on a path it cannot write', () => {
    expect(() => createRecorder({ path: join(dir, 'no/such/dir/x.trace'), link: LOCAL_LINK })).toThrow(/ENOENT/);
  });

  it('survives a failing disk: stops recording, logs once, never throws', async () => {
    const logs: string[] = [];
    const rec = createRecorder({ path: '/dev/full', overwrite: true, link: LOCAL_LINK, log: (l) => logs.push(l), clock: new FakeClock() });
    for (let i = 0; i < 5000; i++) rec.onEvent(get(i, i * 10));
    await vi.waitUntil(() => logs.length > 0, { timeout: 5000, interval: 5 });
    for (let i = 0; i < 10; i++) rec.onEvent(get(i, i * 10));
    const summary = await rec.close();
    expect(summary).toMatchObject({ truncated: true, reason: 'write-error' });
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/recording to \/dev\/full failed .*; traffic continues/);
  });
});

describe('key hashes', () => {
  it('give one key one hash within a trace, 16 hex chars, and differ between traces', () => {
    const rec1 = createRecorder({ path: join(dir, 'h1.trace'), link: LOCAL_LINK, keys: 'hashed' });
    const rec2 = createRecorder({ path: join(dir, 'h2.trace'), link: LOCAL_LINK, keys: 'hashed' });
    const a1 = rec1.keyHash!(Buffer.from('user:1'));
    expect(a1).toMatch(/^[0-9a-f]{16}$/);
    expect(rec1.keyHash!(Buffer.from('user:1'))).toBe(a1);
    expect(rec1.keyHash!(Buffer.from('user:2'))).not.toBe(a1);
    expect(rec2.keyHash!(Buffer.from('user:1'))).not.toBe(a1);
    return Promise.all([rec1.close(), rec2.close()]);
  });

  it('match across hashers only when given the same secret on purpose', () => {
    const secret = Buffer.alloc(32, 7);
    expect(createKeyHasher(secret)(Buffer.from('k'))).toBe(createKeyHasher(Buffer.from(secret))(Buffer.from('k')));
    expect(() => createKeyHasher(Buffer.alloc(8))).toThrow(/at least 16 bytes/);
  });

  it('are HMAC-SHA256, truncated to 16 hex chars', () => {
    for (const secret of [randomBytes(32), randomBytes(16), randomBytes(100)]) {
      for (const key of ['', 'user:1', 'x'.repeat(1000)]) {
        const expected = createHmac('sha256', secret).update(key).digest('hex').slice(0, 16);
        expect(createKeyHasher(secret)(Buffer.from(key))).toBe(expected);
      }
    }
  });

  it('are written only with keys "hashed"', async () => {
    const path = join(dir, 'hashed.trace');
    const rec = createRecorder({ path, link: LOCAL_LINK, keys: 'hashed', clock: new FakeClock() });
    rec.onEvent({ ...get(0, 10), keyHash: rec.keyHash!(Buffer.from('user:1')) });
    await rec.close();
    const trace = await readTrace(path);
    expect(trace.header.keys).toBe('hashed');
    expect((trace.events[0] as CommandEvent).keyHash).toMatch(/^[0-9a-f]{16}$/);
    expect(readFileSync(path, 'utf8')).not.toContain('user:1');
  });
});
