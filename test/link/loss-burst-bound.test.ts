import { describe, expect, it } from 'vitest';
import { linkFromFlags } from '../../src/cli/link-flags.js';
import { lossChain } from '../../src/link/loss-model.js';
import { parseLinkSchedule } from '../../src/link/schedule.js';
import { applyLinkUpdate, defaultLinkSettings } from '../../src/link/settings.js';
import { normalizeProxyOptions } from '../../src/proxy/normalize-options.js';

// A chain with a mean run of L losses loses at most L / (L + 1) of the segments: asked for more, its good state's rate
// was clamped to 1 and the link lost less than asked, silently (60% with a burst of 1.2 gave 54.5%).
describe('loss and burst together', () => {
  it('refuses a loss the burst cannot hold, naming the burst and the least one that would', () => {
    expect(() => applyLinkUpdate(defaultLinkSettings(), { loss: 0.6, lossBurst: 1.2 })).toThrow(
      'lossBurst: invalid value 1.2; expected a mean burst of at least 1.5 segments for a loss of 0.6',
    );
    // A change of the loss alone on a link that has the burst is refused as well, the link unchanged.
    const link = applyLinkUpdate(defaultLinkSettings(), { loss: 0.3, lossBurst: 1.2 });
    expect(() => applyLinkUpdate(link, { lossDown: 0.7 })).toThrow(/^lossBurst: .*at least 2\.334 segments for a loss of 0\.7/);
    // 0.8 / 0.2 is 4.000000000000001 in floating point: the least burst is 4 (it holds 0.8), not 4.001.
    expect(() => applyLinkUpdate(link, { lossDown: 0.8, lossBurst: 3 })).toThrow(/at least 4 segments for a loss of 0\.8 /);
    expect(applyLinkUpdate(link, { lossDown: 0.8, lossBurst: 4 }).lossBurst).toBe(4);
  });

  it('refuses it in startProxy before anything starts, naming link.lossBurst', () => {
    expect(() => normalizeProxyOptions({ upstream: '127.0.0.1:6379', link: { loss: 0.6, lossBurst: 1.2, partition: '1s' } })).toThrow(
      /^link\.lossBurst: invalid value 1\.2; expected a mean burst of at least 1\.5/,
    );
    expect(normalizeProxyOptions({ upstream: '127.0.0.1:6379', link: { loss: 0.6, lossBurst: 1.5 } }).link).toMatchObject({ loss: 0.6 });
  });

  // A schedule's step was applied unchecked when its time came: the ConfigError, thrown from a timer, ended the proxy.
  it('refuses a schedule whose step would leave a burst too short for the loss, naming the step\'s key', () => {
    expect(() => parseLinkSchedule([{ at: '1s', link: { loss: '60%', lossBurst: 1.2 } }])).toThrow(
      '--link-schedule steps[0].link.lossBurst: invalid value 1.2; expected a mean burst of at least 1.5 segments for a loss of 0.6',
    );
    // Across steps, the loss a step before set; and on a loop's next pass, from where the first pass ended.
    expect(() => parseLinkSchedule([{ at: '1s', link: { loss: 0.6 } }, { at: '2s', link: { lossBurst: 1.2 } }])).toThrow(
      /^--link-schedule steps\[1\]\.link\.lossBurst: invalid value 1\.2; .*\(when this step applies\)$/,
    );
    const loop = [
      { at: '0s', link: { lossBurst: 1.2 } },
      { at: '1s', link: { loss: '60%', lossBurst: 2 } },
      { at: '2s', link: { rttUs: 1000 } },
    ];
    expect(parseLinkSchedule(loop).steps).toHaveLength(3);
    expect(() => parseLinkSchedule({ loop: true, steps: loop })).toThrow(/^--link-schedule steps\[0\]\.link\.lossBurst: .*on the next pass\)$/);
    // Over the start link (the flags'), named as the caller wrote the key; the loss a step sets is named when it has no burst.
    expect(() => normalizeProxyOptions({ upstream: '127.0.0.1:6379', link: { loss: 0.6 }, linkSchedule: [{ at: '1s', link: { lossBurst: 1.2 } }] })).toThrow(
      /^--link-schedule steps\[0\]\.link\.lossBurst: invalid value 1\.2/,
    );
    expect(() => normalizeProxyOptions({ upstream: '127.0.0.1:6379', link: { lossBurst: 1.2 }, linkSchedule: [{ at: '1s', link: { lossUp: '60%' } }] })).toThrow(
      /^--link-schedule steps\[0\]\.link\.lossUp: invalid value "60%"; expected a mean burst of at least 1\.5/,
    );
  });

  it('names the flag on the command line', () => {
    expect(() => linkFromFlags({ loss: '60%', lossBurst: '1.2' })).toThrow(/^--loss-burst: invalid value "1\.2"; expected a mean burst of at least 1\.5/);
    expect(() => linkFromFlags({ lossUp: '0.5', lossBurst: '1' })).not.toThrow();
  });

  it('takes what the chain can hold, its long-run share the loss asked for', () => {
    const s = applyLinkUpdate(defaultLinkSettings(), { loss: 0.5, lossBurst: 1 });
    expect(s.lossUp).toBe(0.5);
    const chain = lossChain(0.54, 1.2);
    // Stationary share g / (1 - b + g) of the chain the proxy builds.
    expect(chain.rate / (1 - chain.rateAfterLoss + chain.rate)).toBeCloseTo(0.54, 9);
    expect(applyLinkUpdate(defaultLinkSettings(), { loss: 0.9, lossBurst: 0 }).lossDown).toBe(0.9);
  });
});
