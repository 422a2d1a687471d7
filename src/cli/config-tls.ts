/**
 * A config file's `upstreamTls` and `listenTls` beside the TLS flags: their files read when the
 * file is (a ConfigError names the file's key, `proxy.json: upstreamTls.ca`, not a flag the user
 * never typed), and merged key by key under the flags, as the link is (`--upstream-ca` over the
 * file's `"upstreamTls": true` keeps TLS on, adding the CA).
 */
import { ConfigError } from '../errors.js';
import { checkTlsFiles, type ListenTlsOptions, type TlsFieldNames, type UpstreamTlsOptions } from '../tls/options.js';
import type { TlsFlagValues } from './tls-flags.js';

/** Each side's key in the file, its on/off flag, and the flag of each of its fields. */
const SIDES = {
  upstreamTls: { on: 'upstreamTls', fields: { ca: 'upstreamCa', servername: 'upstreamServername', cert: 'upstreamCert', key: 'upstreamKey', insecure: 'upstreamInsecure' } },
  listenTls: { on: 'listenTls', fields: { cert: 'tlsCert', key: 'tlsKey', ca: 'listenTlsCa', maxVersion: 'tlsMaxVersion' } },
} as const satisfies Record<string, { on: keyof TlsFlagValues; fields: Record<string, keyof TlsFlagValues> }>;

/** Reads the TLS files a config file names, each error naming the file and its key (`at('upstreamTls.ca')`). */
export function checkConfigTls(config: Record<string, unknown>, at: (key: string) => string): void {
  try {
    checkFileTls(config);
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(at(err.flag), err.value, err.accepts);
    throw err;
  }
}

function checkFileTls(config: Record<string, unknown>): void {
  const upstreamNames: TlsFieldNames<UpstreamTlsOptions> = { ca: 'upstreamTls.ca', servername: 'upstreamTls.servername', cert: 'upstreamTls.cert', key: 'upstreamTls.key' };
  const listenNames: TlsFieldNames<ListenTlsOptions> = { cert: 'listenTls.cert', key: 'listenTls.key', ca: 'listenTls.ca' };
  checkTlsFiles(config.upstreamTls as UpstreamTlsOptions | undefined, config.listenTls as ListenTlsOptions | undefined, upstreamNames, listenNames);
}

/**
 * Where a TLS flag of a side is given and the file turns that side on, the file's fields become
 * flags too, under those given: the flags then describe the whole side. A side no flag touches
 * stays in the file, as it was read. `--no-upstream-tls` / `--no-listen-tls` turn the side off with
 * all the file's fields (a field flag beside it is then refused as without the file, by tlsFromFlags).
 */
export function mergeConfigTls(out: Record<string, unknown>, file: Record<string, unknown>, given: (attr: string) => boolean): void {
  for (const [key, side] of Object.entries(SIDES)) {
    const attrs: string[] = [side.on, ...Object.values(side.fields)];
    if (!attrs.some(given)) continue;
    const value = file[key];
    delete file[key];
    if (value === undefined || value === false || (given(side.on) && out[side.on] === false)) continue;
    out[side.on] = true;
    if (value === true) continue;
    for (const [field, attr] of Object.entries(side.fields)) {
      const v = (value as Record<string, unknown>)[field];
      if (v !== undefined && !given(attr)) out[attr] = v;
    }
  }
}
