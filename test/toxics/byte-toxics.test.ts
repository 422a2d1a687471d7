import { describe, expect, it } from 'vitest';
import { createToxic } from '../../src/toxics/index.js';
import type { ByteStageFactory } from '../../src/stage/types.js';
import { env, fakeConn, MS, RecordingSink, US } from './helpers.js';

function stageOf(json: unknown, seed = 1) {
  const e = env(seed);
  const toxic = createToxic(json, { scheduler: e.scheduler, uniform: e.uniform });
  const sink = new RecordingSink();
  const conn = fakeConn(e.clock);
  const stage = (toxic.stage as ByteStageFactory).create(conn, sink);
  return { ...e, toxic, sink, conn, stage };
}

describe('latency toxic', () => {
  it('holds each chunk the latency after its arrival, fractional milliseconds included', () => {
    const { stage, sink, scheduler, clock } = stageOf({ type: 'latency', attributes: { latency: 0.1 } });
    stage.push(Buffer.from('a'), 0);
    clock.setNs(30 * US);
    stage.push(Buffer.from('b'), 30 * US);
    expect(stage.pendingBytes).toBe(2);
    scheduler.runUntil(99 * US);
    expect(sink.chunks).toEqual([]);
    scheduler.runUntil(1 * MS);
    expect(sink.chunks).toEqual([
      { data: 'a', atNs: 100 * US },
      { data: 'b', atNs: 130 * US },
    ]);
  });

  it('jitter stays within latency +- jitter, keeps order, and keeps the mean', () => {
    const { stage, sink, scheduler, clock } = stageOf({ type: 'latency', attributes: { latency: 10, jitter: 5 } });
    const n = 2000;
    for (let i = 0; i < n; i++) {
      clock.setNs(i * 100 * MS); // far apart: no chunk waits for the one ahead
      stage.push(Buffer.from(String(i % 10)), i * 100 * MS);
      scheduler.runUntil(i * 100 * MS + 50 * MS);
    }
    const delays = sink.chunks.map((c, i) => (c.atNs - i * 100 * MS) / MS);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(5);
    expect(Math.max(...delays)).toBeLessThanOrEqual(15);
    const mean = delays.reduce((a, b) => a + b, 0) / n;
    // Uniform on [5, 15]: standard error of the mean over 2000 draws is 0.065 ms.
    expect(Math.abs(mean - 10)).toBeLessThan(0.3);
    expect(sink.text).toBe(Array.from({ length: n }, (_, i) => String(i % 10)).join(''));
  });

  it('passes the end after the data and drains what it holds on removal', () => {
    const { stage, sink, scheduler } = stageOf({ type: 'latency', attributes: { latency: 1 } });
    stage.push(Buffer.from('x'), 0);
    stage.end('end', 0);
    stage.drain(10);
    expect(sink.chunks).toEqual([{ data: 'x', atNs: 10 }]);
    expect(sink.ends).toEqual([{ kind: 'end', atNs: 10 }]);
    expect(scheduler.pending).toBe(0);
  });
});

describe('bandwidth toxic', () => {
  it('lets bytes out at rate KB/s, a millisecond at a time', () => {
    const { stage, sink, scheduler } = stageOf({ type: 'bandwidth', attributes: { rate: 10 } }); // 10 bytes/ms
    stage.push(Buffer.from('0123456789abcdefghij'), 0);
    scheduler.runUntil(1 * MS);
    expect(sink.chunks).toEqual([{ data: '0123456789', atNs: 1 * MS }]);
    scheduler.runUntil(5 * MS);
    expect(sink.text).toBe('0123456789abcdefghij');
    expect(sink.chunks[1]!.atNs).toBe(2 * MS);
  });

  it('rate 0 passes nothing, the end included, until removed: a cut connection, as toxiproxy (Testcontainers setConnectionCut)', () => {
    // It let everything through at once; toxiproxy 2.12's loop hands on nothing, and clients cut connections with it.
    const { stage, sink, scheduler } = stageOf({ type: 'bandwidth', attributes: { rate: 0 } });
    stage.push(Buffer.from('GET k'), 0);
    stage.end('end', 0);
    scheduler.runUntil(3600_000 * MS);
    expect({ text: sink.text, ends: sink.ends, timers: scheduler.pending }).toEqual({ text: '', ends: [], timers: 0 });
    expect(stage.pendingBytes).toBe(5);
    stage.drain(3600_000 * MS);
    expect({ text: sink.text, ends: sink.ends.map((e) => e.kind), pending: stage.pendingBytes }).toEqual({ text: 'GET k', ends: ['end'], pending: 0 });
  });
});

