import { ConfigError } from '../errors.js';
import type { Compensation } from '../link/compensation.js';
import { fmtUsSetting } from '../format.js';
import { runCalibrate } from './run.js';
import type { UpstreamTlsOptions } from '../tls/options.js';

/**
 * `--compensate calibrate` (proxy, overhead): before the link is used, measure its excess against
 * the real upstream (PINGs from a separate process, with and without a proxy) and return what to
 * take off. Undefined (hop only) when the link has no delay to take anything off.
 */
export async function calibrateAtStart(
  upstream: string,
  link: { upUs: number; downUs: number },
  log: (line: string) => void,
  upstreamTls?: boolean | UpstreamTlsOptions,
): Promise<Compensation | undefined> {
  const rttUs = link.upUs + link.downUs;
  if (rttUs === 0) {
    log('--compensate calibrate: the link adds no delay, so there is nothing to take off; compensating the hop only (auto)');
    return undefined;
  }
  log(`calibrating ${fmtUsSetting(rttUs)} RTT against ${upstream}${upstreamTls ? ' over TLS' : ''}: PINGs from a separate process, direct and through a proxy (a few seconds; longer for long RTTs)`);
  let report;
  try {
    report = await runCalibrate({ upstream, upstreamTls, rttsUs: [rttUs], samples: 600, rounds: 3, idleCpu: false, progress: log });
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError('--compensate', 'calibrate', `a reachable --upstream to calibrate against (${(err as Error).message})`);
  }
  const table = report.compensationTable ?? [];
  const after = report.rows.find((r) => r.configuredRttUs === rttUs);
  const before = report.uncalibratedRows?.find((r) => r.configuredRttUs === rttUs);
  const measured = `added RTT p50 ${after?.addedP50Us ?? '?'} us with it, ${before?.addedP50Us ?? '?'} us without (configured ${rttUs} us)`;
  if (link.upUs !== link.downUs) {
    // Calibrated as a symmetric link of the same RTT: share the round trip's excess in proportion to
    // each direction's delay (a direction with none cannot give anything back).
    const excessUs = 2 * (table[0]?.compUs ?? 0);
    const up = Math.min(link.upUs, Math.round((excessUs * link.upUs) / rttUs));
    const down = Math.min(link.downUs, Math.round((excessUs * link.downUs) / rttUs));
    log(`calibrated: ${up} us off up, ${down} us off down (the excess shared by delay); ${measured} as a symmetric link`);
    return { up, down };
  }
  log(`calibrated: ${table.map((p) => `${fmtUsSetting(p.delayUs)} one-way -> ${p.compUs} us off`).join(', ')}; ${measured}`);
  return { table };
}
