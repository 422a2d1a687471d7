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
      ['bandwidth', 'failover', 'latency', 'limit_data', 'noop', 'packet_loss', 'redis_drop', 'redis_error', 'redis_latency', 'reset_peer', 'slicer', 'slow_close', 'timeout'],
    );
  });

  it('names the field in every refusal', () => {
    expect(fieldOf({ type: 'nope' })).toBe('type');
    expect(fieldOf({ type: 'latency', stream: 'sideways' })).toBe('stream');
    expect(fieldOf({ type: 'latency', toxicity: '1' })).toBe('toxicity');
    expect(fieldOf({ type: 'latency', attributes: { jitter: '5' } })).toBe('attributes.jitter');
    expect(fieldOf({ type: 'bandwidth', attributes: { rate: 'fast' } })).toBe('attributes.rate');
    expect(fieldOf({ type: 'slicer', attributes: { average_size: 1.5 } })).toBe('attributes.average_size');
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

describe('what toxiproxy takes, taken: attributes as sent, what runs as `applied`', () => {
  // toxiproxy decodes any integer into its structs and its stages treat a negative as none; a
  // client compares what it gets back with what it sent (toxiproxy-node-client's ToxicTypes tests).
  it('keeps values that work as sent, with no `applied`', () => {
    const sent: [string, Record<string, unknown>][] = [
      ['latency', { latency: 1000, jitter: 100 }],
      ['bandwidth', { rate: 1000 }],
      ['slow_close', { delay: 1000 }],
      ['timeout', { timeout: 5000 }],
      ['reset_peer', { timeout: 1000 }],
      ['limit_data', { bytes: 42 }],
      ['slicer', { average_size: 1000, size_variation: 999, delay: 1000 }],
    ];
    for (const [type, attributes] of sent) {
      const spec = parseToxicSpec({ type, attributes });
      expect(spec.attributes, type).toEqual(attributes);
      expect(spec.applied, type).toBeUndefined();
    }
  });

  it('clamps what cannot work and says so in `applied`', () => {
    const slicer = parseToxicSpec({ type: 'slicer', attributes: { average_size: 1000, delay: 1000, size_variation: 1000 } });
    expect(slicer.attributes).toEqual({ average_size: 1000, delay: 1000, size_variation: 1000 });
    expect(slicer.applied).toEqual({ toxicity: 1, attributes: { average_size: 1000, delay: 1000, size_variation: 999 } });
    expect(parseToxicSpec({ type: 'slicer' }).applied?.attributes).toEqual({ average_size: 1, size_variation: 0, delay: 0 });
    expect(parseToxicSpec({ type: 'slicer', attributes: { average_size: 8, size_variation: -3, delay: -5 } }).applied?.attributes).toEqual({
      average_size: 8,
      size_variation: 0,
      delay: 0,
    });
    const latency = parseToxicSpec({ type: 'latency', toxicity: 1.5, attributes: { latency: -10, jitter: 5 } });
    expect(latency).toMatchObject({ toxicity: 1.5, attributes: { latency: -10, jitter: 5 } });
    expect(latency.applied).toEqual({ toxicity: 1, attributes: { latency: 0, jitter: 5 } });
    expect(parseToxicSpec({ type: 'limit_data', toxicity: -1, attributes: { bytes: -1 } }).applied).toEqual({ toxicity: 0, attributes: { bytes: 0 } });
    for (const [type, key] of [['bandwidth', 'rate'], ['slow_close', 'delay'], ['timeout', 'timeout'], ['reset_peer', 'timeout'], ['redis_latency', 'latency']] as const) {
      expect(parseToxicSpec({ type, attributes: { [key]: -7 } }).applied?.attributes[key], type).toBe(0);
    }
    expect(parseToxicSpec({ type: 'failover', attributes: { duration: -1 } }).applied?.attributes.duration).toBe(0);
    // packet_loss's probabilities run clamped to 1, as toxiproxy's roll does: shown so.
    const loss = parseToxicSpec({ type: 'packet_loss', attributes: { loss_rate: 1.5, correlation: 2 } });
    expect(loss.attributes).toEqual({ loss_rate: 1.5, correlation: 2 });
    expect(loss.applied).toEqual({ toxicity: 1, attributes: { loss_rate: 1, correlation: 1 } });
    expect(parseToxicSpec({ type: 'packet_loss', attributes: { loss_rate: 1, correlation: 0.5 } }).applied).toBeUndefined();
  });
});
