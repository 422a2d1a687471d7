import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { parseToxicSpec, TOXIC_TYPES } from '../../src/toxics/index.js';

function fieldOf(input: unknown): string {
  try {
    parseToxicSpec(input);
  } catch (err) {
    if (err instanceof ConfigError) return err.flag;
    throw err;
  }
  throw new Error('accepted');
}

describe('toxic specs as toxiproxy reads them', () => {
  it('fills in toxiproxy defaults: downstream, toxicity 1, name <type>_<stream>, attribute defaults', () => {
    expect(parseToxicSpec({ type: 'latency' })).toEqual({
      name: 'latency_downstream',
      type: 'latency',
      stream: 'downstream',
      toxicity: 1,
      attributes: { latency: 0, jitter: 0 },
    });
    expect(parseToxicSpec({ type: 'timeout', stream: 'upstream', name: 't', toxicity: 0.5, attributes: { timeout: 10 } })).toMatchObject({
      name: 't',
      stream: 'upstream',
      toxicity: 0.5,
      attributes: { timeout: 10 },
    });
  });

  it('knows the toxiproxy types and the Redis-aware ones', () => {
    expect([...TOXIC_TYPES.keys()].sort()).toEqual(
      ['bandwidth', 'failover', 'latency', 'limit_data', 'redis_drop', 'redis_error', 'redis_latency', 'reset_peer', 'slicer', 'slow_close', 'timeout'],
    );
  });

  it('names the field in every refusal', () => {
    expect(fieldOf({ type: 'nope' })).toBe('type');
    expect(fieldOf({ type: 'latency', stream: 'sideways' })).toBe('stream');
    expect(fieldOf({ type: 'latency', toxicity: 2 })).toBe('toxicity');
    expect(fieldOf({ type: 'latency', attributes: { latency: -1 } })).toBe('attributes.latency');
    expect(fieldOf({ type: 'latency', attributes: { jitter: '5' } })).toBe('attributes.jitter');
    expect(fieldOf({ type: 'bandwidth', attributes: { rate: 'fast' } })).toBe('attributes.rate');
    expect(fieldOf({ type: 'slicer', attributes: {} })).toBe('attributes.average_size');
    expect(fieldOf({ type: 'slicer', attributes: { average_size: 10, size_variation: 10 } })).toBe('attributes.size_variation');
    expect(fieldOf({ type: 'limit_data', attributes: { bytes: 1.5 } })).toBe('attributes.bytes');
    expect(fieldOf({ type: 'redis_error', attributes: {} })).toBe('attributes.error');
    expect(fieldOf({ type: 'redis_error', attributes: { error: 'A\r\nB' } })).toBe('attributes.error');
    expect(fieldOf({ type: 'redis_error', attributes: { error: 'ERR x', commands: 'GET' } })).toBe('attributes.commands');
    expect(fieldOf({ type: 'redis_drop', attributes: { close: 'yes' } })).toBe('attributes.close');
    expect(fieldOf({ type: 'failover', attributes: { mode: 'loading' } })).toBe('attributes.duration');
    expect(fieldOf({ type: 'failover', attributes: { duration: 5, mode: 'sleep' } })).toBe('attributes.mode');
    expect(fieldOf({ type: 'latency', attributes: [] })).toBe('attributes');
    expect(fieldOf('latency')).toBe('toxic');
  });
});
