/**
 * Reads a saved result back: parses JSON, tells bench from calibrate by `kind`, and checks the
 * fields the renderers rely on, naming the first bad one. Errors are ConfigErrors on the flag
 * the user gave, so the CLI exits 2 with a message that points at the file.
 */
import { ConfigError } from '../errors.js';
import type { BenchReport, CalibrateReport } from '../results/types.js';

type Json = Record<string, unknown>;
/** The first bad field of a report: where (`results[0].medianMs`), what it holds, what it should. */
interface Problem {
  path: string;
  value: unknown;
  accepts: string;
}
type Check = 'string' | 'number' | 'number|null' | 'object' | 'object|null' | 'array' | 'string?' | 'string|null';

const ENVIRONMENT: Record<string, Check> = {
  node: 'string', redis: 'string', ioredis: 'string', redisRtt: 'string', cpus: 'number', cpuModel: 'string',
  platform: 'string', startedAt: 'string',
};
const METHOD: Record<string, Check> = { repeat: 'number', warmup: 'number', order: 'string', timing: 'string' };
const RESULT: Record<string, Check> = {
  link: 'string', linkRttUs: 'number', mode: 'string', workload: 'string', batch: 'number', n: 'number',
  repeat: 'number', samplesMs: 'array', waits: 'number', roundTrips: 'number|null', bytesUp: 'number|null',
  bytesDown: 'number|null', speedup: 'number|null', modelMs: 'number|null', modelErrorPct: 'number|null',
  note: 'string?', error: 'string?',
};
/** A result's figures: there when it has no error; null when it failed (zeros in reports from before). */
const FIGURES: Record<string, Check> = {
  medianMs: 'number', minMs: 'number', maxMs: 'number', opsPerSec: 'number', latencyUs: 'object', histogram: 'string', breakdown: 'object',
};
const FAILED_FIGURES: Record<string, Check> = Object.fromEntries(
  Object.entries(FIGURES).map(([key, check]) => [key, `${check}|null` as Check]),
);
const LATENCY: Record<string, Check> = { p50: 'number', p90: 'number', p99: 'number', max: 'number' };
const BREAKDOWN: Record<string, Check> = { linkWaitMs: 'number', serverMs: 'number', clientCpuMs: 'number', otherMs: 'number' };
const ROW: Record<string, Check> = {
  label: 'string', configuredRttUs: 'number|null', samples: 'number', rttP50Us: 'number', rttP99Us: 'number',
  addedP50Us: 'number|null', addedP99Us: 'number|null', errorPct: 'number|null', proxyCpuPct: 'number|null',
  histogram: 'string',
};

const EXPECTED = 'a JSON file written by `redis-rtt bench --json` or `redis-rtt calibrate --json`';

