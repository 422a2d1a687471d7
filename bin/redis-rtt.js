#!/usr/bin/env -S node --no-memory-reducer --expose-gc
// Thin launcher: the CLI lives in src/cli (compiled to dist/) so it can be type-checked and tested.
// The flags in the line above: no garbage collection of start-up's in the middle of a measurement
// (src/proxy/gc-flags.ts). `node bin/redis-rtt.js` runs without them.
import { main } from '../dist/cli/main.js';

// `redis-rtt ... | head` closes the pipe early: that is not an error worth a stack trace.
// EIO: the terminal closed (SIGHUP, which stops the run, may come after it): the lines are lost,
// the run goes on to write its files. Rethrown, it ended the process before its close.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err && err.code === 'EPIPE') process.exit(0);
    if (err && err.code === 'EIO') return;
    throw err;
  });
}

main(process.argv).then(
  (code) => {
    if (typeof code === 'number') process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`redis-rtt: ${err && err.stack ? err.stack : err}\n`);
    process.exitCode = 1;
  },
);
