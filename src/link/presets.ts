export interface Preset {
  /** Round-trip time in microseconds, split half up, half down. */
  rttUs: number;
  /** Where the figure comes from. */
  source: string;
}

/**
 * Named links, in an object without a prototype (look names up with findPreset). Figures are typical published round trips; presets carry no jitter so runs are
 * reproducible (add --jitter to taste).
 */
export const PRESETS: Readonly<Record<string, Preset>> = Object.freeze(Object.assign(Object.create(null) as Record<string, Preset>, {
  local: { rttUs: 0, source: 'no added delay: only the proxy hop, to measure the proxy itself' },
  docker: {
    rttUs: 80,
    source: 'Docker port-mapped Redis on the same host, ~0.08 ms (docs/method.md, article C: "local Docker RTT about 0.08 ms")',
  },
  'same-az': {
    rttUs: 200,
    source: 'same availability zone, 0.18-0.22 ms (docs/method.md, article A: ElastiCache r6g.large and EC2 in one AZ, us-east-1)',
  },
  'cross-az': {
    rttUs: 1200,
    source: 'between availability zones of one region, 1.1-1.4 ms (docs/method.md, article A)',
  },
  'cross-region': {
    rttUs: 85_000,
    source: 'between regions, e.g. Frankfurt <-> N. Virginia, 80-95 ms (docs/method.md, article A)',
  },
}));

export const PRESET_NAMES = Object.keys(PRESETS);

/**
 * The preset called `name`, or undefined. PRESETS has no prototype, and only own keys count, so
 * `constructor`, `toString` or `__proto__` are not presets whatever the caller's object looks like.
 */
export function findPreset(name: unknown): Preset | undefined {
  if (typeof name !== 'string' || !Object.prototype.hasOwnProperty.call(PRESETS, name)) return undefined;
  return PRESETS[name];
}
