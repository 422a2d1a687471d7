import { describe, expect, it } from 'vitest';
import { parseLinkSpec } from '../../src/link/link-spec.js';
import { connectionSetupNote } from '../../src/report/connection-setup.js';
import { parseReport, renderHtml, renderMarkdown, renderTable } from '../../src/report/index.js';
import type { BenchReport } from '../../src/results/types.js';
import { connectionSetup, driverSetupSteps } from '../../src/workload/connection-setup.js';
import { benchFixture } from './helpers.js';

const LINKS = ['direct', 'local', 'cross-az', 'cross-region'].map((l) => parseLinkSpec(l));

describe('connection set-up in bench reports', () => {
  it('counts the driver client set-up: TCP connect, then HELLO with RESP3, AUTH with RESP2 and a password', () => {
    expect(driverSetupSteps({})).toEqual(['TCP connect', 'HELLO']);
    expect(driverSetupSteps({ protocol: 2 })).toEqual(['TCP connect']);
    expect(driverSetupSteps({ protocol: 2, password: 'x' })).toEqual(['TCP connect', 'AUTH']);
  });

  it('prices a new connection on each link with an RTT (direct and local have none)', () => {
    expect(connectionSetup(LINKS, driverSetupSteps({}))).toEqual({
      openedWhileTimed: 0,
      roundTrips: 2,
      steps: ['TCP connect', 'HELLO'],
      links: [
        { link: 'cross-az', rttUs: 1200, ms: 2.4 },
        { link: 'cross-region', rttUs: 85_000, ms: 170 },
      ],
    });
  });

  it('says once whether set-up is in the figures, and what it would cost', () => {
    const s = connectionSetup(LINKS, driverSetupSteps({}));
    expect(connectionSetupNote(s)).toBe(
      'connections opened before timing: set-up is not in these figures; each new connection would cost 2 RTTs (TCP connect + HELLO) = 2.40 ms on cross-az, 170.0 ms on cross-region',
    );
    expect(connectionSetupNote({ ...s, openedWhileTimed: 4 })).toBe(
      '4 connections opened while timing: their set-up is in these figures, 2 RTTs (TCP connect + HELLO) each = 2.40 ms on cross-az, 170.0 ms on cross-region',
    );
    expect(connectionSetupNote(connectionSetup([parseLinkSpec('direct'), parseLinkSpec('local')], ['TCP connect']))).toBeUndefined();
  });

  it('appears in the terminal table, the markdown and the HTML, and survives a JSON round trip; older reports have none', () => {
    const report: BenchReport = { ...benchFixture(), connectionSetup: connectionSetup(LINKS, driverSetupSteps({})) };
    const note = connectionSetupNote(report.connectionSetup!)!;
    for (const out of [renderTable(report), renderMarkdown(report), renderHtml(report)]) expect(out).toContain('connections opened before timing: set-up is not in these figures');
    const reloaded = parseReport(JSON.stringify(report), 'report.json');
    expect((reloaded as BenchReport).connectionSetup).toEqual(report.connectionSetup);
    expect(renderTable(benchFixture())).not.toContain('connections opened');
    expect(note).toContain('170.0 ms on cross-region');
    expect(() => parseReport(JSON.stringify({ ...report, connectionSetup: { ...report.connectionSetup, links: [{ link: 1 }] } }), 'report.json')).toThrow(/connectionSetup\.links\[0\]\.link/);
  });
});