describe('slow_close toxic', () => {
  it('passes data at once and the close after delay ms', () => {
    const { stage, sink, scheduler } = stageOf({ type: 'slow_close', attributes: { delay: 3 } });
    stage.push(Buffer.from('hi'), 0);
    stage.end('end', 0);
    expect(sink.text).toBe('hi');
    expect(sink.ends).toEqual([]);
    scheduler.runUntil(10 * MS);
    expect(sink.ends).toEqual([{ kind: 'end', atNs: 3 * MS }]);
  });
});

describe('timeout toxic', () => {
  it('drops everything, closes the connection after timeout ms, and closes it when removed', () => {
    const { stage, sink, scheduler, conn } = stageOf({ type: 'timeout', attributes: { timeout: 5 } });
    stage.push(Buffer.from('lost'), 0);
    scheduler.runUntil(4 * MS);
    expect(sink.chunks).toEqual([]);
    expect(conn.closes).toEqual([]);
    scheduler.runUntil(5 * MS);
    expect(conn.closes).toEqual(['end']);
    const never = stageOf({ type: 'timeout', attributes: { timeout: 0 } });
    never.stage.push(Buffer.from('x'), 0);
    never.scheduler.runUntil(3600_000 * MS);
    expect(never.conn.closes).toEqual([]);
    never.stage.drain(0);
    expect(never.conn.closes).toEqual(['end']);
  });
});

describe('reset_peer toxic', () => {
  it('resets timeout ms after the first data, which it drops', () => {
    const { stage, sink, scheduler, conn } = stageOf({ type: 'reset_peer', attributes: { timeout: 2 } });
    scheduler.runUntil(10 * MS);
    expect(conn.closes).toEqual([]);
    stage.push(Buffer.from('x'), 10 * MS);
    scheduler.runUntil(11 * MS);
    expect(conn.closes).toEqual([]);
    scheduler.runUntil(12 * MS);
    expect(conn.closes).toEqual(['reset']);
    expect(sink.chunks).toEqual([]);
  });
});

describe('slicer toxic', () => {
  it('cuts chunks into slices near average_size, delay us apart, bytes unchanged', () => {
    const { stage, sink, scheduler } = stageOf({ type: 'slicer', attributes: { average_size: 10, size_variation: 4, delay: 50 } });
    const data = 'x'.repeat(37) + 'y'.repeat(63);
    stage.push(Buffer.from(data), 0);
    scheduler.runUntil(1000 * MS);
    expect(sink.text).toBe(data);
    expect(sink.chunks.length).toBeGreaterThan(5);
    for (const c of sink.chunks) expect(c.data.length).toBeLessThanOrEqual(14);
    sink.chunks.forEach((c, i) => expect(c.atNs).toBe(i * 50 * US));
  });
});

describe('slicer toxic, late timers', () => {
  it('a late timer hands on one slice, and the rest leave `delay` apart from it, as toxiproxy sleeps after each', () => {
    const { stage, sink, scheduler, clock } = stageOf({ type: 'slicer', attributes: { average_size: 10, size_variation: 4, delay: 50 } });
    const data = 'z'.repeat(100);
    stage.push(Buffer.from(data), 0);
    const first = sink.chunks.length;
    clock.setNs(2 * MS); // the loop was busy: every slice is due
    scheduler.runUntil(2 * MS);
    expect(sink.chunks.length).toBe(first + 1);
    scheduler.runUntil(1000 * MS);
    expect(sink.text).toBe(data);
    const late = sink.chunks.slice(first);
    late.forEach((c, i) => expect(c.atNs).toBe(2 * MS + i * 50 * US));
  });
});

