import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { closedPort } from '../proxy/helpers.js';
import { runCli, startCliProxy } from './helpers/cli-proxy.js';

// Each case is a CLI process that exits at its flags: concurrent, they take a third of the time in CI.
describe.concurrent('every proxy flag with a bad value exits 2 naming the flag and what it accepts', () => {
  const up = ['proxy', '--upstream', '127.0.0.1:1'];
  const cases: { args: string[]; flag: string; accepts: RegExp }[] = [
    { args: [...up, '--rtt', 'abc'], flag: '--rtt', accepts: /duration like 200us/ },
    { args: [...up, '--jitter', '-1ms'], flag: '--jitter', accepts: /duration/ },
    { args: [...up, '--jitter=-1ms'], flag: '--jitter', accepts: /duration/ },
    { args: [...up, '--up', '1 hour'], flag: '--up', accepts: /duration/ },
    { args: [...up, '--down', '2h'], flag: '--down', accepts: /duration/ },
    { args: [...up, '--rtt', '5000s'], flag: '--rtt', accepts: /at most 1 hour/ },
    { args: [...up, '--preset', 'mars'], flag: '--preset', accepts: /local \| docker \| same-az \| cross-az \| cross-region/ },
    { args: [...up, '--jitter-dist', 'weird'], flag: '--jitter-dist', accepts: /uniform, normal, pareto, paretonormal/ },
    { args: [...up, '--bandwidth', 'fast'], flag: '--bandwidth', accepts: /100mbit/ },
    { args: [...up, '--seed', '-3'], flag: '--seed', accepts: /whole number/ },
    { args: [...up, '--high-water', 'lots'], flag: '--high-water', accepts: /size like/ },
    { args: [...up, '--high-water', '10'], flag: '--high-water', accepts: /at least 1024/ },
    { args: [...up, '--connect-timeout', 'soon'], flag: '--connect-timeout', accepts: /duration/ },
    { args: [...up, '--warm-up', '-3'], flag: '--warm-up', accepts: /whole number/ },
    { args: [...up, '--warm-up', '100001'], flag: '--warm-up', accepts: /from 0 to 100000/ },
    { args: [...up, '--compensate', 'maybe'], flag: '--compensate', accepts: /auto, off \(or 0\), a duration like 20us \(a bare number is ms\), or a calibrate --json file \(ENOENT\)/ },
    { args: [...up, '--compensate', '20xx'], flag: '--compensate', accepts: /auto, off \(or 0\), a duration like 20us/ },
    { args: ['proxy', '--upstream', 'non sense'], flag: '--upstream', accepts: /host:port \(port 6379 if left out\)/ },
    // Port 0 means "any free port" only where the proxy listens; an upstream on port 0 is refused.
    { args: ['proxy', '--upstream', 'localhost:0'], flag: '--upstream', accepts: /^(?![\s\S]*any free port)[\s\S]*host:port \(port 6379 if left out\)/ },
    { args: ['proxy', '--upstream', '127.0.0.1:99999'], flag: '--upstream', accepts: /host:port/ },
    { args: [...up, '--listen', 'here'], flag: '--listen', accepts: /host:port/ },
    { args: [...up, '--control', 'x:y'], flag: '--control', accepts: /host:port/ },
    { args: [...up, '--record-keys', 'all'], flag: '--record-keys', accepts: /none|hashed/ },
    // Without --record no trace is written: the flags that shape one are refused, not ignored.
    { args: [...up, '--record-keys', 'hashed'], flag: '--record-keys', accepts: /to be given with --record/ },
    { args: [...up, '--record-max-bytes', '1mb'], flag: '--record-max-bytes', accepts: /to be given with --record/ },
    { args: [...up, '--record-overwrite'], flag: '--record-overwrite', accepts: /to be given with --record/ },
    // With no --control they guard nothing, and were taken without a word.
    { args: [...up, '--control-token', 's3cret'], flag: '--control-token', accepts: /^(?![\s\S]*s3cret)[\s\S]*to be given with --control/ },
    { args: [...up, '--allow-host', 'dash.local'], flag: '--allow-host', accepts: /to be given with --control/ },
    // --print-config exits 2 where the start would (it printed these and exited 0).
    { args: [...up, '--record-keys', 'hashed', '--print-config'], flag: '--record-keys', accepts: /to be given with --record/ },
    { args: [...up, '--record', 'x.trace', '--record-max-bytes', '10', '--print-config'], flag: '--record-max-bytes', accepts: /at least 4kb/ },
    { args: [...up, '--client-zones', '2', '--print-config'], flag: '--client-zones', accepts: /a count with --zones/ },
    { args: [...up, '--zones', '2', '--client-zones', '3', '--print-config'], flag: '--client-zones', accepts: /at most --zones \(2\)/ },
    // An empty token would count as one (allowing 0.0.0.0) and match no request.
    { args: [...up, '--control', '0.0.0.0:0', '--control-token', ''], flag: '--control-token', accepts: /a non-empty token/ },
    { args: ['server', '--api', '0.0.0.0:0', '--api-token', ''], flag: '--api-token', accepts: /a non-empty token/ },
    { args: ['proxy'], flag: '--upstream', accepts: /--upstream: missing; expected host:port/ },
    { args: [...up, '--no-such-flag'], flag: '--no-such-flag', accepts: /unknown option/ },
  ];
  for (const c of cases) {
    it(c.args.slice(1).join(' ') || '(no --upstream)', async () => {
      const r = await runCli(c.args);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(c.flag);
      expect(r.stderr).toMatch(c.accepts);
      expect(r.stderr).toMatch(/^redis-rtt: /); // one prefix, commander's errors included
      expect(r.stdout).toBe(''); // never a listening line
    });
  }
});

