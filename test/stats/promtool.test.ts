/**
 * /metrics as Prometheus itself judges it: `promtool check metrics` (Debian's `prometheus` package;
 * .ci/run installs it) must print nothing and exit 0, for the golden snapshot and for a live proxy's GET /metrics.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import { startPrivateRedis } from '../../src/redis/private-redis.js';
import { renderPrometheus } from '../../src/stats/prometheus.js';
import { SNAPSHOT } from './snapshot-fixture.js';
import { promtoolCheck } from '../helpers/promtool.js';


describe('promtool check metrics', () => {
  it('finds nothing to say about the exposition of a full snapshot', () => {
    expect(promtoolCheck(renderPrometheus(SNAPSHOT))).toEqual({ status: 0, output: '' });
  });

  it("renders a Sentinel block mid-failover: no primary named yet, the sentinels disagreeing, an IPv6 node", () => {
    const sentinel = {
      ...{ master: 'mymaster', primary: null, disagree: true, disagreements: 2, failovers: 1, unparsed: 0 },
      answers: [{ sentinel: '::1:26379', primary: '::1:6379' }, { sentinel: '::1:26380', primary: '::1:6380' }],
      rewrites: { 'primary-address': 3, masters: 0, replicas: 1, sentinels: 0, event: 4 },
    };
    const text = renderPrometheus({ ...SNAPSHOT, sentinel });
    expect(text).toContain('# TYPE redis_rtt_sentinel_primary_info gauge\n# HELP redis_rtt_sentinel_answer_info');
    expect(text).toContain('redis_rtt_sentinel_answer_info{master="mymaster",sentinel="::1:26380",primary="::1:6380"} 1\n');
    expect(text).toContain('redis_rtt_sentinel_disagree{master="mymaster"} 1\n');
    expect(text).toContain('redis_rtt_sentinel_failovers_total{master="mymaster"} 1\n');
    expect(promtoolCheck(text)).toEqual({ status: 0, output: '' });
  });

  it('flags what it should (the check is live, not vacuous)', () => {
    const bad = '# HELP x_us a gauge in microseconds\n# TYPE x_us gauge\nx_us 1\n';
    const r = promtoolCheck(bad);
    expect(r.output).toContain('abbreviated units');
  });
});

describe('a live proxy\'s GET /metrics', () => {
  it('passes promtool after real traffic (commands, an error, a pipeline, jitter)', async () => {
    const redis = await startPrivateRedis();
    const proxy = await startSingleNodeProxy({ upstream: redis.address, control: '127.0.0.1:0', compensationUs: { up: 0, down: 0 }, link: { rttUs: 200, jitterUs: 20 } });
    try {
      const client = new Redis(proxy.port!, proxy.host!, { lazyConnect: true, retryStrategy: () => null });
      await client.connect();
      await client.set('rtt:prom', 'v');
      expect(await client.get('rtt:prom')).toBe('v');
      await expect(client.call('NO-SUCH-COMMAND')).rejects.toThrow();
      await client.pipeline().get('rtt:prom').incr('rtt:prom:n').exec();
      await client.quit();
      const text = await (await fetch(`http://${proxy.controlAddress}/metrics`)).text();
      expect(text).toMatch(/^redis_rtt_command_latency_seconds_count\{command="GET",kind="client"\} 2$/m);
      // The proxy's own tail: every request and reply went through the 100 us delay lines.
      const lateCount = Number(/^redis_rtt_self_lateness_seconds_count (\d+)$/m.exec(text)?.[1]);
      expect(lateCount).toBeGreaterThanOrEqual(8);
      expect(text).toMatch(/^redis_rtt_self_lateness_by_direction_seconds\{direction="down",quantile="0.99"\} [0-9.e-]+$/m);
      expect(text).toMatch(/^# TYPE redis_rtt_self_gc_pause_seconds summary$/m);
      expect(promtoolCheck(text)).toEqual({ status: 0, output: '' });
    } finally {
      await proxy.close();
      await redis.stop();
    }
  });
});

describe('docs/grafana-dashboard.json', () => {
  const dashboard = readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8');
  // On a moving link, which adds the gauges of the delays that run now (its "Simulated link" panel draws them).
  const text = renderPrometheus({ ...SNAPSHOT, timeline: { elapsedMs: 1000, delaysUs: { upUs: 1500, downUs: 1500 } } });

  it('queries only metric names /metrics serves', () => {
    const used = new Set(dashboard.match(/redis_rtt_\w+/g) ?? []);
    const served = new Set((text.match(/^redis_rtt_\w+/gm) ?? []));
    expect(used.size).toBeGreaterThan(5);
    for (const name of used) expect(served.has(name), name).toBe(true);
  });

  it('matches, groups and names its series by labels those metrics have', () => {
    // Each series' label names, by metric name (`_sum` and `_count` as served).
    const labels = new Map<string, Set<string>>();
    for (const [, name, body] of text.matchAll(/^(redis_rtt_\w+)\{([^}]*)\}/gm)) {
      const into = labels.get(name!) ?? new Set<string>();
      for (const [, label] of body!.matchAll(/(\w+)="/g)) into.add(label!);
      labels.set(name!, into);
    }
    type Panel = { title?: string; panels?: Panel[]; targets?: { expr: string; legendFormat?: string }[] };
    const panels = (p: Panel): Panel[] => [p, ...(p.panels ?? []).flatMap(panels)];
    const targets = panels(JSON.parse(dashboard) as Panel).flatMap((p) => (p.targets ?? []).map((t) => ({ ...t, title: p.title })));
    expect(targets.length).toBeGreaterThan(10);
    for (const t of targets) {
      // Prometheus adds these to every series it scrapes.
      const has = new Set(['instance', 'job']);
      for (const name of t.expr.match(/redis_rtt_\w+/g) ?? []) for (const l of labels.get(name) ?? []) has.add(l);
      const matchers = [...t.expr.matchAll(/\{([^}]*)\}/g)].flatMap(([, m]) => [...m!.matchAll(/(\w+)\s*(?:=~|!~|!=|=)/g)].map((x) => x[1]!));
      const grouped = [...t.expr.matchAll(/\bby\s*\(([^)]*)\)/g)].flatMap(([, g]) => g!.split(',').map((x) => x.trim()));
      const legend = [...(t.legendFormat ?? '').matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((x) => x[1]!);
      expect([...matchers, ...grouped, ...legend].filter((l) => !has.has(l)), `${t.title}: ${t.expr}`).toEqual([]);
    }
  });
});