describe('limit_data toxic', () => {
  it('passes exactly `bytes` bytes, then ends the stream and closes the connection', () => {
    const { stage, sink, conn } = stageOf({ type: 'limit_data', attributes: { bytes: 5 } });
    stage.push(Buffer.from('abc'), 0);
    expect(conn.closes).toEqual([]);
    stage.push(Buffer.from('defgh'), 1);
    stage.push(Buffer.from('ijk'), 2);
    expect(sink.text).toBe('abcde');
    expect(sink.ends).toEqual([{ kind: 'end', atNs: 1 }]);
    expect(conn.closes).toEqual(['end']);
  });
});

describe('toxicity', () => {
  it('is decided once per connection and counted', () => {
    const e = env(7);
    const toxic = createToxic({ type: 'timeout', toxicity: 0.3, attributes: { timeout: 0 } }, { scheduler: e.scheduler, uniform: e.uniform });
    let dropped = 0;
    const conns = 1000;
    for (let i = 0; i < conns; i++) {
      const sink = new RecordingSink();
      const s = (toxic.stage as ByteStageFactory).create(fakeConn(e.clock), sink);
      for (let k = 0; k < 5; k++) s.push(Buffer.from('ab'), 0);
      // All or nothing per connection.
      expect(['', 'ababababab']).toContain(sink.text);
      if (sink.text === '') dropped++;
    }
    expect(toxic.applications).toBe(dropped);
    // Binomial(1000, 0.3): sd 14.5.
    expect(Math.abs(dropped - 300)).toBeLessThan(60);
  });
});

