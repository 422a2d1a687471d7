/**
 * Finds round trips an application could have saved, from the recorded structure alone:
 *  - loops ("N+1"): a run of consecutive round trips on one connection, each carrying exactly one command,
 *    all the same command (GET, HGET, INCR ...): one pipeline, or a multi-key command, does it in one;
 *  - independent writes: a run of consecutive single-command round trips of mixed write commands whose
 *    replies were not errors: the client waited for each acknowledgement before sending the next.
 *  - cursor loops (SCAN, HSCAN, SSCAN, ZSCAN): reported as `dependent` with the round trips they cost and
 *    none saved, since each call needs the cursor from the previous reply; only a larger COUNT helps.
 * Traces hold no keys or values, so a loop whose next key comes from the previous reply (a dependent
 * read) looks exactly like an independent one: the advice for loops and writes says "if independent".
 * Runs are broken by any other round trip and by a think gap longer than `maxGapUs` (a polling loop that
 * sleeps between requests is not a batch). A same-command run inside a reported write run is not
 * reported again, so the savings of different opportunities add up.
 * Time saved at an RTT counts only the network: (round trips - 1) x RTT; the think time between the
 * iterations is not counted, so the saving is a floor.
 */
import type { CommandEvent } from '../stats/types.js';
import { MULTI_KEY_FORMS, baseCommand, isBatchable, isCursor, isWrite } from './command-classes.js';
import { roundTripWaitUs, type ConnectionTimeline, type RoundTrip } from './timeline.js';

export interface OpportunityOptions {
  /** Shortest run reported. @default 3 */
  minRun?: number;
  /** Longest think gap inside a run. @default 100 ms */
  maxGapUs?: number;
  /** RTTs to price the savings at. */
  rttsUs: readonly number[];
  /** The clients spoke to a Redis Cluster (nodes.ts spokeToCluster): a command's keys must share a slot. @default false */
  cluster?: boolean;
}

export const DEFAULT_OPPORTUNITY = { minRun: 3, maxGapUs: 100_000 };

/** Said under every opportunities table: what a trace cannot know. */
export const OPPORTUNITY_CAVEAT: readonly string[] = [
  'A trace holds no keys or values: a loop that takes each key from the previous reply looks like one over known keys,',
  'so batch a run only if its commands are independent. Cursor loops (SCAN, HSCAN, SSCAN, ZSCAN) are "dependent":',
  'each call needs the previous cursor, so they cannot be batched; a larger COUNT needs fewer round trips.',
];

export interface Opportunity {
  /** `dependent`: a cursor loop, which cannot be batched (nothing saved; listed for the round trips it costs). */
  kind: 'loop' | 'writes' | 'dependent';
  conn: number;
  /** "GET" for a loop; "SET, INCR" for writes. */
  command: string;
  /** Commands in the run by name. */
  commands: Record<string, number>;
  /** Round trips in the run (one command each). */
  count: number;
  firstRoundTrip: number;
  lastRoundTrip: number;
  /** Since the trace started. */
  startMs: number;
  /** First request to last reply, think gaps included. */
  durationMs: number;
  /** Time the client spent waiting on these round trips. */
  waitedMs: number;
  /** Different keys touched (only in traces recorded with --record-keys hashed). */
  distinctKeys?: number;
  roundTripsSaved: number;
  /** What to do instead. */
  instead: string;
  /** The one command that does the whole run, when there is one. */
  multiKey?: string;
  savedMs: { rttUs: number; savedMs: number }[];
}

/** Opportunities on every connection, most round trips saved first. */
export function findOpportunities(timelines: readonly ConnectionTimeline[], o: OpportunityOptions): Opportunity[] {
  const minRun = o.minRun ?? DEFAULT_OPPORTUNITY.minRun;
  const maxGapUs = o.maxGapUs ?? DEFAULT_OPPORTUNITY.maxGapUs;
  const found: Opportunity[] = [];
  for (const t of timelines) {
    const rts = t.roundTrips;
    const writeRuns = runs(rts, maxGapUs, (rt) => isWrite(rt.commands[0]!.name) && !isError(rt.commands[0]!), () => true)
      .filter(([a, b]) => b - a >= minRun && new Set(rts.slice(a, b).map((rt) => rt.commands[0]!.name)).size > 1);
    const loops = runs(rts, maxGapUs, () => true, (rt, first) => rt.commands[0]!.name === first.commands[0]!.name)
      .filter(([a, b]) => b - a >= minRun && !writeRuns.some(([wa, wb]) => wa <= a && b <= wb));
    for (const [a, b] of writeRuns) found.push(describe('writes', t, rts.slice(a, b), o));
    for (const [a, b] of loops) found.push(describe(isCursor(rts[a]!.commands[0]!.name) ? 'dependent' : 'loop', t, rts.slice(a, b), o));
  }
  // Cursor loops save nothing, so they sort after every batchable run, the longest first.
  return found.sort((x, y) => y.roundTripsSaved - x.roundTripsSaved || y.count - x.count || x.conn - y.conn || x.firstRoundTrip - y.firstRoundTrip);
}

