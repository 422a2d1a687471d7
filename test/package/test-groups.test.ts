/**
 * vitest.config.ts runs its unit files two at a time before everything else, which runs one file at a time.
 * A unit file that opened a socket, spawned a server or timed the wall clock would make the run flaky (a timing
 * check beside another file's load, a port taken twice): each one, and the local helpers it imports, uses none.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unitFiles } from '../../vitest.config.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** What only the serial group may use: sockets, servers, clients, wall-clock time. */
const IMPURE = /node:(?:net|tls|http|https|dgram|child_process)'|from '(?:ioredis|redis)'|startPrivate|start\w*Proxy\(|performance\.now|Date\.now|hrtime\.|setTimeout|waitFor|waitUntil/;

/** The file's text and that of the test-local modules it imports ('./x.js', one level deep). */
function sources(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const local = [...text.matchAll(/from '(\.\/[^']+)\.js'/g)].map((m) => join(ROOT, dirname(file), `${m[1]}.ts`));
  return [text, ...local.filter((f) => existsSync(f)).map((f) => readFileSync(f, 'utf8'))];
}

describe("vitest.config.ts's unit files", () => {
  it('exist, and open no socket, start no server and read no wall clock', () => {
    // Not this file: it spells out what it looks for.
    const checked = unitFiles.filter((f) => f !== 'test/package/test-groups.test.ts');
    const impure = checked.filter((f) => !existsSync(join(ROOT, f)) || sources(f).some((t) => IMPURE.test(t)));
    expect(unitFiles.length).toBeGreaterThan(50);
    expect(impure).toEqual([]);
  });
});
