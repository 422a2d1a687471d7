/**
 * The JSON files a user writes by hand, as the CLI reads them: a UTF-8 byte order mark (Windows
 * editors write one) is skipped, and a syntax error says its line and column, on Node 20 too.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { timelineFromFlags } from '../../src/cli/timeline-flags.js';
import { toxicsFromFlags } from '../../src/cli/toxic-flags.js';
import { readConfigFile } from '../../src/toxiproxy-api/toxiproxy-server.js';
import { runCli } from '../hardening/helpers/cli-proxy.js';

const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-config-json-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = (text: string): string => {
  const path = join(dir, `f${++n}.json`);
  writeFileSync(path, text);
  return path;
};
const BOM = '\ufeff';

describe('redis-rtt proxy --config', () => {
  it('reads a file that starts with a byte order mark', async () => {
    const path = file(`${BOM}{"upstream": "127.0.0.1:6379", "link": {"rttUs": 2000}}`);
    const r = await runCli(['proxy', '--config', path, '--print-config']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ upstream: '127.0.0.1:6379', link: { rttUs: 2000 } });
  });

  it('a syntax error exits 2 naming the file, the line and the column', async () => {
    const path = file('{\n  "upstream": "127.0.0.1:6379",\n  "listen": "127.0.0.1:0"\n  "control": "127.0.0.1:0"\n}\n');
    const r = await runCli(['proxy', '--config', path, '--print-config']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--config: invalid value "${path}"; expected a JSON file: `);
    expect(r.stderr).toMatch(/at position 62 \(line 4 column 3\)/);
    expect(r.stdout).toBe('');
  });
});

describe('the other hand-written JSON files', () => {
  it('redis-rtt server --config, --toxics and --link-schedule read a byte order mark and place a syntax error', async () => {
    const proxies = [{ name: 'redis', listen: '127.0.0.1:0', upstream: '127.0.0.1:6379' }];
    expect(await readConfigFile(file(`${BOM}${JSON.stringify(proxies)}`))).toEqual(proxies);
    await expect(readConfigFile(file('[\n  {"name": "a",}\n]'))).rejects.toThrow(/\(line 2 column 16\)/);
    // toxiproxy's populate JSON, read as toxiproxy reads it: a key given twice counts as the last (docs/toxiproxy.md).
    expect(await readConfigFile(file('[{"name": "a", "listen": "127.0.0.1:0", "name": "b"}]'))).toEqual([{ name: 'b', listen: '127.0.0.1:0' }]);
    expect(() => toxicsFromFlags({ toxic: [], toxics: file('[{"type": "latency", "type": "slicer"}]') })).toThrow(/Duplicate key "type"/);
    const toxics = [{ type: 'latency', attributes: { latency: 1 } }];
    expect(toxicsFromFlags({ toxic: [], toxics: file(`${BOM}${JSON.stringify(toxics)}`) }).map((t) => t.type)).toEqual(['latency']);
    expect(() => toxicsFromFlags({ toxic: [], toxics: file('[\n{"type": "latency",}\n]') })).toThrow(/\(line 2 column 20\)/);
    const schedule = [{ at: '1s', link: { rttUs: 5000 } }];
    expect(timelineFromFlags({ linkSchedule: file(`${BOM}${JSON.stringify(schedule)}`) }).linkSchedule).toEqual(schedule);
    expect(() => timelineFromFlags({ linkSchedule: file('[\n\n  {"at": "1s",}]') })).toThrow(/^--link-schedule: .*\(line 3 column 15\)/);
  });
});