/**
 * Maximal runs [start, end) of single-command, batchable round trips where `accept(rt)` holds for each and
 * `same(rt, first)` ties each to the run's first; think gaps above maxGapUs break a run.
 */
function runs(
  rts: readonly RoundTrip[],
  maxGapUs: number,
  accept: (rt: RoundTrip) => boolean,
  same: (rt: RoundTrip, first: RoundTrip) => boolean,
): [number, number][] {
  const ok = (rt: RoundTrip) =>
    rt.commands.length === 1 && rt.replied && !rt.commands[0]!.blocking && isBatchable(rt.commands[0]!.name) && accept(rt);
  const out: [number, number][] = [];
  let i = 0;
  while (i < rts.length) {
    if (!ok(rts[i]!)) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < rts.length && ok(rts[j]!) && same(rts[j]!, rts[i]!) && rts[j]!.startUs - rts[j - 1]!.endUs <= maxGapUs) j++;
    out.push([i, j]);
    i = j;
  }
  return out;
}

function isError(c: CommandEvent): boolean {
  return c.reply === '-' || c.reply === '!' || c.errorPrefix !== undefined;
}

function describe(kind: Opportunity['kind'], t: ConnectionTimeline, run: readonly RoundTrip[], o: OpportunityOptions): Opportunity {
  const rttsUs = o.rttsUs;
  const cmds = run.map((rt) => rt.commands[0]!);
  const commands: Record<string, number> = {};
  for (const c of cmds) commands[c.name] = (commands[c.name] ?? 0) + 1;
  const first = run[0]!;
  const last = run[run.length - 1]!;
  const hashes = cmds.map((c) => c.keyHash);
  const distinctKeys = hashes.every((h) => h !== undefined) ? new Set(hashes).size : undefined;
  const count = run.length;
  const op: Opportunity = {
    kind,
    conn: first.conn,
    command: Object.keys(commands).join(', '),
    commands,
    count,
    firstRoundTrip: first.index,
    lastRoundTrip: last.index,
    startMs: ms(first.startUs),
    durationMs: ms(last.endUs - first.startUs),
    waitedMs: ms(run.reduce((n, rt) => n + roundTripWaitUs(t, rt), 0)),
    roundTripsSaved: kind === 'dependent' ? 0 : count - 1,
    instead: 'one pipeline if independent (MULTI/EXEC if they must apply together)',
    savedMs: rttsUs.map((rttUs) => ({ rttUs, savedMs: kind === 'dependent' ? 0 : ms((count - 1) * rttUs) })),
  };
  if (distinctKeys !== undefined) op.distinctKeys = distinctKeys;
  if (kind === 'loop') Object.assign(op, loopAdvice(cmds, count, distinctKeys, o.cluster === true));
  if (kind === 'dependent') op.instead = cursorAdvice(op.command, count, rttsUs);
  return op;
}

function cursorAdvice(command: string, count: number, rttsUs: readonly number[]): string {
  const cost = rttsUs.map((rttUs) => `${ms(count * rttUs)} ms at ${rttUs / 1000} ms RTT`).join(', ');
  return `dependent: cannot be batched (each ${command} needs the previous cursor); ${count} round trips${cost ? ` cost ${cost}` : ''}; a larger COUNT needs fewer`;
}

/** `cluster`: the clients spoke to a Redis Cluster, where a command of several keys needs them in one slot. */
function loopAdvice(cmds: readonly CommandEvent[], count: number, distinctKeys: number | undefined, cluster: boolean): { instead: string; multiKey?: string } {
  const name = baseCommand(cmds[0]!.name);
  const form = MULTI_KEY_FORMS[name];
  const fits = form !== undefined && (form.maxArgc === undefined || cmds.every((c) => c.argc <= form.maxArgc!));
  // "if independent": a trace cannot tell a loop over known keys from one that takes each key from the last reply.
  if (!form || !fits) return { instead: 'one pipeline, if independent' };
  // Keys in different slots of one node make a CROSSSLOT error, and a trace holds no slot.
  if (!form.sameKeyOnly && cluster && distinctKeys !== 1) {
    return { instead: `one pipeline, if independent (${form.command} only if the keys share a hash slot: a {hash tag})` };
  }
  if (!form.sameKeyOnly) return { instead: `one ${form.command} of ${count} keys, or one pipeline, if independent`, multiKey: form.command };
  if (distinctKeys === 1) return { instead: `one ${form.command} on the one key, or one pipeline, if independent`, multiKey: form.command };
  if (distinctKeys === undefined) return { instead: `one pipeline, if independent (${form.command} if it is all one key; record with --record-keys hashed to know)` };
  return { instead: `one pipeline, if independent (${distinctKeys} different keys)` };
}

/** Microseconds to milliseconds at 1 us resolution. */
export function ms(us: number): number {
  return Math.round(us) / 1000;
}
