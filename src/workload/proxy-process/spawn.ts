import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PROXY_PROCESS_V8_FLAGS } from '../../proxy/gc-flags.js';
import type { FromChild, ProxyReading, StartableProxyOptions, ToChild } from './messages.js';

/**
 * A bench link's proxy in a process of its own, so the driver's event loop (the clients, the
 * open-loop generator) never waits behind the delay lines it measures, and process.cpuUsage() in
 * the driver counts the driver alone.
 */
export interface ProxyProcess {
  readonly address: string;
  /** What the proxy takes off each one-way delay (measured at start with compensation 'auto'). */
  readonly compensationUs: { up: number; down: number };
  readonly pid: number;
  /** The proxy's /stats snapshot and its process's CPU, over IPC. */
  read(): Promise<ProxyReading>;
  /** Closes the proxy and waits for its process to exit (SIGKILL after a grace period). Idempotent. */
  close(): Promise<void>;
}

export interface ProxyProcessOptions {
  /** Names the proxy in errors: the link's name. */
  label?: string;
  /** How long the child may take to load and listen. @default 20000 */
  startTimeoutMs?: number;
  /** How long close() waits for a clean exit before SIGKILL. @default 3000 */
  closeTimeoutMs?: number;
}

/**
 * The child runs from the built library whichever tree the driver runs from: src/ and dist/ sit
 * side by side under the package root with the same layout, so one relative path serves both.
 */
export const CHILD_ENTRY = fileURLToPath(new URL('../../../dist/workload/proxy-process/child.js', import.meta.url));

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/** How many proxy processes this process has running (for tests). */
export function liveProxyProcesses(): number {
  return live.size;
}

function track(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // process.exit() (a second Ctrl-C) skips every finally: kill what is left. A driver killed
  // outright closes the IPC channel instead, and the child ends itself on 'disconnect'.
  process.on('exit', () => {
    for (const c of live) c.kill('SIGKILL');
  });
}

/** A proxy process forked and loading; start() runs its proxy once it has loaded. */
export interface ForkedProxy {
  /** Resolves once the proxy listens; rejects with the proxy's start-up error (the process is gone then). Once. */
  start(proxyOptions: StartableProxyOptions): Promise<ProxyProcess>;
  /** Ends the process, started or not. Idempotent. */
  close(): Promise<void>;
}

/**
 * Forks a proxy process now and lets it load (a Node start-up and the proxy's modules: the longest
 * part of starting one), so a run can fork every link's process at once, first, and start each
 * proxy when its link opens.
 */
export function forkProxyProcess(opts: ProxyProcessOptions = {}): ForkedProxy {
  if (!existsSync(CHILD_ENTRY)) {
    throw new Error(`${CHILD_ENTRY} is missing: run \`npm run build\` (bench runs each link's proxy from the built library)`);
  }
  // Not the driver's execArgv (a test runner's loaders, --inspect are not the proxy's): the proxy's own.
  // A process group of its own (as the private redis-server): a Ctrl-C in a terminal reaches the
  // whole group, and a child still loading has not yet set SIGINT aside, so it died and the run
  // ended in its start-up error instead of stopping. The driver ends it (close, the exit hook),
  // and it ends itself when the IPC channel closes.
  const child = fork(CHILD_ENTRY, [], { execArgv: [...PROXY_PROCESS_V8_FLAGS], stdio: ['ignore', 'ignore', 'pipe', 'ipc'], detached: true });
  track(child);
  let stderrTail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (s: string) => {
    stderrTail = (stderrTail + s).slice(-2000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const pending = new Map<number, { resolve: (r: ProxyReading) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let gone: Error | undefined;
  let ready = false;
  let onReady: (() => void) | undefined;
  let onStart: ((m: FromChild) => void) | undefined;
  let closing = false;

  const goneError = (code: number | null, signal: NodeJS.Signals | null): Error => {
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    const tail = stderrTail.trim();
    return new Error(`the proxy process of ${opts.label ?? 'a link'} (pid ${child.pid}) ${how}${tail ? `: ${tail}` : ''}`);
  };
  child.once('exit', (code, signal) => {
    gone = goneError(code, signal);
    for (const p of pending.values()) p.reject(gone);
    pending.clear();
    onStart?.({ type: 'failed', message: gone.message });
  });
  child.on('error', () => {}); // a failed send surfaces as 'exit'
  const send = (m: ToChild): void => {
    if (child.connected) child.send(m);
  };
  child.on('message', (m: FromChild) => {
    if (m.type === 'reading') {
      pending.get(m.id)?.resolve(m.reading);
      pending.delete(m.id);
    } else if (m.type === 'ready') {
      ready = true;
      onReady?.();
    } else if (m.type === 'started' || m.type === 'failed') onStart?.(m);
  });

  const close = async (): Promise<void> => {
    if (!closing) {
      closing = true;
      send({ type: 'close' });
      const timeout = setTimeout(() => child.kill('SIGKILL'), opts.closeTimeoutMs ?? 3000);
      await exited;
      clearTimeout(timeout);
    }
    await exited;
  };

  const start = async (proxyOptions: StartableProxyOptions): Promise<ProxyProcess> => {
    const timeoutMs = opts.startTimeoutMs ?? 20_000;
    let started: Extract<FromChild, { type: 'started' }>;
    try {
      if (gone) throw gone;
      started = await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the proxy process of ${opts.label ?? 'a link'} did not start within ${timeoutMs} ms`)), timeoutMs);
        onStart = (m) => {
          clearTimeout(timer);
          onStart = undefined;
          if (m.type === 'started') resolve(m);
          else reject(new Error(m.type === 'failed' ? m.message : 'the proxy process did not start'));
        };
        const go = (): void => send({ type: 'start', options: proxyOptions });
        if (ready) go();
        else onReady = go;
      });
    } catch (err) {
      await close();
      throw err;
    }
    return {
      address: started.address,
      compensationUs: started.compensationUs,
      pid: child.pid ?? -1,
      read: () =>
        new Promise<ProxyReading>((resolve, reject) => {
          if (gone || closing) return reject(gone ?? new Error('the proxy process is closed'));
          const id = nextId++;
          pending.set(id, { resolve, reject });
          send({ type: 'read', id });
        }),
      close,
    };
  };
  return { start, close };
}

export function startProxyProcess(proxyOptions: StartableProxyOptions, opts: ProxyProcessOptions = {}): Promise<ProxyProcess> {
  return forkProxyProcess(opts).start(proxyOptions);
}