describe.concurrent('bench flags with a bad value exit 2 before anything starts', () => {
  const cases: { args: string[]; flag: string; accepts: RegExp }[] = [
    { args: ['bench', '--driver-warmup', 'abc'], flag: '--driver-warmup', accepts: /duration like 200us/ },
    // Flags that mean something only with another are refused without it, not ignored.
    { args: ['bench', '--zones', '3'], flag: '--zones', accepts: /to be given with --cluster/ },
    { args: ['bench', '--client-zones', '2'], flag: '--client-zones', accepts: /to be given with --cluster/ },
    // --cluster runs its own shapes and outputs: these were ignored (no HTML written, no open loop run).
    { args: ['bench', '--cluster', '--html', 'c.html'], flag: '--html', accepts: /no such flag with --cluster/ },
    { args: ['bench', '--cluster', '--modes', 'seq'], flag: '--modes', accepts: /no such flag with --cluster/ },
    { args: ['bench', '--cluster', '--rate', '100'], flag: '--rate', accepts: /no such flag with --cluster/ },
    // Zones give each node its link, client zones run sequential GETs: --links and --batch were ignored.
    { args: ['bench', '--cluster', '--zones', '3', '--links', 'same-az'], flag: '--links', accepts: /no --links with --zones or --client-zones/ },
    { args: ['bench', '--cluster', '--client-zones', '2', '--links', 'cross-az'], flag: '--links', accepts: /no --links with --zones/ },
    { args: ['bench', '--cluster', '--client-zones', '2', '--batch', '5'], flag: '--batch', accepts: /no --batch with --client-zones/ },
    { args: ['bench', '--arrival', 'uniform'], flag: '--arrival', accepts: /to be given with --rate/ },
    { args: ['bench', '--clients', '2', '--arrival', 'uniform'], flag: '--arrival', accepts: /to be given with --rate/ },
    { args: ['bench', '--duration', '5s'], flag: '--duration', accepts: /to be given with --rate or --clients/ },
    // An output that cannot be written is found before the run, not after it.
    { args: ['bench', '--json', '/dev/null/x.json'], flag: '--json', accepts: /a path whose folder can be written/ },
    { args: ['bench', '--hgrm-dir', '/dev/null/h'], flag: '--hgrm-dir', accepts: /a path whose folder can be written/ },
    { args: ['calibrate', '--rtts', '0', '--html', '/dev/null/c.html'], flag: '--html', accepts: /a path whose folder can be written/ },
    // demo measures for a minute: a bad path is found before, not after (it was a stack trace at the end).
    { args: ['demo', '--json', '/dev/null/d.json'], flag: '--json', accepts: /a path whose folder can be written/ },
    { args: ['demo', '--html', '/dev/null/d.html'], flag: '--html', accepts: /a path whose folder can be written/ },
    { args: ['demo', '--cluster', '--json', '/dev/null/d.json'], flag: '--json', accepts: /a path whose folder can be written/ },
    // The cluster demo writes no HTML: an --html given was ignored.
    { args: ['demo', '--cluster', '--html', 'cluster.html'], flag: '--html', accepts: /no --html with --cluster/ },
    // analyze wrote its outputs after reading the trace, and a bad path was a stack trace, exit 1.
    { args: ['analyze', 'missing.trace', '--json', '/dev/null/a.json'], flag: '--json', accepts: /a path whose folder can be written/ },
    { args: ['analyze', 'missing.trace', '--html', '/dev/null/a.html'], flag: '--html', accepts: /a path whose folder can be written/ },
    { args: ['analyze', 'missing.trace', '--html', ''], flag: '--html', accepts: /a file path/ },
    // An empty path passed the folder check ('.') and failed at the end; two outputs on one file replaced each other.
    { args: ['calibrate', '--json', ''], flag: '--json', accepts: /a file path/ },
    { args: ['bench', '--hgrm-dir', ' '], flag: '--hgrm-dir', accepts: /a file path/ },
    { args: ['calibrate', '--json', 'c.json', '--html', './c.json'], flag: '--html', accepts: /a path other than --json's/ },
    { args: ['bench', '--csv', 'r.txt', '--markdown', 'r.txt'], flag: '--markdown', accepts: /a path other than --csv's/ },
    // `-` is stdout for --json only: the others wrote a file named "-" in the working folder.
    { args: ['bench', '--csv', '-'], flag: '--csv', accepts: /- means stdout for --json only/ },
    { args: ['bench', '--json', '-', '--markdown', '-'], flag: '--markdown', accepts: /- means stdout for --json only/ },
    { args: ['bench', '--hgrm-dir', '-'], flag: '--hgrm-dir', accepts: /- means stdout for --json only/ },
    { args: ['demo', '--html', '-'], flag: '--html', accepts: /- means stdout for --json only/ },
    { args: ['report', 'missing.json', '--html', '-'], flag: '--html', accepts: /- means stdout for --json only/ },
    // Only shapes that do not apply to the workload: it spawned Redis and the proxies, reported "(no results)", exit 0.
    { args: ['bench', '--workload', 'incr', '--modes', 'mget,mset'], flag: '--modes', accepts: /applies to the incr workload \(seq, pipeline, multi, lua, auto\)/ },
    { args: ['bench', '--workload', 'get', '--modes', 'mset'], flag: '--modes', accepts: /applies to the get workload/ },
  ];
  for (const c of cases) {
    it(c.args.join(' '), async () => {
      const r = await runCli(c.args);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(c.flag);
      expect(r.stderr).toMatch(c.accepts);
      expect(r.stdout).toBe('');
    });
  }
});

describe('names that are not commands point to what to run', () => {
  for (const [name, flag, instead] of [
    ['overhead', '--repeat', 'npm run lab:overhead'],
    ['bench-framer', '--repeat', 'npm run lab:bench-framer'],
    ['record', '--repeat', 'redis-rtt proxy --upstream HOST:PORT --record FILE'],
    // Its help was commander's usage of a command that does not exist, exit 0.
    ['record', '--help', '`record` is a flag of proxy: `redis-rtt proxy --upstream HOST:PORT --record FILE`'],
  ]) {
    it(`${name} ${flag} exits 2 and says what to run instead`, async () => {
      const r = await runCli([name!, flag!, '3']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(instead);
      expect(r.stderr).not.toContain('Did you mean');
      expect(r.stdout).toBe('');
    });
  }
});

// --no-toxics drops the file's toxics wherever it stands and the toxics flags before it; those after it add.
// `--no-toxics --toxics g.json` kept the file's too: commander's last-given-wins left no --no-toxics to see.
describe.concurrent('--no-toxics, --toxics and --toxic in every order with a config file', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'redis-rtt-no-toxics-'));
    writeFileSync(join(dir, 'f.json'), JSON.stringify({ upstream: '127.0.0.1:1', toxics: [{ type: 'timeout', name: 'file' }] }));
    writeFileSync(join(dir, 'g.json'), JSON.stringify([{ type: 'latency', name: 'g', attributes: { latency: 5 } }]));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const x = ['--toxic', '{"type":"slicer","name":"x"}'];
  const y = ['--toxic', '{"type":"slicer","name":"y"}'];
  const g = ['--toxics', 'DIR/g.json'];
  const cases: { args: string[]; names: string[] }[] = [
    { args: [...g, ...x], names: ['file', 'g', 'x'] },
    { args: ['--no-toxics', ...g], names: ['g'] },
    { args: [...g, '--no-toxics'], names: [] },
    { args: ['--no-toxics', ...x], names: ['x'] },
    { args: [...x, '--no-toxics'], names: [] },
    { args: [...x, ...g, '--no-toxics', ...y], names: ['y'] },
    { args: [...x, '--no-toxics', ...g, ...y], names: ['g', 'y'] },
  ];
  for (const c of cases) {
    it(c.args.join(' ').replaceAll('DIR/', '') || '(the file alone)', async () => {
      const args = c.args.map((a) => a.replace('DIR', dir));
      const r = await runCli(['proxy', '--config', join(dir, 'f.json'), ...args, '--print-config']);
      expect(r.code, r.stderr).toBe(0);
      const printed = JSON.parse(r.stdout) as { toxics?: { name: string }[] };
      expect((printed.toxics ?? []).map((t) => t.name)).toEqual(c.names);
    });
  }
});

