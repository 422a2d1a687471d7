/** Text and verdict for an `overhead` result: pure functions of the report. */
import type { OverheadReport, Spread } from './overhead.js';

export function renderOverhead(r: OverheadReport): string {
  const lines: string[] = [];
  lines.push(`proxy overhead (tap ${r.tap ? 'on' : 'off'}), ${r.repeat} repetition${r.repeat === 1 ? '' : 's'} after a warm-up, direct, proxy and pipe in rotated order`);
  lines.push('');
  lines.push('redis-benchmark  test  direct rps  proxy rps  pipe rps  proxy/direct (min-max)  pipe/direct (min-max)  proxy/pipe (min-max)');
  for (const t of r.throughput) {
    lines.push(
      [
        t.load.padEnd(16),
        t.test.padEnd(5),
        String(t.directRps.median).padStart(10),
        String(t.proxyRps.median).padStart(10),
        String(t.pipeRps.median).padStart(9),
        fmtSpread(t.ratio, 2).padEnd(22),
        fmtSpread(t.pipeRatio, 2).padEnd(21),
        fmtSpread(t.proxyToPipe, 2),
      ].join('  '),
    );
  }
  lines.push('pipe = a bare Node stream.pipe() proxy (no delay line, no tap): what forwarding alone costs in Node here. The proxy and the pipe run in processes of their own.');
  if (r.cpu && r.cpu.length > 0) {
    lines.push('');
    lines.push('CPU per request (user + system of that process; SET and GET runs together)  proxy us  pipe us  proxy/pipe (min-max)');
    for (const c of r.cpu) {
      lines.push(`  ${c.load.padEnd(74)}${c.proxyUsPerRequest.median.toFixed(2).padStart(8)}  ${c.pipeUsPerRequest.median.toFixed(2).padStart(7)}  ${fmtSpread(c.proxyToPipe, 2)}`);
    }
    lines.push('At -c 1 the proxy keeps polling between a reply and the next request (docs/precision.md), so its CPU there is mostly waiting.');
  }
  const s = r.sequential;
  lines.push('');
  lines.push(
    `${s.n} sequential SETs at ${s.linkRttUs} us RTT: ${fmtSpread(s.totalMs, 1)} ms; ideal n x (RTT + direct ${s.directPerCommandUs.median.toFixed(1)} us) = ${s.idealMs} ms; ratio ${fmtSpread(s.ratioToIdeal, 3)}`,
  );
  lines.push(`compensation: ${s.compensationUs} us off each one-way delay (${s.compensation})`);
  if (s.hopOnly) {
    lines.push(
      `same SETs, same repetitions, through a proxy taking off its hop only (${s.hopOnly.compensationUs} us): ${fmtSpread(s.hopOnly.totalMs, 1)} ms; ratio ${fmtSpread(s.hopOnly.ratioToIdeal, 3)} (the rest is the wake-ups a sleeping client and Redis pay)`,
    );
  }
  lines.push('');
  lines.push(overheadVerdict(r));
  lines.push('');
  lines.push(`environment: node ${r.environment.node}, redis ${r.environment.redis}, ${r.environment.cpus} CPUs (${r.environment.cpuModel})`);
  return lines.join('\n') + '\n';
}

/**
 * What the proxy aims for (docs/precision.md): throughput through a
 * zero-delay proxy of at least these shares of direct, and N sequential commands through a
 * delayed link within this factor of N x (RTT + direct time).
 */
export const OVERHEAD_TARGETS = { '-c 1 -P 1': 0.38, '-c 50 -P 16': 0.5, sequentialRatio: 1.1 } as const;

/** One line: each load's worst test (median ratio) and the sequential ratio against the targets. */
export function overheadVerdict(r: OverheadReport): string {
  const parts: string[] = [];
  for (const load of ['-c 1 -P 1', '-c 50 -P 16'] as const) {
    const rows = r.throughput.filter((t) => t.load === load);
    if (rows.length === 0) continue;
    const worst = rows.reduce((a, b) => (b.ratio.median < a.ratio.median ? b : a));
    const target = OVERHEAD_TARGETS[load];
    const pipe = Math.min(...rows.map((t) => t.pipeRatio.median));
    parts.push(
      `${load}: ${worst.ratio.median >= target ? 'ok' : 'below'} (${worst.test} ${worst.ratio.median.toFixed(2)}x of direct, target >= ${target.toFixed(2)}x; bare pipe ${pipe.toFixed(2)}x)`,
    );
  }
  const seq = r.sequential.ratioToIdeal.median;
  const target = OVERHEAD_TARGETS.sequentialRatio;
  const hop = r.sequential.hopOnly ? `; hop only ${r.sequential.hopOnly.ratioToIdeal.median.toFixed(3)}x` : '';
  parts.push(
    `sequential at ${r.sequential.linkRttUs} us: ${seq <= target ? 'ok' : 'over'} (${seq.toFixed(3)}x of the ideal, target <= ${target.toFixed(2)}x; compensation ${r.sequential.compensation}${hop})`,
  );
  return `verdict: ${parts.join('; ')}.`;
}

function fmtSpread(s: Spread, digits: number): string {
  return `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}-${s.max.toFixed(digits)})`;
}
