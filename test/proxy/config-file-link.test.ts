/**
 * A config file's link under the link flags (docs/cli.md: a flag given wins over the file's key, the
 * link merging key by key). `--rtt` sets both one-way delays and `--loss` both losses, so they win
 * over the file's upUs/downUs and lossUp/lossDown: the file's one-way keys used to be applied after
 * the flag's rttUs and the proxy ran with the file's delays, the flag ignored.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mergeFileLink } from '../../src/cli/proxy-config.js';
import { runCli, startCliProxy } from '../hardening/helpers/cli-proxy.js';
import { configFiles } from '../helpers/config-files.js';

const files = configFiles('redis-rtt-config-link-');
afterAll(() => files.remove());
const file = files.file;

describe('mergeFileLink', () => {
  it("--rtt replaces the file's upUs and downUs, --loss its lossUp and lossDown; the other keys stay", () => {
    const fileLink = { upUs: 100, downUs: 300, jitterUs: 50, lossUp: 0.1, lossDown: 0.2, lossBurst: 2 };
    expect(mergeFileLink(fileLink, { rttUs: 10_000 })).toEqual({ rttUs: 10_000, jitterUs: 50, lossUp: 0.1, lossDown: 0.2, lossBurst: 2 });
    expect(mergeFileLink(fileLink, { loss: 0.01 })).toEqual({ upUs: 100, downUs: 300, jitterUs: 50, loss: 0.01, lossBurst: 2 });
    // One direction's flag keeps the other direction's key from the file.
    const oneSide = mergeFileLink({ rttUs: 2000, lossUp: 0.1, lossDown: 0.2 }, { upUs: 5000, lossDown: 0.3 });
    expect(oneSide).toEqual({ rttUs: 2000, upUs: 5000, lossUp: 0.1, lossDown: 0.3 });
    expect(mergeFileLink(undefined, { rttUs: 1000 })).toEqual({ rttUs: 1000 });
  });
});

describe('redis-rtt proxy --config FILE --rtt / --loss', () => {
  it('--print-config and the running proxy have the flag\'s delays and losses over the file\'s one-way keys', async () => {
    const path = file({ upstream: '127.0.0.1:6379', cluster: 'off', link: { upUs: 100, downUs: 100, jitterUs: 50, lossUp: 0.1, lossDown: 0.2 } });
    const printed = await runCli(['proxy', '--config', path, '--rtt', '10ms', '--loss', '1%', '--print-config']);
    expect(printed.code, printed.stderr).toBe(0);
    expect((JSON.parse(printed.stdout) as { link: unknown }).link).toEqual({ jitterUs: 50, rttUs: 10_000, loss: 0.01 });

    const p = await startCliProxy(['--config', path, '--rtt', '10ms', '--loss', '1%', '--listen', '127.0.0.1:0']);
    try {
      const link = (p.line as unknown as { link: Record<string, number> }).link;
      expect(link).toMatchObject({ upUs: 5000, downUs: 5000, jitterUs: 50, lossUp: 0.01, lossDown: 0.01 });
    } finally {
      await p.stop();
    }
  });
});
