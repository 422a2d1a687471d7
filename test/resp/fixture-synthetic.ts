import { buildRequests, type ExpectedRequest } from './fixture-sessions.js';

/**
 * Hand-made fixtures for what redis-server 7.0 never sends (attributes `|`, blob errors `!`,
 * streamed strings and aggregates) or for request edge cases a real client would not produce.
 * Their expected frames come from the reference parser like the recorded ones.
 */
export interface SyntheticFixture {
  name: string;
  up: Buffer;
  down: Buffer;
  upFrames: ExpectedRequest[];
}

const resp3 = [
  // an attribute before a top-level value is folded into it
  '|1\r\n+key-popularity\r\n%2\r\n$1\r\na\r\n,0.1923\r\n$1\r\nb\r\n,0.0012\r\n*2\r\n:2039123\r\n:9543892\r\n',
  // an attribute inside an aggregate is not an element
  '*3\r\n:1\r\n|1\r\n+ttl\r\n:3600\r\n:2\r\n:3\r\n',
  '!21\r\nSYNTAX invalid syntax\r\n',
  '!0\r\n\r\n',
  '(3492890328409238509324850943850943825024385\r\n',
  '(-123\r\n',
  '$?\r\n;4\r\nHell\r\n;5\r\no wor\r\n;1\r\nd\r\n;0\r\n',
  '*?\r\n:1\r\n:2\r\n:3\r\n.\r\n',
  '%?\r\n+a\r\n:1\r\n+b\r\n:2\r\n.\r\n',
  '*2\r\n~?\r\n+x\r\n.\r\n*?\r\n.\r\n',
  '*2\r\n$?\r\n;3\r\nabc\r\n;0\r\n:5\r\n',
  ',inf\r\n,-inf\r\n,nan\r\n,1.5e10\r\n#t\r\n#f\r\n_\r\n',
  '=15\r\ntxt:Some string\r\n',
  `${'*1\r\n'.repeat(200)}:7\r\n`,
  '>3\r\n$7\r\nMESSAGE\r\n$2\r\nch\r\n$4\r\ndata\r\n',
  '|1\r\n+a\r\n+b\r\n>2\r\n+pong\r\n:9\r\n',
  '~2\r\n+a\r\n+b\r\n%0\r\n*0\r\n>0\r\n',
  '*3\r\n+OK\r\n_\r\n:-4\r\n',
  '*2\r\n$-1\r\n:1\r\n',
  '-ERR\r\n-\r\n- leading space\r\n-ThisIsAVeryLongErrorCodeWithMoreThan32Bytes yes\r\n',
  `+${'m'.repeat(33)}\r\n+${'s'.repeat(32)}\r\n+\r\n`,
].join('');

/** Requests a real client would rarely send, but Redis accepts. */
const oddRequests = buildRequests([
  { noop: '*0\r\n' },
  { noop: '*-1\r\n' },
  { cmd: ['set', 'k', ''] },
  { cmd: [''], name: '?' },
  { cmd: ['CLIENT'] },
  { cmd: ['client', 'no-such-sub'], name: 'CLIENT ?' },
  { cmd: ['GET\x00', 'x'], name: '?' },
  { cmd: ['FT.SEARCH', 'idx', '*'] },
  { cmd: ['Config', 'get', 'x'] },
  { noop: '\r\n\r\n\t \r\n' },
  { inline: `SET "a\\"b" 'it\\'s'\n`, argc: 3, name: 'SET' },
  { inline: 'ECHO "x\\y"\r\n', argc: 2, name: 'ECHO' },
  { inline: 'ECHO x\x0by\r\n', argc: 2, name: 'ECHO' },
  { cmd: Array.from({ length: 100 }, (_, i) => (i === 0 ? 'MSET' : `arg${i}`)) },
  { cmd: ['SET', Buffer.alloc(70000, 'k'), 'v'] },
]);

export const SYNTHETIC: SyntheticFixture[] = [
  { name: 'synthetic-resp3', up: Buffer.alloc(0), down: Buffer.from(resp3, 'latin1'), upFrames: [] },
  { name: 'synthetic-requests', up: oddRequests.bytes, down: Buffer.alloc(0), upFrames: oddRequests.frames },
];
