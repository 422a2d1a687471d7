import type { BenchProgress } from '../workload/bench.js';

/** Seconds for humans: 45 s, 2m 05s. */
export function fmtSeconds(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}

/**
 * Progress on stderr. On a TTY: one line redrawn in place (bar, count, running configuration,
 * ETA). Otherwise (CI logs, pipes): one plain line per sample, nothing redrawn.
 */
export function progressPrinter(stream: NodeJS.WriteStream = process.stderr): { onEvent: (ev: BenchProgress) => void; done: () => void } {
  const tty = stream.isTTY === true;
  let drawn = false;
  const clear = (): void => {
    if (drawn) stream.write('\r\x1b[2K');
    drawn = false;
  };
  const line = (text: string): void => {
    clear();
    stream.write(`redis-rtt: ${text}\n`);
  };
  const onEvent = (ev: BenchProgress): void => {
    switch (ev.type) {
      case 'estimate':
        line(`${ev.configurations} configurations, ${ev.samples} samples; estimated ${fmtSeconds(ev.estimateMs)}`);
        break;
      case 'note':
        line(ev.text);
        break;
      case 'failed':
        line(`FAILED ${ev.label}: ${ev.error}`);
        break;
      case 'sample': {
        const tag = ev.phase === 'warmup' ? 'warm-up' : 'sample';
        const eta = `ETA ${fmtSeconds(ev.etaMs)}`;
        if (!tty) {
          stream.write(`redis-rtt: [${ev.done}/${ev.total}] ${tag} ${ev.label} ${ev.sampleMs.toFixed(1)} ms (${eta})\n`);
          break;
        }
        const width = 20;
        const filled = Math.round((ev.done / ev.total) * width);
        const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
        // A pseudo-terminal with no size set (script, docker exec -t, CI) reports 0 columns: slicing to -1 cut
        // the line's last character.
        const cols = stream.columns > 0 ? stream.columns : 100;
        const text = `${bar} ${ev.done}/${ev.total} ${eta}  ${tag} ${ev.label}`;
        stream.write(`\r\x1b[2K${text.slice(0, cols - 1)}`);
        drawn = true;
        break;
      }
    }
  };
  return { onEvent, done: clear };
}
