import { describe, expect, it } from 'vitest';
import { mergeSnapshots } from '../../src/cluster/cluster-stats.js';
import { escapeLabelValue, renderPrometheus } from '../../src/stats/prometheus.js';
import { renderSummaryTable } from '../../src/stats/summary-table.js';
import { expectGolden, SNAPSHOT } from './snapshot-fixture.js';

describe('renderPrometheus', () => {
  it('matches the golden exposition text', () => {
    expectGolden('metrics.prom', renderPrometheus(SNAPSHOT));
  });

  it('is well-formed: HELP and TYPE before every family, one family name per block, valid lines', () => {
    const text = renderPrometheus(SNAPSHOT, [
      { name: 'redis_rtt_delay_queue_bytes', help: 'Bytes waiting in the delay lines.', type: 'gauge', samples: [{ labels: { direction: 'up' }, value: 12 }] },
    ]);
    const lines = text.trimEnd().split('\n');
    const typed = new Set<string>();
    let current = '';
    for (const line of lines) {
      const help = /^# HELP (\w+) .+$/.exec(line);
      const type = /^# TYPE (\w+) (counter|gauge|summary|untyped)$/.exec(line);
      if (help) {
        current = help[1] as string;
        expect(typed.has(current), `${current} declared twice`).toBe(false);
        continue;
      }
      if (type) {
        expect(type[1]).toBe(current);
        typed.add(current);
        continue;
      }
      const sample = /^(\w+)(\{(?:\w+="(?:[^"\\\n]|\\["\\n])*",?)*\})? (-?[\d.e+-]+|NaN|[+-]Inf)$/.exec(line);
      expect(sample, line).not.toBeNull();
      expect((sample?.[1] as string).startsWith(current), line).toBe(true);
    }
    expect(text).toContain('redis_rtt_delay_queue_bytes{direction="up"} 12\n');
  });

  it('exposes the counters and latency quantiles the README promises', () => {
    const text = renderPrometheus(SNAPSHOT);
    expect(text).toContain('redis_rtt_bytes_total{direction="up"} 512345\n');
    expect(text).toContain('redis_rtt_commands_total{command="GET"} 8000\n');
    expect(text).toContain('redis_rtt_command_latency_seconds{command="GET",kind="server",quantile="0.99"} 0.00012\n');
    expect(text).toContain('redis_rtt_command_latency_seconds_sum{command="GET",kind="client"} 16.81\n');
    expect(text).toContain('redis_rtt_command_latency_seconds_count{command="GET",kind="client"} 8000\n');
    expect(text).toContain('redis_rtt_round_trips_total 1030\n');
    expect(text).toContain('redis_rtt_connections_active 2\n');
    expect(text).toContain('# TYPE redis_rtt_command_latency_seconds summary\n');
    expect(text).toContain('# TYPE redis_rtt_connections_total counter\n');
    expect(text).toContain('redis_rtt_link_up_delay_seconds 0.001\n');
  });

  it('escapes label values', () => {
    expect(escapeLabelValue('a"b\\c\nd')).toBe('a\\"b\\\\c\\nd');
    expect(renderPrometheus(SNAPSHOT)).toContain('redis_rtt_commands_total{command="ODD\\"NAME\\\\\\n"} 42\n');
  });
});

describe('renderPrometheus of a cluster\'s totals (mergeSnapshots)', () => {
  // A node's snapshot with `count` GETs taking `sumUs` in all.
  const node = (count: number, sumUs: number, maxUs: number): typeof SNAPSHOT => {
    const lat = { ...SNAPSHOT.commands.GET!.clientUs, count, sum: sumUs, max: maxUs, mean: sumUs / count };
    return { ...SNAPSHOT, commands: { GET: { count, errors: 0, serverUs: lat, clientUs: lat } } };
  };
  const sample = (text: string, suffix: string): number =>
    Number(new RegExp(`^redis_rtt_command_latency_seconds${suffix}\\{command="GET",kind="client"\\} (\\S+)$`, 'm').exec(text)?.[1]);

  it("a command's _count and _sum are every node's, and never fall when another node becomes its busiest", () => {
    const before = renderPrometheus(mergeSnapshots([node(100, 10e6, 900_000), node(90, 4e6, 50_000)], SNAPSHOT.link));
    const after = renderPrometheus(mergeSnapshots([node(100, 10e6, 900_000), node(101, 5e6, 60_000)], SNAPSHOT.link));
    expect([sample(before, '_count'), sample(before, '_sum')]).toEqual([190, 14]);
    expect([sample(after, '_count'), sample(after, '_sum')]).toEqual([201, 15]);
    // The percentiles are the busiest node's (summaries do not merge); the max is every node's.
    expect(after).toMatch(/^redis_rtt_command_latency_seconds\{command="GET",kind="client",quantile="1"\} 0\.9$/m);
  });
});