/** `text` is the file's content; `source` names it in errors; `flag` is the argument it came from. */
export function parseReport(text: string, source: string, flag = 'RESULT'): BenchReport | CalibrateReport {
  const fail = (why: string): never => {
    throw new ConfigError(flag, source, `${EXPECTED} (${why})`);
  };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return fail(`not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!isObject(data)) return fail('the top level is not an object');
  // It was told "kind is missing": say what the file is, and what renders it.
  if (data.kind === undefined && isObject(data.trace) && Array.isArray(data.projections)) {
    return fail('an `analyze --json` result: report renders closed-loop bench and calibrate results; `redis-rtt analyze TRACE --html FILE` writes its page');
  }
  if (data.kind === 'open-loop') {
    return fail('kind is "open-loop": report renders closed-loop bench and calibrate results; an open-loop run writes its own with bench --rate --html');
  }
  // bench --cluster and demo --cluster write rows per shape and no kind: say what the file is.
  if (data.kind === undefined && Array.isArray(data.rows) && typeof data.nodes === 'number') {
    return fail('a bench --cluster or demo --cluster result: report renders closed-loop bench and calibrate results; the cluster run prints its own table');
  }
  if (data.kind !== 'bench' && data.kind !== 'calibrate') {
    return fail(`kind is ${JSON.stringify(data.kind) ?? 'missing'}, not "bench" or "calibrate"`);
  }
  if (data.kind === 'bench' && data.notes === undefined) data.notes = [];
  const problem = data.kind === 'bench' ? benchProblem(data) : calibrateProblem(data);
  if (problem) fail(`${problem.path} ${problem.value === undefined ? 'is missing' : `is not ${problem.accepts}`}`);
  return data as unknown as BenchReport | CalibrateReport;
}

/**
 * A report handed to an exported renderer (renderTable takes `bench`, renderCalibrateTable
 * `calibrate`, the others either): a ConfigError naming its first bad field (`report.results`), by
 * the rules a saved file is read with. `renderTable({})` threw a TypeError naming nothing.
 */
export function checkReport(report: unknown, renderer: string, kinds: readonly ('bench' | 'calibrate')[]): void {
  const what = `${kinds.map((k) => `a ${k === 'bench' ? 'BenchReport' : 'CalibrateReport'}`).join(' or ')}, as the run functions resolve to`;
  if (!isObject(report)) throw new ConfigError('report', report, `${what} (${renderer})`);
  if (!kinds.includes(report.kind as 'bench')) {
    throw new ConfigError('report.kind', report.kind, `${kinds.map((k) => `"${k}"`).join(' or ')} (${renderer} renders ${what})`);
  }
  const problem = report.kind === 'bench' ? benchProblem(report) : calibrateProblem(report);
  if (problem) throw new ConfigError(`report.${problem.path}`, problem.value, `${problem.accepts} (${renderer} renders ${what})`);
}

function benchProblem(d: Json): Problem | null {
  return (
    shape(d, { environment: 'object', method: 'object', results: 'array', notes: 'array' }, '') ??
    shape(d.environment as Json, ENVIRONMENT, 'environment.') ??
    shape(d.method as Json, METHOD, 'method.') ??
    firstProblem(d.results as unknown[], resultProblem, 'results') ??
    firstProblem(d.notes as unknown[], (n, p) => (typeof n === 'string' ? null : { path: p, value: n, accepts: 'a string' }), 'notes') ??
    setupProblem(d.connectionSetup)
  );
}

function resultProblem(r: unknown, p: string): Problem | null {
  if (!isObject(r)) return notAnObject(p, r);
  // The renderers read a result's figures only when it has no error (isOk).
  const failed = typeof r.error === 'string' && r.error !== '';
  return (
    shape(r, RESULT, `${p}.`) ??
    shape(r, failed ? FAILED_FIGURES : FIGURES, `${p}.`) ??
    (isObject(r.latencyUs) ? shape(r.latencyUs, LATENCY, `${p}.latencyUs.`) : null) ??
    (isObject(r.breakdown) ? shape(r.breakdown, BREAKDOWN, `${p}.breakdown.`) : null)
  );
}

/** Optional (older reports have none); when present, the note is built from it. */
function setupProblem(v: unknown): Problem | null {
  if (v === undefined) return null;
  if (!isObject(v)) return notAnObject('connectionSetup', v);
  return (
    shape(v, { openedWhileTimed: 'number', roundTrips: 'number', steps: 'array', links: 'array' }, 'connectionSetup.') ??
    firstProblem(v.links as unknown[], (l, p) => (!isObject(l) ? notAnObject(p, l) : shape(l, { link: 'string', rttUs: 'number', ms: 'number' }, `${p}.`)), 'connectionSetup.links')
  );
}

function calibrateProblem(d: Json): Problem | null {
  return (
    shape(d, { environment: 'object', rows: 'array', idleCpuPct: 'number|null', verdict: 'string' }, '') ??
    shape(d.environment as Json, ENVIRONMENT, 'environment.') ??
    firstProblem(d.rows as unknown[], (r, p) => (!isObject(r) ? notAnObject(p, r) : shape(r, ROW, `${p}.`)), 'rows')
  );
}

function firstProblem(list: unknown[], check: (v: unknown, path: string) => Problem | null, name: string): Problem | null {
  for (let i = 0; i < list.length; i++) {
    const p = check(list[i], `${name}[${i}]`);
    if (p) return p;
  }
  return null;
}

function shape(obj: Json, fields: Record<string, Check>, prefix: string): Problem | null {
  for (const [key, check] of Object.entries(fields)) {
    const v = obj[key];
    const ok =
      check === 'string' ? typeof v === 'string'
      : check === 'string?' ? v === undefined || typeof v === 'string'
      : check === 'number' ? typeof v === 'number' && Number.isFinite(v)
      : check === 'number|null' ? v === null || (typeof v === 'number' && Number.isFinite(v))
      : check === 'string|null' ? v === null || typeof v === 'string'
      : check === 'object|null' ? v === null || isObject(v)
      : check === 'array' ? Array.isArray(v)
      : isObject(v);
    if (!ok) return { path: `${prefix}${key}`, value: v, accepts: check.replace('|', ' or ').replace('?', '') };
  }
  return null;
}

function notAnObject(path: string, value: unknown): Problem {
  return { path, value, accepts: 'an object' };
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
