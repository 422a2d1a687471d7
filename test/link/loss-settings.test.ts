import { describe, expect, it } from 'vitest';
import { linkFromFlags } from '../../src/cli/link-flags.js';
import { parseLinkSpec } from '../../src/link/link-spec.js';
import { LinkState } from '../../src/link/link-state.js';
import { parseLossFraction } from '../../src/units.js';

/** A link as bench --links reads it (src/workload/link-list.ts names the flag). */
const benchLink = (spec: string) => parseLinkSpec(spec, '--links');

describe('loss settings: the spellings accepted, and what is refused', () => {
  it('reads 1% and 0.01 alike, in [0, 1)', () => {
    expect(parseLossFraction('1%', '--loss')).toBe(0.01);
    expect(parseLossFraction('0.01', '--loss')).toBe(0.01);
    expect(parseLossFraction('0', '--loss')).toBe(0);
    for (const bad of ['1', '100%', '-1%', 'x', '', '1e-2']) {
      expect(() => parseLossFraction(bad, '--loss')).toThrow(/^--loss: invalid value .*; expected a loss probability in \[0, 1\), written 0.01 or 1%$/);
    }
  });

  it('flags: --loss sets both, --loss-up / --loss-down win; a bad one names its flag', () => {
    expect(linkFromFlags({ loss: '1%', lossDown: '2%', lossBurst: '3', mss: '536' }).update).toEqual({ loss: 0.01, lossDown: 0.02, lossBurst: 3, mssBytes: 536 });
    expect(() => linkFromFlags({ lossUp: '1.5' })).toThrow(/^--loss-up: /);
    expect(() => linkFromFlags({ lossBurst: '0.5' })).toThrow(/^--loss-burst: invalid value "0.5"; expected a mean burst length from 1/);
    // Not a number, or negative: the same message as out of range.
    for (const bad of ['x', '-2']) {
      expect(() => linkFromFlags({ lossBurst: bad })).toThrow(`--loss-burst: invalid value "${bad}"; expected a mean burst length from 1 to 1000000 segments, or 0 for independent losses`);
    }
    expect(() => linkFromFlags({ mss: '100' })).toThrow(/^--mss: invalid value "100"; expected a whole number from 536 to 65535$/);
  });

  it('bench --links: cross-az/loss=0.5% is a preset plus loss; bad keys are named', () => {
    expect(benchLink('cross-az/loss=0.5%')).toMatchObject({ update: { rttUs: 1200, loss: 0.005 }, rttUs: 1200 });
    expect(benchLink('rtt=85ms/loss-down=1%/loss-burst=2/mss=1000').update).toEqual({ rttUs: 85_000, lossDown: 0.01, lossBurst: 2, mssBytes: 1000 });
    expect(() => benchLink('cross-az/loss=1')).toThrow(/^--links loss=: /);
    expect(() => benchLink('cross-az/mss=9')).toThrow('--links mss=: invalid value "9"; expected a whole number from 536 to 65535');
    // As the flags read them: an empty burst was 0 (independent losses) without a word, and 0x5a0 or 1e3 were numbers.
    for (const [spec, key, text] of [['loss-burst=', 'loss-burst=', ''], ['mss=0x5a0', 'mss=', '0x5a0'], ['loss=1%/loss-burst=1e1', 'loss-burst=', '1e1']]) {
      expect(() => benchLink(spec!)).toThrow(`--links ${key}: invalid value "${text}"; expected a `);
    }
    expect(() => linkFromFlags({ mss: '1e3' })).toThrow('--mss: invalid value "1e3"');
    // Loss and burst together: named by the burst as typed, as --loss-burst is.
    expect(() => benchLink('rtt=1ms/loss=60%/loss-burst=1.2')).toThrow(
      /^--links loss-burst=: invalid value "1\.2"; expected a mean burst of at least 1\.5 segments for a loss of 0\.6/,
    );
  });

  it('bench --links: a key given twice, or a preset after the first part, is refused naming it', () => {
    expect(() => benchLink('rtt=2ms/rtt=20ms')).toThrow('--links rtt=: invalid value "rtt=2ms/rtt=20ms"; expected each key at most once in a link');
    expect(() => benchLink('bw=1mbit/bandwidth=2mbit')).toThrow('--links bandwidth=: invalid value');
    expect(() => parseLinkSpec('rtt=2ms/cross-az', '--node-link')).toThrow(
      '--node-link: invalid value "rtt=2ms/cross-az"; expected a preset only as the first part (cross-az/key=value',
    );
    // A preset refined by keys, and rtt refined by up, stay as they were.
    expect(parseLinkSpec('cross-az/rtt=3ms/up=1ms').update).toEqual({ rttUs: 3000, upUs: 1000 });
  });

  it('a refused update leaves the live link as it was, loss and all', () => {
    const link = new LinkState({ rttUs: 1200, loss: 0.01 }, { seed: 1 });
    expect(() => link.update({ rttUs: 9000, lossDown: 1 })).toThrow(/^lossDown: /);
    expect(() => link.update({ loss: 'lots' })).toThrow(/^loss: /);
    expect(link.settings).toMatchObject({ upUs: 600, downUs: 600, lossUp: 0.01, lossDown: 0.01 });
    expect(link.lossPath('up')).toMatchObject({ rate: 0.01, rateAfterLoss: 0.01, resendRate: 0.01, srttNs: 1_200_000 });
    link.update({ lossUp: 0, lossBurst: 4 });
    expect(link.lossPath('up').rate).toBe(0);
    expect(link.lossPath('down')).toMatchObject({ rateAfterLoss: 0.75, resendRate: 0.01 });
  });

  it('RTTVAR is the jitter distribution\'s mean deviation: uniform +-J has J/2', () => {
    const link = new LinkState({ rttUs: 85_000, jitterUs: 10_000, jitterDist: 'uniform', loss: 0.01 }, { seed: 1 });
    expect(link.lossPath('down').rttvarNs).toBeCloseTo(5_000_000, -2);
  });
});