describe('renderPrometheus of a cluster\'s nodes', () => {
  it('with --client-zones, a node\'s entry per client zone is a series of its own (client_zone), not a duplicate', () => {
    const entry = (clientZone: number, commands: number): object => ({
      upstream: '127.0.0.1:7000',
      clientZone,
      counters: { ...SNAPSHOT.totals, commands },
      connections: SNAPSHOT.connections,
      linkSettings: SNAPSHOT.link,
    });
    const text = renderPrometheus({ ...SNAPSHOT, cluster: { nodes: [entry(1, 5), entry(2, 7)] } } as typeof SNAPSHOT);
    expect(text.match(/^redis_rtt_node_commands_total\{.*$/gm)).toEqual([
      'redis_rtt_node_commands_total{node="127.0.0.1:7000",client_zone="1"} 5',
      'redis_rtt_node_commands_total{node="127.0.0.1:7000",client_zone="2"} 7',
    ]);
  });
});

describe('renderPrometheus of a proxy without the tap (countsOff)', () => {
  it('leaves out what the tap counts, the nodes\' too, and keeps connections and links', () => {
    const node = { upstream: '127.0.0.1:7000', counters: SNAPSHOT.totals, connections: SNAPSHOT.connections, linkSettings: SNAPSHOT.link };
    const text = renderPrometheus({ ...SNAPSHOT, countsOff: true, cluster: { nodes: [node] } } as typeof SNAPSHOT);
    const names = [...text.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]);
    expect(names.filter((n) => /bytes_total|chunks|commands_total|errors_total|error_replies|replies_total|pushes|round_trips|flights|blocking|unparsed|max_depth|latency/.test(n!))).toEqual([]);
    expect(names).toEqual(
      expect.arrayContaining(['redis_rtt_connections_active', 'redis_rtt_connections_total', 'redis_rtt_link_up_delay_seconds', 'redis_rtt_node_connections_total', 'redis_rtt_node_link_up_delay_seconds']),
    );
  });
});

describe('renderSummaryTable', () => {
  it('without the tap (countsOff) says the counts are off rather than printing them as 0', () => {
    const text = renderSummaryTable({ ...SNAPSHOT, countsOff: true });
    expect(text).toBe(`connections 5 (2 open)   link up 1ms down 1ms jitter 100us normal\ncommands, replies, round trips and bytes: not counted (no tap)\n`);
  });

  it('matches the golden table', () => {
    expectGolden('summary.txt', renderSummaryTable(SNAPSHOT));
  });

  it('lists the top commands and says how many more there are', () => {
    const text = renderSummaryTable(SNAPSHOT, { topCommands: 2 });
    expect(text).toContain('... and 2 more commands');
    expect(text).not.toContain('BLPOP');
  });

  it('says how many clients --max-connections refused, and takes the links in place of one link', () => {
    const capped = { ...SNAPSHOT, connections: { ...SNAPSHOT.connections, refused: 3 } };
    const first = (text: string): string => text.split('\n')[0]!;
    expect(first(renderSummaryTable(SNAPSHOT))).not.toContain('refused');
    expect(first(renderSummaryTable(capped))).toMatch(/ open, 3 refused\) {3}link up /);
    expect(first(renderSummaryTable(capped, { links: 'links a (1 node), b (2 nodes)' }))).toMatch(/refused\) {3}links a \(1 node\), b \(2 nodes\)$/);
  });
});
