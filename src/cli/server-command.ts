import type { Command } from 'commander';
import { parseNonNegativeInt } from '../units.js';
import { DEFAULT_API } from '../toxiproxy-api/cli-values.js';
import type { ToxiproxyServer } from '../toxiproxy-api/toxiproxy-server.js';
import { collectStartupGarbage } from '../proxy/gc-flags.js';
import { abortOnStop, untilStopSignal } from './stop-request.js';

/** Where the API token may come from instead of argv, as the control endpoint's REDIS_RTT_CONTROL_TOKEN. */
export const API_TOKEN_ENV = 'REDIS_RTT_API_TOKEN';

interface ServerFlags {
  api: string;
  apiToken?: string;
  allowHost: string[];
  config?: string;
  seed?: string;
}

export function registerServer(program: Command): void {
  program
    .command('server')
    .description(
      "A toxiproxy-server for Redis: toxiproxy's v2 HTTP API (same paths, JSON, status codes), each proxy a full " +
        'redis-rtt proxy with its toxics as stages, plus Redis-aware toxics (redis_error, redis_latency, redis_drop, ' +
        'failover). A live dashboard of each proxy at http://API/ui?proxy=NAME. ' +
        'Prints one JSON line {"event":"listening","api":...} on stdout; logs go to stderr.',
    )
    .option('--api <addr>', 'where the HTTP API listens', DEFAULT_API)
    .option('--api-token <token>', `require "Authorization: Bearer <token>" (or set ${API_TOKEN_ENV}, which ps does not show); toxiproxy's clients cannot send one`)
    .option('--allow-host <name>', 'also answer to this Host (name or name:port), e.g. toxiproxy:8474 from a container; repeatable', collect, [])
    .option('--config <file>', "create these proxies at start (toxiproxy's populate JSON: an array of proxies)")
    .option('--seed <n>', 'seed for toxicity rolls and jitter, to repeat a run')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  redis-rtt server\n' +
        '  curl -s -XPOST 127.0.0.1:8474/proxies -d \'{"name":"redis","listen":"127.0.0.1:26379","upstream":"127.0.0.1:6379"}\'\n' +
        '  curl -s -XPOST 127.0.0.1:8474/proxies/redis/toxics -d \'{"type":"latency","attributes":{"latency":0.1}}\'\n' +
        '  # then open http://127.0.0.1:8474/ui?proxy=redis in a browser (with --api-token T: once as /ui?proxy=redis&token=T)\n' +
        '  curl -s -XPOST 127.0.0.1:8474/proxies/redis/toxics -d \'{"type":"redis_error","toxicity":0.1,"attributes":{"commands":["GET"],"error":"LOADING Redis is loading"}}\'\n' +
        '  redis-rtt server --api 0.0.0.0:8474 --allow-host toxiproxy:8474 --config proxies.json',
    )
    .action(async (flags: ServerFlags) => {
      // A signal while starting (reading --config, binding, its proxies starting) waits for the start to end,
      // then closes what it started and says so, as `proxy` does: with Node's default it exited 130 or 143
      // without a word.
      const log = (line: string): void => void process.stderr.write(`redis-rtt server: ${line}\n`);
      const startStop = abortOnStop((quit) => log(`stopping: the start-up was cut short; closing what it started ${quit}`));
      let server: ToxiproxyServer;
      let stopped: Promise<void>;
      try {
        const seed = flags.seed === undefined ? undefined : parseNonNegativeInt(flags.seed, '--seed', 2 ** 53 - 1);
        // Loaded here, not at the top: a command refused at its flags, or another command, loads none of the server.
        const { readConfigFile, startToxiproxyServer } = await import('../toxiproxy-api/toxiproxy-server.js');
        const config = flags.config === undefined ? undefined : await readConfigFile(flags.config);
        const apiToken = flags.apiToken ?? (process.env[API_TOKEN_ENV] || undefined);
        server = await startToxiproxyServer({ api: flags.api, apiToken, allowHosts: flags.allowHost, config, configPath: flags.config, seed });
        if (startStop.signal.aborted) {
          await server.close();
          // main reports it as `stopped on request (...)` with the signal's status (130, 143, 129).
          throw new Error(`${String(startStop.signal.reason)} during start-up; what it started is closed`);
        }
        // The run's stop is in place before the start-up's goes, so no signal finds neither; and before the
        // listening line: a script that signals as soon as it reads the line gets the clean close.
        stopped = untilStopSignal('redis-rtt server: ');
      } finally {
        startStop.dispose();
      }
      collectStartupGarbage();
      process.stdout.write(JSON.stringify({ event: 'listening', api: server.api }) + '\n');
      await stopped;
      await server.close();
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
