// Every --help (the program's and each command's) ends with examples, and each example's flags are
// flags of the command it runs: an example is what a user copies first.
import type { Command } from 'commander';
import { describe, expect, it, vi } from 'vitest';
import { buildProgram, main } from '../../src/cli/main.js';

/** The whole help text as `--help` prints it, the 'after' examples included. */
function helpOf(cmd: Command): string {
  let out = '';
  cmd.configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (out += s) });
  cmd.outputHelp();
  return out;
}

/** Each `redis-rtt CMD ...` in the examples, up to a comment, pipe or `;`: [CMD, its --flags]. */
function exampleRuns(help: string): [string, string[]][] {
  const examples = help.slice(help.indexOf('\nExamples:\n'));
  const runs: [string, string[]][] = [];
  for (const m of examples.matchAll(/redis-rtt (\w[\w-]*)([^#|;\n]*)/g)) {
    const flags = [...m[2]!.matchAll(/(?:^|\s)(--[a-z][a-z0-9-]*)/g)].map((f) => f[1]!);
    runs.push([m[1]!, flags]);
  }
  return runs;
}

const program = buildProgram();
const commands = program.commands.filter((c) => !(c as unknown as { _hidden: boolean })._hidden);

describe('--help', () => {
  it('reads the examples of a help text: each run with its flags', () => {
    const help = 'Options:\n  --x\n\nExamples:\n  redis-rtt bench --links a --json - | jq .x   # --not-this\n  a; redis-rtt demo\n';
    expect(exampleRuns(help)).toEqual([
      ['bench', ['--links', '--json']],
      ['demo', []],
    ]);
  });

  for (const cmd of [program, ...commands]) {
    const name = cmd === program ? 'redis-rtt' : `redis-rtt ${cmd.name()}`;
    it(`${name} --help ends with examples, each a command that exists with flags it takes`, () => {
      const help = helpOf(cmd);
      expect(help).toContain('\nExamples:\n');
      const runs = exampleRuns(help);
      if (cmd !== program) expect(runs.map(([c]) => c)).toContain(cmd.name());
      expect(runs.length).toBeGreaterThan(0);
      const wrong: string[] = [];
      for (const [sub, flags] of runs) {
        const target = program.commands.find((c) => c.name() === sub);
        if (!target) {
          wrong.push(`redis-rtt ${sub}: no such command`);
          continue;
        }
        const known = new Set([...target.options.map((o) => o.long), '--help']);
        for (const f of flags) if (!known.has(f)) wrong.push(`redis-rtt ${sub} ${f}: no such flag`);
      }
      expect(wrong).toEqual([]);
    });
  }

  it("names analyze's argument TRACE, as its error does (the help said <file>, the error 'TRACE: ...')", async () => {
    const analyze = program.commands.find((c) => c.name() === 'analyze')!;
    expect(helpOf(analyze)).toContain('Usage: redis-rtt analyze [options] <TRACE>');
    let stderr = '';
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((stderr += String(s)), true));
    try {
      expect(await main(['node', 'redis-rtt', 'analyze', '/nonexistent/app.trace'])).toBe(2);
    } finally {
      spy.mockRestore();
    }
    expect(stderr).toMatch(/^redis-rtt: TRACE: invalid value "\/nonexistent\/app.trace"/);
  });
});
