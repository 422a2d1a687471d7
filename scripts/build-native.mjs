// npm's install step (package.json "install"): builds the timerfd alarm (native/timerfd, Linux only)
// with the node-gyp that npm itself ships. The addon is optional: without it the proxy's scheduler
// sleeps on a worker thread instead (src/link/waker.ts), so a failed build warns and never fails
// the install. REDIS_RTT_NO_NATIVE=1 skips it.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'native', 'timerfd');
const say = (line) => process.stderr.write(`redis-rtt: ${line}\n`);

if (process.platform !== 'linux') {
  say(`no timerfd on ${process.platform}: the scheduler sleeps on a worker thread`);
} else if (process.env.REDIS_RTT_NO_NATIVE === '1') {
  say('REDIS_RTT_NO_NATIVE=1: timerfd alarm not built; the scheduler sleeps on a worker thread');
  rmSync(path.join(dir, 'build'), { recursive: true, force: true });
} else if (existsSync(path.join(dir, 'binding.gyp'))) {
  // npm names its node-gyp in npm_config_node_gyp (and puts it on the PATH of install scripts).
  const gyp = process.env.npm_config_node_gyp;
  const [cmd, args] = gyp ? [process.execPath, [gyp, 'rebuild']] : ['node-gyp', ['rebuild']];
  const r = spawnSync(cmd, args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) {
    const why = r.error ? r.error.message : reason(`${r.stderr ?? ''}\n${r.stdout ?? ''}`);
    say(`timerfd alarm not built (${why}); the scheduler sleeps on a worker thread instead (docs/precision.md)`);
  }
}

/**
 * The cause in node-gyp's output, in one line: what make or the compiler said first ("make: cc: No such file
 * or directory", "timerfd.c:1: error: ..."), else node-gyp's own `gyp ERR! stack Error: ...` ("not found:
 * make"), else the last line. node-gyp's last lines are only `$npm_package_name`, `$npm_package_version`
 * and `not ok`.
 */
function reason(output) {
  const lines = output.split('\n').map((l) => l.trim()).filter(Boolean);
  const tool = lines.find((l) => !l.startsWith('gyp') && /\berror: |No such file or directory|: not found/.test(l));
  if (tool) return tool;
  const stack = lines.find((l) => /^gyp ERR! stack \w*Error: /.test(l));
  if (stack) return stack.replace(/^gyp ERR! stack \w*Error: /, '');
  return lines.at(-1) ?? 'node-gyp failed without output';
}
