// HAProxy 2.6 (Debian's `haproxy`) in TCP mode in front of one Redis: the C proxy the lab measures
// the fast path against (proxy-ab.mjs, the vs-toxiproxy lab command). Run it with `-db -f FILE`
// to keep it in the foreground.

/** Where Debian installs it. */
export const HAPROXY_PATH = '/usr/sbin/haproxy';

/**
 * One frontend on 127.0.0.1:port and one backend server at 127.0.0.1:redisPort, mode tcp.
 * @param {number} port
 * @param {number} redisPort
 * @returns {string}
 */
export function haproxyConfig(port, redisPort) {
  return (
    `global\n  maxconn 4096\ndefaults\n  mode tcp\n  timeout connect 5s\n  timeout client 60s\n  timeout server 60s\n` +
    `frontend f\n  bind 127.0.0.1:${port}\n  default_backend b\nbackend b\n  server r 127.0.0.1:${redisPort}\n`
  );
}
