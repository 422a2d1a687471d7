/**
 * Connection set-up: the round trips a connection pays before its first real command. Pure.
 *
 *   TCP connect      1 RTT (SYN / SYN-ACK) before the client can send its first byte; only for a
 *                    connection opened during the recording, and only when the what-if charges it
 *   TLS              TLS 1.3 1 RTT, TLS 1.2 2 (1 when the session was resumed), from the trace's tls line
 *   set-up commands  the leading round trips that carry only HELLO, AUTH, SELECT, CLIENT SETNAME /
 *                    SETINFO / MAINT_NOTIFICATIONS, READONLY...: the client's own hand-shake, already round trips in the trace
 *
 * The handshakes are not round trips the tap sees (they carry no RESP), so the projection adds them;
 * the set-up commands are ordinary round trips that this only labels.
 */
import { fmtUsSetting } from '../format.js';
import type { ConnectionTimeline } from './timeline.js';

/**
 * Sent by clients on connect, before the application's first command. CLIENT subcommands by name.
 * node-redis 5 sends CLIENT MAINT_NOTIFICATIONS in its connect round trip, with HELLO and SETINFO.
 */
export const SETUP_COMMANDS: ReadonlySet<string> = new Set([
  'HELLO', 'AUTH', 'SELECT', 'READONLY', 'READWRITE',
  'CLIENT SETNAME', 'CLIENT SETINFO', 'CLIENT TRACKING', 'CLIENT NO-EVICT', 'CLIENT NO-TOUCH', 'CLIENT MAINT_NOTIFICATIONS',
]);

export function isSetupCommand(name: string): boolean {
  return SETUP_COMMANDS.has(name.replace('|', ' '));
}

/** Round trips of a TLS handshake by version, as Node names it ("TLSv1.3"). */
export function tlsRoundTrips(version: string, resumed: boolean): number {
  if (version === 'TLSv1.3') return 1;
  // TLS 1.2 and older: a full handshake is two round trips before application data, a resumed one one.
  return resumed ? 1 : 2;
}

export interface ConnectionSetup {
  /** Opened during the recording (has an open line): pays a TCP connect. */
  opened: boolean;
  /** 0 or 1. */
  tcpRoundTrips: number;
  tlsRoundTrips: number;
  /** Leading round trips that carried only set-up commands. */
  commandRoundTrips: number;
}

/** What set-up cost one connection. `tcp`: charge the TCP connect (the what-if's --no-handshake turns it off). */
export function connectionSetup(t: ConnectionTimeline, tcp = true): ConnectionSetup {
  let commandRoundTrips = 0;
  for (const rt of t.roundTrips) {
    if (!rt.commands.every((c) => isSetupCommand(c.name))) break;
    commandRoundTrips++;
  }
  const opened = t.openUs !== undefined;
  // A connection that sent nothing (a port probe, a client that gave up) delays no command: not charged.
  const sent = t.roundTrips.length > 0;
  return {
    opened,
    tcpRoundTrips: opened && tcp && sent ? 1 : 0,
    tlsRoundTrips: t.tls && sent ? tlsRoundTrips(t.tls.version, t.tls.resumed) : 0,
    commandRoundTrips,
  };
}

/** Set-up across the session: what `analyze` reports next to the what-if. */
export interface SetupSummary {
  /** Connections opened during the recording. */
  opened: number;
  /** Connections by TLS version ("TLSv1.3": 12); empty without client TLS. */
  tls: Record<string, number>;
  /** TCP connects and TLS handshake round trips, summed over connections (not seen by the tap). */
  tcpRoundTrips: number;
  tlsRoundTrips: number;
  /** Leading round trips of set-up commands, summed over connections (counted in the round trips too). */
  commandRoundTrips: number;
  /** The set-up commands in them by name ("HELLO": 40), and how many other commands the session sent. */
  setupCommands: Record<string, number>;
  otherCommands: number;
  /** Round trips each connection spends on set-up before its first real command, on average. */
  perConnection: number;
}

export function summarizeSetup(timelines: readonly ConnectionTimeline[], tcp = true): SetupSummary {
  const s: SetupSummary = {
    opened: 0, tls: {}, tcpRoundTrips: 0, tlsRoundTrips: 0, commandRoundTrips: 0, setupCommands: {}, otherCommands: 0, perConnection: 0,
  };
  for (const t of timelines) {
    const c = connectionSetup(t, tcp);
    if (c.opened) s.opened++;
    if (t.tls) s.tls[t.tls.version] = (s.tls[t.tls.version] ?? 0) + 1;
    s.tcpRoundTrips += c.tcpRoundTrips;
    s.tlsRoundTrips += c.tlsRoundTrips;
    s.commandRoundTrips += c.commandRoundTrips;
    t.roundTrips.forEach((rt, i) => {
      if (i >= c.commandRoundTrips) s.otherCommands += rt.commands.length;
      else for (const cmd of rt.commands) s.setupCommands[cmd.name] = (s.setupCommands[cmd.name] ?? 0) + 1;
    });
    s.otherCommands += t.noRoundTrip.length;
  }
  const n = timelines.length;
  s.perConnection = n > 0 ? Math.round(((s.tcpRoundTrips + s.tlsRoundTrips + s.commandRoundTrips) / n) * 100) / 100 : 0;
  return s;
}

/** Any set-up at all to show. */
export function hasSetup(s: SetupSummary): boolean {
  return s.tcpRoundTrips + s.tlsRoundTrips + s.commandRoundTrips > 0;
}

/** Set-up share at or above which analyze says so. */
export const SETUP_SHARE_WARN_PCT = 20;

/**
 * One line of advice when set-up is a large share of the time waited at the largest RTT projected.
 * `rows`: the projections, each with its set-up share.
 */
export function setupAdvice(s: SetupSummary, rows: readonly { rttUs: number; setupSharePct: number }[]): string | undefined {
  const worst = rows.reduce<(typeof rows)[number] | undefined>((w, r) => (w && w.rttUs >= r.rttUs ? w : r), undefined);
  if (!worst || s.opened < 2 || worst.setupSharePct < SETUP_SHARE_WARN_PCT) return undefined;
  return (
    `${s.opened} connections opened for ${s.otherCommands} commands: connection set-up is ${worst.setupSharePct.toFixed(0)}% ` +
    `of the time waited at RTT ${fmtUsSetting(worst.rttUs)} (${s.perConnection} round ${s.perConnection === 1 ? 'trip' : 'trips'} per connection before its first command); ` +
    'reuse connections (a pool, one long-lived client)'
  );
}
