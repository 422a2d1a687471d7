import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { heapNote } from '../../src/cli/analyze.js';
import { ConfigError } from '../../src/errors.js';
import { analyzeTrace } from '../../src/record/analyze.js';
import { addRecordFlags, checkRecordFlags, recordOptionsFromFlags } from '../../src/record/cli-options.js';
import { DEFAULT_RECORDER } from '../../src/record/recorder.js';
import { readTrace } from '../../src/record/trace-reader.js';

const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ctx = { link: { preset: 'cross-az' }, handshake: true, log: () => {} };

describe('--record flags', () => {
  it('declares --record, --record-max-bytes (default 256mb) and --record-keys (default none)', () => {
    const cmd = addRecordFlags(new Command('proxy').exitOverride());
    cmd.parse(['--record', 'x.trace', '--record-keys', 'hashed'], { from: 'user' });
    expect(cmd.opts()).toEqual({ record: 'x.trace', recordMaxBytes: '256mb', recordKeys: 'hashed' });
  });

  it('is off without --record, but still checks the other two flags', () => {
    expect(recordOptionsFromFlags({}, ctx)).toBeUndefined();
    expect(() => recordOptionsFromFlags({ recordKeys: 'plain' }, ctx)).toThrow(ConfigError);
    expect(() => recordOptionsFromFlags({ recordMaxBytes: 'lots' }, ctx)).toThrow(/--record-max-bytes: invalid value "lots"/);
    expect(() => recordOptionsFromFlags({ recordMaxBytes: '100' }, ctx)).toThrow(/at least 4kb/);
  });

  it('has one default size: the flag\'s 256mb is the recorder\'s and the config schema\'s (256000000 bytes)', () => {
    // The recorder (and the schema's description, made from it) said 256 MiB, 268435456; the flag gave 256000000.
    const flagDefault = (addRecordFlags(new Command('proxy')).opts() as { recordMaxBytes: string }).recordMaxBytes;
    expect(flagDefault).toBe('256mb');
    expect(checkRecordFlags({ record: 'x.trace', recordMaxBytes: flagDefault }).maxBytes).toBe(256_000_000);
    expect(DEFAULT_RECORDER.maxBytes).toBe(256_000_000);
    expect(checkRecordFlags({ record: 'x.trace' }).maxBytes).toBe(256_000_000);
  });

  it('names --record when the file cannot be created', () => {
    expect(() => recordOptionsFromFlags({ record: join(dir, 'missing/x.trace') }, ctx)).toThrow(/--record: invalid value .*a file that can be written \(ENOENT\)/);
  });

  it('gives the proxy onEvent, argSizes and (only when hashed) keyHash; the header carries the link', async () => {
    const plain = recordOptionsFromFlags({ record: join(dir, 'a.trace'), recordMaxBytes: '64mb' }, ctx)!;
    expect(plain.argSizes).toBe(true);
    expect(plain.keyHash).toBeUndefined();
    plain.linkChanged({ rttUs: 85_000 });
    await plain.close();
    const trace = await readTrace(join(dir, 'a.trace'));
    expect(trace.header.link).toMatchObject({ upUs: 600, downUs: 600, handshake: true });
    expect(trace.links).toEqual([{ atUs: expect.any(Number), link: expect.objectContaining({ upUs: 42_500, downUs: 42_500 }) }]);
    const hashed = recordOptionsFromFlags({ record: join(dir, 'b.trace'), recordKeys: 'hashed' }, ctx)!;
    expect(hashed.keyHash!(Buffer.from('k'))).toMatch(/^[0-9a-f]{16}$/);
    await hashed.close();
  });

  it('says in the header that --rtt-wave or --rtt-series moved the link, and analyze warns its projection counts that twice', async () => {
    // They move the delays per chunk with no link line: the trace held the base link only, and analyze
    // priced every round trip at it without a word, so each projection added the target RTT to the series' delay.
    const moved = recordOptionsFromFlags({ record: join(dir, 'series.trace'), rttSeries: 'path.csv', rttWave: 'sine:60s:20ms' }, ctx)!;
    await moved.close();
    const trace = await readTrace(join(dir, 'series.trace'));
    expect(trace.header.linkMoves).toEqual(['--rtt-wave', '--rtt-series']);
    const [warning] = analyzeTrace(trace).trace.warnings;
    expect(warning).toContain('the link moved with --rtt-wave and --rtt-series while recording');
    expect(warning).toContain('(RTT 1.2ms at its start)');
    const fixed = recordOptionsFromFlags({ record: join(dir, 'fixed.trace') }, ctx)!;
    await fixed.close();
    const plain = await readTrace(join(dir, 'fixed.trace'));
    expect(plain.header.linkMoves).toBeUndefined();
    // No link warning; the one note says the trace (no client here) holds no connection.
    expect(analyzeTrace(plain).trace.warnings).toEqual([expect.stringContaining('the trace holds no connection')]);
  });
});

describe('analyze of a trace larger than this Node may hold', () => {
  // Running out of heap aborts analyze with V8's report alone, after minutes of reading.
  it('says so before reading, with the NODE_OPTIONS that gives it more', () => {
    expect(heapNote('app.trace', 255_000_000, 1_100_000_000)).toBeUndefined();
    expect(heapNote('big.trace', 1_200_000_000, 4_345_298_944)).toBe(
      'big.trace is 1.2GB: analyze holds a trace in memory, about 4 times its size, and this Node\'s heap may grow to 4.35GB; ' +
        'should it run out, give it more: NODE_OPTIONS=--max-old-space-size=6000',
    );
  });
});
