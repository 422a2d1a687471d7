/** Text for a vs-toxiproxy report: a pure function of the report. */
import { renderGrid, RULE, type GridRow } from '../../src/text-grid.js';
import { cellLabel, shapeLabel } from './plan.js';
import type { VsToxiproxyReport } from './run.js';
import { cellVerdicts, goalCounts, GOALS } from './goals.js';
import { PROXIES, type Spread } from './summary.js';

export function renderVsToxiproxy(r: VsToxiproxyReport): string {
  // One round has no range to show.
  const fmt = (s: Spread, digits: number): string =>
    r.rounds === 1 ? s.median.toFixed(digits) : `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}..${s.max.toFixed(digits)})`;
  const lines: string[] = [];
  const over = r.rounds === 1 ? '' : ', median (min..max) over rounds';
  const rounds = `${r.rounds} round${r.rounds === 1 ? '' : 's'}`;
  lines.push(`redis-rtt ${r.environment.redisRtt} vs toxiproxy ${r.toxiproxyVersion}, ${rounds}, targets in rotated order, warm-up first`);
  lines.push(`load average at the start of each round: ${r.loadByRound.map((l) => l.toFixed(2)).join(', ')}`);
  if (r.nice !== undefined) lines.push(`every proxy at nice ${r.nice}, all its threads; Redis and redis-benchmark at their own`);
  for (const w of r.warnings) lines.push(`warning: ${w}`);

  if (r.latency.length > 0) {
    lines.push('');
    lines.push('redis-benchmark GET -P 1, one-way delay L down (redis-rtt --down L --up 0 --compensate off --no-handshake; toxiproxy latency toxic downstream)');
    lines.push(`excess = proxied - direct (same round) - L, ms${over}; CPU = the proxy process, all threads, per request`);
    // What a p99 or a max is out of: a run of a few requests has no tail to speak of.
    const perRun = r.latency.map((row) => {
      const s = r.samples.latency.find((x) => x.cell.delayMs === row.cell.delayMs && x.cell.clients === row.cell.clients);
      return `${cellLabel(row.cell)} ${s?.requests ?? '?'}`;
    });
    lines.push(`requests per run: ${perRun.join('; ')}`);
    // A report written before the preemptions were counted has no such column.
    const preempted = r.latency.every((row) => PROXIES.every((name) => row.proxies[name].preemptedPerRequest));
    const excessHead = ['L, clients', 'proxy', 'p50 excess', 'p99 excess', 'max excess', 'CPU us/request', ...(preempted ? ['preempted/request'] : [])];
    const rows: GridRow[] = [{ cells: excessHead, tone: 'bold' }, RULE];
    for (const row of r.latency) {
      for (const name of PROXIES) {
        const e = row.proxies[name];
        const first = name === PROXIES[0] ? cellLabel(row.cell) : '';
        const cells = [first, name, fmt(e.p50Ms, 3), fmt(e.p99Ms, 3), fmt(e.maxMs, 2), fmt(e.cpuUsPerRequest, 1)];
        rows.push({ cells: preempted ? [...cells, fmt(e.preemptedPerRequest!, 2)] : cells });
      }
    }
    lines.push(...renderGrid(rows, excessHead.map((_, i) => (i < 2 ? 'left' : 'right'))));

    lines.push('');
    const added = r.latency.some((row) => row.self.addedP99Ms);
    lines.push(`redis-rtt's /stats self-report beside what redis-benchmark saw through it, ms${added ? '' : ' (this build has no self.addedUs)'}`);
    const roundTrip = r.latency.some((row) => row.self.roundTripP99Ms);
    const head = [
      'L, clients',
      'client p99 excess',
      'self.lateUs p99',
      ...(added ? ['self.addedUs p99'] : []),
      ...(roundTrip ? ['self.roundTripAddedUs p99'] : []),
      'client max excess',
      'self.lateUs max',
      ...(added ? ['self.addedUs max'] : []),
      ...(roundTrip ? ['self.roundTripAddedUs max'] : []),
    ];
    const selfRows: GridRow[] = [{ cells: head, tone: 'bold' }, RULE];
    for (const row of r.latency) {
      const seen = row.proxies['redis-rtt'];
      const s = row.self;
      selfRows.push({
        cells: [
          cellLabel(row.cell),
          fmt(seen.p99Ms, 3),
          fmt(s.lateP99Ms, 3),
          ...(added ? [s.addedP99Ms ? fmt(s.addedP99Ms, 3) : '-'] : []),
          ...(roundTrip ? [s.roundTripP99Ms ? fmt(s.roundTripP99Ms, 3) : '-'] : []),
          fmt(seen.maxMs, 2),
          fmt(s.lateMaxMs, 2),
          ...(added ? [s.addedMaxMs ? fmt(s.addedMaxMs, 2) : '-'] : []),
          ...(roundTrip ? [s.roundTripMaxMs ? fmt(s.roundTripMaxMs, 2) : '-'] : []),
        ],
      });
    }
    lines.push(...renderGrid(selfRows, ['left', ...head.slice(1).map(() => 'right' as const)]));

    lines.push('');
    lines.push("issue 23's goals, medians over rounds: p50 and p99 at most toxiproxy's (p99: or under 0.1 ms), max at most");
    lines.push("its + 2 ms, CPU at most its (twice at 1 ms), self-report p99 within max(0.2 ms, 30%) of the client's p99 excess");
    const word = (v: boolean | null): string => (v === null ? '-' : v ? 'met' : 'missed');
    const goalRows: GridRow[] = [{ cells: ['L, clients', ...GOALS], tone: 'bold' }, RULE];
    for (const row of r.latency) {
      const v = cellVerdicts(row);
      goalRows.push({ cells: [cellLabel(row.cell), ...GOALS.map((g) => word(v[g]))] });
    }
    const counts = goalCounts(r.latency);
    goalRows.push({ cells: ['cells met', ...GOALS.map((g) => `${counts[g].met}/${counts[g].of}`)], tone: 'bold' });
    lines.push(...renderGrid(goalRows, ['left', ...GOALS.map(() => 'right' as const)]));
  }

  if (r.throughput.length > 0) {
    lines.push('');
    lines.push(`redis-benchmark GET, no delay (no toxic; redis-rtt link 0): rps and CPU us/request${over}`);
    const rows: GridRow[] = [{ cells: ['shape', 'target', 'rps', 'CPU us/request'], tone: 'bold' }, RULE];
    for (const row of r.throughput) {
      for (const [i, [target, rps]] of Object.entries(row.rps).entries()) {
        const cpu = row.cpuUsPerRequest[target as keyof typeof row.cpuUsPerRequest];
        rows.push({ cells: [i === 0 ? shapeLabel(row.shape) : '', target, fmt(rps, 0), cpu ? fmt(cpu, 2) : '-'] });
      }
      for (const ratio of row.ratios) rows.push({ cells: ['', `${ratio.of}/${ratio.to} rps, per round`, fmt(ratio.perRound, 2)], tone: 'dim' });
    }
    lines.push(...renderGrid(rows, ['left', 'left', 'right', 'right']));
  }
  lines.push('');
  lines.push(`environment: node ${r.environment.node}, redis ${r.environment.redis}, ${r.environment.cpus} CPUs (${r.environment.cpuModel}), ${r.environment.startedAt}`);
  return lines.join('\n') + '\n';
}