describe('an update while connections are open, as toxiproxy restarts the toxic on each link', () => {
  it('timeout: each dropped chunk starts the wait again, and an update starts it with the new value', () => {
    const { stage, scheduler, clock, conn, toxic } = stageOf({ type: 'timeout', attributes: { timeout: 5 } });
    for (let t = 3; t <= 12; t += 3) {
      scheduler.runUntil(t * MS);
      clock.setNs(t * MS);
      stage.push(Buffer.from('keep-alive'), t * MS);
    }
    scheduler.runUntil(16 * MS);
    expect(conn.closes).toEqual([]);
    scheduler.runUntil(17 * MS);
    expect(conn.closes).toEqual(['end']);

    const never = stageOf({ type: 'timeout', attributes: { timeout: 0 } });
    never.clock.setNs(100 * MS);
    never.toxic.update({ timeout: 20 }, 1);
    never.scheduler.runUntil(119 * MS);
    expect(never.conn.closes).toEqual([]);
    never.scheduler.runUntil(120 * MS);
    expect(never.conn.closes).toEqual(['end']);
    expect(toxic.applications).toBe(1);

    // Its stream ended (the client's FIN passed on): toxiproxy's pipe is closed and an update starts nothing.
    const ended = stageOf({ type: 'timeout', attributes: { timeout: 0 } });
    ended.stage.end('end', 0);
    ended.toxic.update({ timeout: 5 }, 1);
    ended.scheduler.runUntil(100 * MS);
    expect(ended.conn.closes).toEqual([]);
    expect(ended.sink.ends).toEqual([{ kind: 'end', atNs: 0 }]);
  });

  it('toxicity is rolled again: an update to 1 reaches every open connection, to 0 leaves them all', () => {
    const e = env(3);
    const toxic = createToxic({ type: 'latency', toxicity: 0, attributes: { latency: 10 } }, { scheduler: e.scheduler, uniform: e.uniform });
    const sinks = Array.from({ length: 20 }, () => new RecordingSink());
    const stages = sinks.map((s) => (toxic.stage as ByteStageFactory).create(fakeConn(e.clock), s));
    const sendAll = (atMs: number): void => {
      e.clock.setNs(atMs * MS);
      stages.forEach((s) => s.push(Buffer.from('x'), atMs * MS));
    };
    const arrivedAt = (atMs: number): number[] => sinks.map((s) => s.chunks.find((c) => c.atNs >= atMs * MS)!.atNs / MS);
    sendAll(0);
    expect(arrivedAt(0)).toEqual(Array(20).fill(0));
    toxic.update({ latency: 10, jitter: 0 }, 1);
    sendAll(100);
    e.scheduler.runUntil(200 * MS);
    expect(arrivedAt(100)).toEqual(Array(20).fill(110));
    expect(toxic.applications).toBe(20);
    sendAll(300);
    e.clock.setNs(305 * MS);
    toxic.update({ latency: 10, jitter: 0 }, 0);
    // What the stage held leaves at the update; what comes after passes at once.
    expect(arrivedAt(300)).toEqual(Array(20).fill(305));
    sendAll(400);
    expect(arrivedAt(400)).toEqual(Array(20).fill(400));
    toxic.update({ latency: 10, jitter: 0 }, 1);
    expect(toxic.applications).toBe(20);
  });

  it('limit_data: its count outlives a roll that turns it off and on again, as toxiproxy keeps its state in the link', () => {
    const { stage, sink, conn, toxic } = stageOf({ type: 'limit_data', attributes: { bytes: 10 } });
    stage.push(Buffer.from('+PONG\r\n'), 0); // 7 of the 10
    toxic.update({ bytes: 10 }, 0);
    stage.push(Buffer.from('+PONG\r\n'), 1); // off: passes, not counted
    toxic.update({ bytes: 10 }, 1);
    // The count started over at 0 here: this PONG passed whole and the next one was cut. toxiproxy 2.12: 3 bytes.
    stage.push(Buffer.from('+PONG\r\n'), 2);
    expect(sink.text).toBe('+PONG\r\n+PONG\r\n+PO');
    expect(conn.closes).toEqual(['end']);
  });

  it('latency: chunks still held leave the new latency after their arrival', () => {
    const { stage, sink, scheduler, clock, toxic } = stageOf({ type: 'latency', attributes: { latency: 1000 } });
    stage.push(Buffer.from('a'), 100 * MS);
    stage.push(Buffer.from('b'), 200 * MS);
    clock.setNs(300 * MS);
    toxic.update({ latency: 150, jitter: 0 }, 1);
    expect(sink.chunks).toEqual([{ data: 'a', atNs: 300 * MS }]);
    stage.push(Buffer.from('c'), 300 * MS);
    scheduler.runUntil(2000 * MS);
    expect(sink.chunks).toEqual([
      { data: 'a', atNs: 300 * MS },
      { data: 'b', atNs: 350 * MS },
      { data: 'c', atNs: 450 * MS },
    ]);
  });

  it('slow_close: a close it holds waits the new delay from the update', () => {
    const { stage, sink, scheduler, clock, toxic } = stageOf({ type: 'slow_close', attributes: { delay: 1000 } });
    stage.end('end', 0);
    scheduler.runUntil(200 * MS);
    clock.setNs(200 * MS);
    toxic.update({ delay: 100 }, 1);
    scheduler.runUntil(2000 * MS);
    expect(sink.ends).toEqual([{ kind: 'end', atNs: 300 * MS }]);
  });

  it('bandwidth: what is held leaves at the new rate from the update; rate 0 holds it until a rate is set', () => {
    const { stage, sink, scheduler, clock, toxic } = stageOf({ type: 'bandwidth', attributes: { rate: 1 } });
    stage.push(Buffer.from('x'.repeat(1000)), 0); // a second's worth at 1 KB/s
    scheduler.runUntil(100 * MS);
    clock.setNs(100 * MS);
    toxic.update({ rate: 0 }, 1);
    const before = sink.text.length;
    expect(before).toBeLessThan(1000);
    stage.push(Buffer.from('y'), 100 * MS);
    scheduler.runUntil(3600_000 * MS);
    expect(sink.text.length).toBe(before);
    expect(stage.pendingBytes).toBe(1001 - before);
    clock.setNs(3600_000 * MS);
    toxic.update({ rate: 1000 }, 1); // 1000 bytes/ms: what is held leaves within 2 ms, in order
    scheduler.runUntil(3600_002 * MS);
    expect(sink.text).toBe(`${'x'.repeat(1000)}y`);
    expect(stage.pendingBytes).toBe(0);
  });
});
