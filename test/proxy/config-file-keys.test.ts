/**
 * Config file keys the start reads through a flag's parser or checks against each other: a bad one
 * exits 2 naming the file and the key (docs/cli.md), with --print-config too. connectTimeoutMs and
 * idleTimeoutMs above an hour used to name `--connect-timeout` / `--idle-timeout` with a value the
 * user never typed ("1000000000000ms"); two toxics with one name (a default TYPE_STREAM included)
 * passed --print-config and then failed the start as `name: invalid value "a"`, no file or key.
 * An unknown key of a toxic or of its attributes was ignored, as toxiproxy's API does.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readProxyConfig } from '../../src/cli/proxy-config.js';
import { toxicsFromFlags } from '../../src/cli/toxic-flags.js';
import type { ConfigError } from '../../src/errors.js';
import { runCli } from '../hardening/helpers/cli-proxy.js';
import { configFiles } from '../helpers/config-files.js';

const files = configFiles('redis-rtt-config-keys-');
afterAll(() => files.remove());
const file = files.file;
const refusal = (path: string): Promise<ConfigError | undefined> => readProxyConfig(path).then(() => undefined, (e: ConfigError) => e);
const upstream = '127.0.0.1:6379';

describe('readProxyConfig names the key', () => {
  it('of a timeout above the hour its flag takes, with the number as written and the bound the schema says', async () => {
    const accepts = {
      connectTimeoutMs: 'milliseconds, from 1 to 3600000 (an hour, as --connect-timeout)',
      idleTimeoutMs: 'a whole number from 0 to 3600000, 0 for off',
    };
    for (const [key, said] of Object.entries(accepts)) {
      const path = file({ upstream, [key]: 3_600_001 });
      const e = await refusal(path);
      expect(e?.flag, key).toBe(`${path}: ${key}`);
      expect(e?.value).toBe(3_600_001);
      expect(e?.accepts).toBe(said);
      expect(await refusal(file({ upstream, [key]: 3_600_000 }))).toBeUndefined();
    }
  });

  it("in the file's own words: what a file is, and each key it may have", async () => {
    // It said startProxy()'s 'an object of proxy options with at least { upstream }' (a file may leave upstream to
    // --upstream), and 'a key of startProxy()'s options or record' (a file has statsJson and sentinels too).
    for (const json of [[1], null, 'x']) {
      const path = file(json);
      expect(await refusal(path)).toMatchObject({ flag: `${path}: (the file)`, accepts: 'a JSON object of proxy options (docs/proxy-options.schema.json)' });
    }
    const typo = file({ upstream, statJson: 's.json' });
    expect((await refusal(typo))?.accepts).toBe("a key of startProxy()'s options, sentinel mode's, record or statsJson (docs/proxy-options.schema.json)");
  });

  it('of the second toxic with a name the first has, its default name included', async () => {
    const cases: [unknown[], string][] = [
      [[{ type: 'latency', name: 'a' }, { type: 'bandwidth', name: 'a', attributes: { rate: 100 } }], 'a'],
      [[{ type: 'noop' }, { type: 'latency' }, { type: 'latency', attributes: { latency: 5 } }], 'latency_downstream'],
    ];
    for (const [toxics, name] of cases) {
      const path = file({ upstream, toxics });
      const e = await refusal(path);
      expect(e?.flag).toBe(`${path}: toxics[${toxics.length - 1}].name`);
      expect(e?.value).toBe(name);
    }
    // Another stream is another default name.
    expect(await refusal(file({ upstream, toxics: [{ type: 'latency' }, { type: 'latency', stream: 'upstream' }] }))).toBeUndefined();
  });
});

describe('readProxyConfig refuses an unknown key of a toxic', () => {
  // toxiproxy's API ignores them (Go's decoder): a misspelled attribute ran the toxic with its default.
  it('in the toxic and in its attributes, naming the path and what the type takes', async () => {
    const misspelled = file({ upstream, toxics: [{ type: 'noop' }, { type: 'latency', attributes: { latncy: 5 } }] });
    const e1 = await refusal(misspelled);
    expect(e1?.flag).toBe(`${misspelled}: toxics[1].attributes.latncy`);
    expect(e1?.accepts).toBe("a key of latency's attributes: latency, jitter");
    const envelope = file({ upstream, toxics: [{ type: 'latency', strem: 'upstream' }] });
    const e2 = await refusal(envelope);
    expect(e2?.flag).toBe(`${envelope}: toxics[0].strem`);
    expect(e2?.accepts).toBe('a key of a toxic: name, type, stream, toxicity, attributes');
    const good = { type: 'redis_latency', name: 'r', stream: 'upstream', toxicity: 0.5, attributes: { commands: ['GET'], keys: 'user:*', latency: 2 } };
    expect(await refusal(file({ upstream, toxics: [good] }))).toBeUndefined();
  });

  it("--print-config's toxics load again: a clamped toxic's read-only `applied` is not printed", async () => {
    const path = file({ upstream, toxics: [{ type: 'latency', toxicity: 2, attributes: { latency: -5 } }] });
    const first = await runCli(['proxy', '--config', path, '--print-config']);
    expect(first.code, first.stderr).toBe(0);
    const printed = JSON.parse(first.stdout) as { toxics: Record<string, unknown>[] };
    expect(printed.toxics[0]).toEqual({ name: 'latency_downstream', stream: 'downstream', toxicity: 2, type: 'latency', attributes: { latency: -5, jitter: 0 } });
    const again = file(printed);
    const second = await runCli(['proxy', '--config', again, '--print-config']);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual(printed);
  });
});

describe('redis-rtt proxy --config --print-config exits 2 where the start would', () => {
  it('a timeout over an hour, a toxic name twice in the file, a --toxic with a name the file has', async () => {
    const timeout = file({ upstream, connectTimeoutMs: 1e12 });
    const twice = file({ upstream, toxics: [{ type: 'latency' }, { type: 'latency' }] });
    const once = file({ upstream, toxics: [{ type: 'latency' }] });
    const list = file([{ type: 'latency' }]);
    const runs = await Promise.all([
      runCli(['proxy', '--config', timeout, '--print-config']),
      runCli(['proxy', '--config', twice, '--print-config']),
      runCli(['proxy', '--config', once, '--toxic', '{"type":"latency"}', '--print-config']),
      runCli(['proxy', '--config', once, '--toxic', '{"type":"latency","name":"second"}', '--print-config']),
      runCli(['proxy', '--config', once, '--toxics', list, '--print-config']),
    ]);
    const [r1, r2, r3, ok, r4] = runs;
    // A --toxics file's toxic is named by its entry (it said --toxic, a flag not given), as is one the file has twice.
    expect(r4!.stderr).toMatch(/^redis-rtt: --toxics \S+ \[0\] name: invalid value "latency_downstream"; expected toxics with distinct names/m);
    expect(r4!.code).toBe(2);
    const twiceInList = file([{ type: 'latency' }, { type: 'latency' }]);
    expect(() => toxicsFromFlags({ toxic: [], toxics: twiceInList })).toThrow(`--toxics ${twiceInList} [1] name: invalid value "latency_downstream"`);
    expect(r1!.stderr).toBe(`redis-rtt: ${timeout}: connectTimeoutMs: invalid value 1000000000000; expected milliseconds, from 1 to 3600000 (an hour, as --connect-timeout)\n`);
    expect(r2!.stderr).toMatch(new RegExp(`^redis-rtt: ${twice}: toxics\\[1\\]\\.name: invalid value "latency_downstream"; expected toxics with distinct names`));
    expect(r3!.stderr).toMatch(/^redis-rtt: --toxic: invalid value "latency_downstream"; expected toxics with distinct names/);
    for (const r of [r1, r2, r3]) {
      expect(r!.code).toBe(2);
      expect(r!.stdout).toBe('');
    }
    expect(ok!.code, ok!.stderr).toBe(0);
    const printed = JSON.parse(ok!.stdout) as { toxics: { name: string }[] };
    expect(printed.toxics.map((t) => t.name)).toEqual(['latency_downstream', 'second']);
  });
});