describe('listen and upstream problems', () => {
  let busy: net.Server;
  let busyPort: number;
  beforeAll(async () => {
    busy = net.createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    busyPort = (busy.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => busy.close(() => r())));

  it('--listen on a busy port exits 2 with "address already in use", said once', async () => {
    const r = await runCli(['proxy', '--upstream', '127.0.0.1:1', '--listen', `127.0.0.1:${busyPort}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--listen 127.0.0.1:${busyPort}: address already in use`);
    expect(r.stderr.match(/already in use/g)).toHaveLength(1);
  });

  it('--control on a busy port exits 2 with "address already in use"', async () => {
    const r = await runCli(['proxy', '--upstream', '127.0.0.1:1', '--control', `127.0.0.1:${busyPort}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--control 127.0.0.1:${busyPort}: address already in use`);
  });

  it('an unreachable upstream: starts, warns at once, and refuses the first client as Redis would (not accepted and reset)', async () => {
    const port = await closedPort();
    const p = await startCliProxy(['--upstream', `127.0.0.1:${port}`, '--rtt', '10ms']);
    try {
      await vi.waitUntil(() => p.stderr().includes('not reachable now'), { timeout: 5000, interval: 20 });
      expect(p.stderr()).toContain(`warning: upstream 127.0.0.1:${port} not reachable now: ECONNREFUSED; clients are refused until it answers`);
      const s = net.connect({ host: p.host, port: p.port });
      const code = await new Promise<string | undefined>((r) => s.once('error', (e: NodeJS.ErrnoException) => r(e.code)).once('connect', () => r('connected')));
      s.destroy();
      // The start's own dial was refused: no client was accepted, so none was dialed through.
      expect(code).toBe('ECONNREFUSED');
      expect(p.stderr()).not.toMatch(/conn 1: upstream/);
      // Its listener is closed now, while Redis refuses: the probe alone must keep the process up
      // (it once held an unref'd timer, and the proxy exited by itself the moment it stopped listening).
      await vi.waitUntil(() => p.stderr().includes('not listening until it answers'), { timeout: 5000, interval: 20 });
      const back = net.createServer((c) => c.destroy());
      await new Promise<void>((r) => back.listen(port, '127.0.0.1', r));
      try {
        await vi.waitUntil(() => p.stderr().includes('upstream answers again: listening'), { timeout: 5000, interval: 20 });
      } finally {
        await new Promise<void>((r) => back.close(() => r()));
      }
    } finally {
      expect(await p.stop()).toEqual({ code: 0, signal: null });
    }
    expect(p.stderr()).toContain('SIGINT, closing');
  });
});

describe('other commands with a bad value exit 2 (when the command exists)', () => {
  const cases: { args: string[]; flag: string }[] = [
    { args: ['bench', '--batch', '0'], flag: '--batch' },
    { args: ['bench', '--links', 'mars'], flag: '--links' },
    { args: ['calibrate', '--rtts', 'x'], flag: '--rtts' },
    { args: ['analyze', '/nonexistent'], flag: '/nonexistent' },
  ];
  for (const c of cases) {
    it(c.args.join(' '), async () => {
      const r = await runCli(c.args);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(c.flag);
    });
  }
});

describe('an output on the file a command reads is refused, and the file is left as it was', () => {
  // Made when a test of this block runs: at collection, a -t run that skips them all left it behind.
  let dir = '';
  let input = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'redis-rtt-same-file-'));
    input = join(dir, 'app.trace');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // A real bench result, so report would have read it and then written its page over it.
  const benchJson = readFileSync(resolve(import.meta.dirname, '../../fixtures/report/bench-report.json'), 'utf8');
  // INPUT and DIR stand for the paths, known only once beforeAll has run.
  const cases: { args: string[]; flag: string }[] = [
    { args: ['analyze', 'INPUT', '--html', 'INPUT'], flag: '--html' },
    { args: ['analyze', 'INPUT', '--json', 'DIR/./app.trace'], flag: '--json' },
    { args: ['report', 'INPUT', '--html', 'INPUT'], flag: '--html' },
  ];
  for (const c of cases) {
    it(`${c.args[0]!} ${c.flag} on its own input`, async () => {
      const content = c.args[0] === 'report' ? benchJson : 'what the user recorded\n';
      writeFileSync(input, content);
      const r = await runCli(c.args.map((a) => (a === 'INPUT' ? input : a.replace('DIR', dir))));
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`${c.flag}: invalid value`);
      expect(r.stderr).toMatch(/a path other than .*app\.trace, which is read/);
      expect(readFileSync(input, 'utf8')).toBe(content);
    });
  }

  it('a symlink to the input is the input', async () => {
    writeFileSync(input, benchJson);
    const link = join(dir, 'link.html');
    symlinkSync(input, link);
    const r = await runCli(['report', input, '--html', link]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--html: invalid value .*a path other than .*app\.trace, which is read/);
    expect(readFileSync(input, 'utf8')).toBe(benchJson);
  });
});

describe('each demo writes its own JSON by default', () => {
  // demo --cluster wrote redis-rtt-report.json too, over the plain demo's, which is the one `report` reads.
  for (const [args, file] of [
    [['demo'], 'redis-rtt-report.json'],
    [['demo', '--cluster'], 'redis-rtt-cluster.json'],
  ] as const) {
    it(`${args.join(' ')}: ${file}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-demo-json-'));
      try {
        // A folder where the file would go: the demo refuses it before it measures, naming the path it chose.
        mkdirSync(join(dir, file));
        const r = await runCli([...args], 20_000, dir);
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toContain('--json');
        expect(r.stderr).toContain(`"${file}"`);
        expect(r.stderr).toContain('EISDIR');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
