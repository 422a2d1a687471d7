/** What one write loop did: each write's key, start and end (ms, epoch), acknowledged, and its error. */
export type Write = [key: string, startMs: number, endMs: number, acked: boolean, error: string | null];

export interface Scenario {
  name: string;
  /** When the failover was started (SENTINEL FAILOVER sent, or the primary SIGKILLed), ms epoch. */
  triggerMs: number;
  /**
   * When the first sentinel that answers (the test's setup.sentinels[0], asked directly every 20 ms) named a new
   * primary in GET-MASTER-ADDR-BY-NAME, ms epoch. Not its +switch-master: a sentinel leading the failover (the one
   * SENTINEL FAILOVER was sent to) names the promoted replica there about a second before (docs/sentinel.md).
   */
  switchMs: number;
  /** When the old primary, still running, answered ROLE as a replica (SENTINEL FAILOVER only), ms epoch. */
  demotedMs?: number;
  /** The end of the scenario's window: the next trigger, or the loops' stop. */
  endMs: number;
}

export interface Row {
  client: string;
  scenario: string;
  wait: boolean;
  /** From the trigger to the end of the first acknowledged write that started after switchMs and survived. */
  firstGoodWriteMs: number | null;
  errors: number;
  /** Distinct error messages, with counts. */
  errorKinds: string[];
  acked: number;
  /** Acknowledged writes missing from the final primary. */
  ackedLost: number;
  /** The client gave up for good by the end of this scenario (ioredis status `end`: every command fails at once), ms after its trigger. */
  gaveUpMs: number | null;
}

/**
 * One row per loop and scenario. A write belongs to the scenario its start falls in. The first good
 * write on the new primary is the first acknowledged one that started after switchMs and is
 * present on the final primary: one acknowledged by the old primary after the switch is lost, and
 * one that started before it may have gone to the old one.
 */
export function failoverRows(
  loop: { client: string; wait: boolean; gaveUpMs?: number },
  writes: readonly Write[],
  scenarios: readonly Scenario[],
  present: ReadonlySet<string>,
): Row[] {
  const { client, wait } = loop;
  return scenarios.map((s, i) => {
    const from = i === 0 ? -Infinity : s.triggerMs;
    const mine = writes.filter((w) => w[1] >= from && w[1] < s.endMs);
    const good = mine.find((w) => w[1] >= s.switchMs && w[3] && present.has(w[0]));
    const errors = mine.filter((w) => w[4] !== null);
    const kinds = new Map<string, number>();
    for (const w of errors) kinds.set(w[4]!, (kinds.get(w[4]!) ?? 0) + 1);
    const acked = mine.filter((w) => w[3]);
    return {
      client,
      scenario: s.name,
      wait,
      firstGoodWriteMs: good ? Math.round(good[2] - s.triggerMs) : null,
      errors: errors.length,
      errorKinds: [...kinds].map(([k, n]) => `${n}x ${k}`),
      acked: acked.length,
      ackedLost: acked.filter((w) => !present.has(w[0])).length,
      gaveUpMs: loop.gaveUpMs !== undefined && loop.gaveUpMs < s.endMs ? loop.gaveUpMs - s.triggerMs : null,
    };
  });
}

/** The rows as a markdown table (docs/failover.md). */
export function renderRows(rows: readonly Row[]): string {
  const head =
    '| client | scenario | WAIT 1 100 | first good write (ms) | errors | acked writes | acked writes lost |\n' + '|---|---|---|---:|---:|---:|---:|\n';
  const first = (r: Row): string => (r.firstGoodWriteMs !== null ? String(r.firstGoodWriteMs) : r.gaveUpMs !== null ? `none: gave up at ${r.gaveUpMs}` : 'none');
  const line = (r: Row): string => `| ${r.client} | ${r.scenario} | ${r.wait ? 'yes' : 'no'} | ${first(r)} | ${r.errors} | ${r.acked} | ${r.ackedLost} |`;
  return head + rows.map(line).join('\n') + '\n';
}
