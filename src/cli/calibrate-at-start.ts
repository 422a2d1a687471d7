import { runCalibrate } from '../calibrate/run.js';
import { ConfigError } from '../errors.js';
import type { Compensation } from '../link/compensation.js';
import { applyLinkUpdate, defaultLinkSettings } from '../link/settings.js';
import type { LinkUpdate } from '../link/types.js';
import { formatUs } from '../units.js';

/**
 * `proxy --compensate calibrate`: before listening, measure this link's excess against the real
 * upstream (PINGs from a separate process, with and without the proxy) and return a one-point
 * table for it. Undefined (hop only) when the link has no delay to take anything off.
 */
export async function calibrateAtStart(upstream: string, update: LinkUpdate & { preset?: string }, log: (line: string) => void): Promise<Compensation | undefined> {
  const s = applyLinkUpdate(defaultLinkSettings(), update);
  const rttUs = s.upUs + s.downUs;
  if (rttUs === 0) {
    log('--compensate calibrate: the link adds no delay, so there is nothing to take off; compensating the hop only (auto)');
    return undefined;
  }
  log(`calibrating ${formatUs(rttUs)} RTT against ${upstream}: PINGs from a separate process, direct and through a proxy (a few seconds; longer for long RTTs)`);
  let report;
  try {
    report = await runCalibrate({ upstream, rttsUs: [rttUs], samples: 600, rounds: 3, idleCpu: false, progress: log });
  } catch (err) {
    throw new ConfigError('--compensate', 'calibrate', `a reachable --upstream to calibrate against (${(err as Error).message})`);
  }
  const table = report.compensationTable ?? [];
  const after = report.rows.find((r) => r.configuredRttUs === rttUs);
  const before = report.uncalibratedRows?.find((r) => r.configuredRttUs === rttUs);
  const measured = `added RTT p50 ${after?.addedP50Us ?? '?'} us with it, ${before?.addedP50Us ?? '?'} us without (configured ${rttUs} us)`;
  if (s.upUs !== s.downUs) {
    // Calibrated as a symmetric link of the same RTT: share the round trip's excess in proportion to
    // each direction's delay (a direction with none cannot give anything back).
    const excessUs = 2 * (table[0]?.compUs ?? 0);
    const up = Math.min(s.upUs, Math.round((excessUs * s.upUs) / rttUs));
    const down = Math.min(s.downUs, Math.round((excessUs * s.downUs) / rttUs));
    log(`calibrated: ${up} us off up, ${down} us off down (the excess shared by delay); ${measured} as a symmetric link`);
    return { up, down };
  }
  log(`calibrated: ${table.map((p) => `${formatUs(p.delayUs)} one-way -> ${p.compUs} us off`).join(', ')}; ${measured}`);
  return { table };
}
