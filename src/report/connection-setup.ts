/**
 * The note that names connection set-up in a bench report: whether it is in the figures, and what a new
 * connection would cost on each link. Pure; used by the table (terminal, HTML), the markdown and the
 * open-loop reports.
 */
import type { BenchReport, ConnectionSetup } from '../results/types.js';
import { fmtMsTotal } from '../format.js';

export function connectionSetupNote(s: ConnectionSetup): string | undefined {
  if (s.links.length === 0) return undefined;
  const cost = s.links.map((l) => `${fmtMsTotal(l.ms)} on ${l.link}`).join(', ');
  const what = `${s.roundTrips} RTT${s.roundTrips === 1 ? '' : 's'} (${s.steps.join(' + ')})`;
  if (s.openedWhileTimed === 0) {
    return `connections opened before timing: set-up is not in these figures; each new connection would cost ${what} = ${cost}`;
  }
  return `${s.openedWhileTimed} connections opened while timing: their set-up is in these figures, ${what} each = ${cost}`;
}

/** The report's notes with the set-up note last (when the report has one). Bench and open-loop reports. */
export function notesWithSetup(report: Pick<BenchReport, 'notes' | 'connectionSetup'>): string[] {
  const note = report.connectionSetup ? connectionSetupNote(report.connectionSetup) : undefined;
  return note === undefined ? report.notes : [...report.notes, note];
}
