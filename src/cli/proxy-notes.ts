/** The notes a proxy prints at start about how it will measure (proxy.ts). */
import type { WakeKind } from '../link/waker.js';

/**
 * Where the timerfd alarm did not load on Linux: npm hides the install's one line about it when
 * redis-rtt is a dependency, so a proxy running on the fallback says so at start.
 */
export function wakeKindNote(platform: string, kind: WakeKind): string | undefined {
  if (platform !== 'linux' || kind === 'timerfd') return undefined;
  const on = kind === 'thread' ? 'a timer thread' : "Node's setTimeout";
  return `note: the timerfd alarm (native/timerfd) is not built or did not load: deliveries wake on ${on}, at more CPU per delayed request; reinstall with make and a C compiler`;
}

/**
 * With `--compensate auto` only the proxy's hop is taken off. Below a few milliseconds the
 * wake-ups of a client and a Redis that sleep through each wait add a share a user would notice
 * (docs/measurements.md), so say how to calibrate instead of leaving it to be found. Where
 * `--compensate calibrate` is refused (`canCalibrate` false: sentinel mode, --listen-tls), only the table.
 */
export function hopOnlyHint(compensate: string, link: { upUs: number; downUs: number }, canCalibrate = true): string | undefined {
  const rttUs = link.upUs + link.downUs;
  if (compensate !== 'auto' || rttUs <= 0 || rttUs > 10_000) return undefined;
  const atStart = canCalibrate ? '--compensate calibrate (measures at start) or ' : '';
  return (
    `note: --compensate auto takes off the proxy's hop only; a client and a Redis that sleep through each ` +
    `${rttUs} us wait typically see tens to hundreds of microseconds more per round trip on a VM. For the ` +
    `RTT a client sees to match the configured one, use ${atStart}a ` +
    `\`redis-rtt calibrate --json FILE\` table (--compensate FILE).`
  );
}
