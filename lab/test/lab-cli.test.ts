import { afterEach, describe, expect, it, vi } from 'vitest';
import { runLab } from '../cli.js';

/** The lab's entry maps bad flags like the shipped CLI: exit 2, naming the flag, before anything starts. */
describe('lab overhead flags with a bad value exit 2 before anything starts', () => {
  let stderr: string[] = [];
  let stdout: string[] = [];
  afterEach(() => vi.restoreAllMocks());
  const capture = () => {
    stderr = [];
    stdout = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => (stderr.push(String(s)), true));
    vi.spyOn(process.stdout, 'write').mockImplementation((s) => (stdout.push(String(s)), true));
  };
  const cases: { args: string[]; flag: string; accepts: RegExp }[] = [
    { args: ['overhead', '--compensate', 'maybe'], flag: '--compensate', accepts: /calibrate --json file \(ENOENT\)/ },
    { args: ['overhead', '--repeat', '0'], flag: '--repeat', accepts: /whole number/ },
    { args: ['overhead', '--rtt', 'abc'], flag: '--rtt', accepts: /duration like 200us/ },
    { args: ['bench-framer', '--frames', 'lots'], flag: '--frames', accepts: /whole number/ },
  ];
  for (const c of cases) {
    it(c.args.join(' '), async () => {
      capture();
      const code = await runLab(['node', 'lab', ...c.args]);
      vi.restoreAllMocks();
      const err = stderr.join('');
      expect(code, err).toBe(2);
      expect(err).toContain(c.flag);
      expect(err).toMatch(c.accepts);
      expect(stdout.join('')).toBe('');
    });
  }
});
