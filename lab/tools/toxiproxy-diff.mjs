// Differential test of `redis-rtt server` against a real toxiproxy-server: the same HTTP requests to
// both, in the same order, each answer's status, Content-Type and body compared (ports masked).
// Not in CI: it needs the Go binary. Run after `npm run build`:
//   node lab/tools/toxiproxy-diff.mjs --toxiproxy /tmp/toxiproxy-bin/toxiproxy-server [--all]
// Prints each request whose answers differ (with --all, every request), then a count.
import { spawn } from 'node:child_process';
import { flag, freePort, waitPort } from './proc.mjs';
import { startPrivateRedis } from '../../dist/redis/index.js';
import { startToxiproxyServer } from '../../dist/toxiproxy-api/toxiproxy-server.js';

const argv = process.argv.slice(2);
const binary = flag(argv, 'toxiproxy', '/tmp/toxiproxy-bin/toxiproxy-server');
const showAll = argv.includes('--all');

const redis = await startPrivateRedis();
const tpPort = await freePort();
const tp = spawn(binary, ['-host', '127.0.0.1', '-port', String(tpPort)], { stdio: 'ignore' });
await waitPort(tpPort);
const ours = await startToxiproxyServer({ api: '127.0.0.1:0', log: () => undefined, seed: 1 });
const up = redis.address;

/**
 * Each request: [method, path, body?]; `@UP@` in a body is Redis's address.
 * @typedef {[string, string, string?]} Request
 * @type {Request[]}
 */
const REQUESTS = [
  ['GET', '/version'],
  ['GET', '/proxies'],
  ['POST', '/proxies', '{"name":"a","listen":"127.0.0.1:0","upstream":"@UP@"}'],
  ['POST', '/proxies', '{"name":"a","listen":"127.0.0.1:0","upstream":"@UP@"}'],
  ['POST', '/proxies', '{"name":"b","listen":":0","upstream":"@UP@"}'],
  ['POST', '/proxies', '{"name":"c","listen":"localhost:0","upstream":"@UP@"}'],
  ['POST', '/proxies', '{"name":"d","listen":"0","upstream":"@UP@"}'],
  ['POST', '/proxies', '{"name":"e","listen":"[::1]:0","upstream":"@UP@"}'],
  ['POST', '/proxies', '{"name":"f","upstream":"@UP@"}'],
  ['POST', '/proxies', '{"name":"g","listen":"127.0.0.1:0","upstream":"@UP@","enabled":false}'],
  ['POST', '/proxies', '{"name":"h","listen":"127.0.0.1:0","upstream":"@UP@","bogus":1}'],
  ['POST', '/proxies', '{"name":1,"upstream":"@UP@"}'],
  ['POST', '/proxies', '{"name":"i","upstream":5}'],
  ['POST', '/proxies', '{"name":"i","upstream":"@UP@","enabled":"yes"}'],
  ['POST', '/proxies', '{"upstream":"@UP@"}'],
  ['POST', '/proxies', '{"name":"j"}'],
  ['POST', '/proxies', 'not json'],
  ['POST', '/proxies', ''],
  ['POST', '/proxies', '[]'],
  ['POST', '/proxies', 'null'],
  ['POST', '/proxies', '{"name":"k","upstream":"@UP@"}}'],
  ['GET', '/proxies'],
  ['GET', '/proxies/a'],
  ['GET', '/proxies/nope'],
  ['POST', '/proxies/a', '{"enabled":false}'],
  ['POST', '/proxies/a', '{"enabled":true}'],
  ['POST', '/proxies/a', 'not json'],
  ['POST', '/proxies/a', '{"enabled":"no"}'],
  ['POST', '/proxies/nope', '{"enabled":false}'],
  ['PATCH', '/proxies/a', '{"enabled":true}'],
  ['PUT', '/proxies/a', '{"enabled":true}'],
  ['GET', '/proxies/a/toxics'],
  ['POST', '/proxies/a/toxics', '{"type":"latency","attributes":{"latency":10}}'],
  ['POST', '/proxies/a/toxics', '{"type":"latency","attributes":{"latency":10}}'],
  ['POST', '/proxies/a/toxics', '{"type":"latency","stream":"upstream","attributes":{"latency":10,"jitter":2}}'],
  ['POST', '/proxies/a/toxics', '{"type":"latency","stream":"UPSTREAM","name":"up2"}'],
  ['POST', '/proxies/a/toxics', '{"type":"latency","stream":"sideways"}'],
  ['POST', '/proxies/a/toxics', '{"type":"latency","stream":""}'],
  ['POST', '/proxies/a/toxics', '{"type":"nope"}'],
  ['POST', '/proxies/a/toxics', '{"name":"notype"}'],
  ['POST', '/proxies/a/toxics', '{"type":"bandwidth","name":"bw","toxicity":1.5,"attributes":{"rate":100}}'],
  ['POST', '/proxies/a/toxics', '{"type":"bandwidth","name":"bw2","toxicity":-1,"attributes":{"rate":100}}'],
  ['POST', '/proxies/a/toxics', '{"type":"bandwidth","name":"bw3","toxicity":"x","attributes":{"rate":100}}'],
  ['POST', '/proxies/a/toxics', '{"type":"latency","name":"l3","attributes":{"latency":"x"}}'],
  ['POST', '/proxies/a/toxics', '{"type":"latency","name":"l4","attributes":{"latency":1.5}}'],
  ['POST', '/proxies/a/toxics', '{"type":"latency","name":"l5","attributes":{"bogus":1}}'],
  ['POST', '/proxies/a/toxics', '{"type":"slow_close","name":"sc","attributes":{"delay":10}}'],
  ['POST', '/proxies/a/toxics', '{"type":"timeout","name":"to","attributes":{"timeout":10}}'],
  ['POST', '/proxies/a/toxics', '{"type":"slicer","name":"sl","attributes":{"average_size":10}}'],
  ['POST', '/proxies/a/toxics', '{"type":"limit_data","name":"ld","attributes":{"bytes":10}}'],
  ['POST', '/proxies/a/toxics', '{"type":"reset_peer","name":"rp","attributes":{"timeout":10}}'],
  ['POST', '/proxies/a/toxics', '{"type":"noop","name":"no"}'],
  ['POST', '/proxies/a/toxics', '{"type":"nope","stream":"sideways"}'],
  ['POST', '/proxies/a/toxics', '{"type":"latency","name":"q","stream":"sideways","attributes":{"latency":"x"}}'],
  ['POST', '/proxies/a/toxics', '{"type":"nope","name":"q","attributes":{"latency":"x"}}'],
  ['POST', '/proxies/a/toxics', '{"type":"latency","name":"latency_upstream","stream":"sideways"}'],
  ['POST', '/proxies/a/toxics', '{"type":"nope","name":"latency_upstream"}'],
  ['POST', '/proxies/a/toxics', '{"type":"latency","name":"q","toxicity":"x","stream":"sideways"}'],
  ['POST', '/proxies/a/toxics', 'not json'],
  ['POST', '/proxies/a/toxics', ''],
  ['POST', '/proxies/a/toxics', 'null'],
  ['POST', '/proxies/a/toxics', '[]'],
  ['POST', '/proxies/nope/toxics', '{"type":"latency"}'],
  ['GET', '/proxies/a/toxics'],
  ['GET', '/proxies/a/toxics/latency_downstream'],
  ['GET', '/proxies/a/toxics/nope'],
  ['POST', '/proxies/a/toxics/latency_downstream', '{"attributes":{"latency":20}}'],
  ['POST', '/proxies/a/toxics/latency_downstream', '{"toxicity":0.5}'],
  ['POST', '/proxies/a/toxics/latency_downstream', '{"type":"bandwidth","stream":"upstream","name":"zz"}'],
  ['POST', '/proxies/a/toxics/latency_downstream', '{"attributes":{"latency":"x"}}'],
  ['POST', '/proxies/a/toxics/latency_downstream', 'not json'],
  ['POST', '/proxies/a/toxics/latency_downstream', ''],
  ['POST', '/proxies/a/toxics/nope', '{}'],
  ['PATCH', '/proxies/a/toxics/latency_downstream', '{"toxicity":1}'],
  ['PUT', '/proxies/a/toxics/latency_downstream', '{"toxicity":1}'],
  ['DELETE', '/proxies/a/toxics/latency_downstream'],
  ['DELETE', '/proxies/a/toxics/latency_downstream'],
  ['DELETE', '/proxies/nope/toxics/x'],
  ['GET', '/proxies/a'],
  ['POST', '/reset'],
  ['GET', '/reset'],
  ['GET', '/proxies/a'],
  ['POST', '/populate', '[{"name":"p1","listen":"127.0.0.1:0","upstream":"@UP@"}]'],
  ['POST', '/populate', '[]'],
  ['POST', '/populate', '{}'],
  ['POST', '/populate', 'not json'],
  ['POST', '/populate', ''],
  ['POST', '/populate', 'null'],
  ['POST', '/populate', '[{"upstream":"@UP@"}]'],
  ['POST', '/populate', '{"proxies":[]}'],
  ['GET', '/populate'],
  ['DELETE', '/proxies/a'],
  ['DELETE', '/proxies/a'],
  ['GET', '/nope'],
  ['GET', '/'],
  ['GET', '/proxies/a/b/c/d'],
  ['DELETE', '/proxies'],
  ['DELETE', '/version'],
  ['POST', '/version'],
  ['GET', '/proxies/'],
  ['GET', '/proxies?x=1'],
  ['HEAD', '/proxies'],
  ['GET', '/metrics'],
  ['POST', '/proxies', '{"name":"m","listen":"127.0.0.1:0","upstream":"@UP@","toxics":[{"type":"latency"}]}'],
  ['POST', '/proxies/m', '{"name":"renamed"}'],
  ['POST', '/proxies/m', '{}'],
  ['POST', '/proxies/m', 'null'],
  ['POST', '/proxies/m', '{"listen":"127.0.0.1:0"}'],
  ['POST', '/proxies/m', '{"upstream":""}'],
  ['POST', '/proxies/m', '{"listen":""}'],
  ['POST', '/proxies/m', '{"upstream":"127.0.0.1:1"}'],
  ['POST', '/proxies/m', '{"enabled":null}'],
  ['POST', '/proxies/m/toxics', '{"type":"latency","name":"x","toxicity":null,"attributes":null}'],
  ['POST', '/proxies/m/toxics/x', '{"attributes":null,"toxicity":null}'],
  ['POST', '/proxies/m/toxics/x', '{"Attributes":{"Latency":3}}'],
  ['POST', '/proxies/m/toxics/x', '{"attributes":{"jitter":1}}'],
  ['POST', '/proxies/m/toxics/x', '{"toxicity":0}'],
  ['POST', '/proxies/m/toxics/x', '{"toxicity":1e400}'],
  ['POST', '/proxies/m/toxics', '{"type":"latency","name":"big","attributes":{"latency":1e30}}'],
  ['POST', '/proxies/m/toxics', '{"type":"latency","name":"neg","attributes":{"latency":-5}}'],
  ['POST', '/proxies/m/toxics', '{"type":"latency","name":"","attributes":{"latency":5}}'],
  ['POST', '/proxies/m/toxics', '{"type":"LATENCY","name":"upper"}'],
  ['POST', '/proxies/m/toxics', '{"type":"timeout","name":"t","attributes":{"timeout":true}}'],
  ['POST', '/proxies/m/toxics', '{"type":"limit_data","name":"ld","attributes":{"bytes":-1}}'],
  ['POST', '/proxies/m/toxics', '{"type":"slicer","name":"sl","attributes":{"average_size":0}}'],
  ['POST', '/proxies/m/toxics', '{"type":"bandwidth","name":"bw","attributes":{"rate":0}}'],
  ['GET', '/proxies/m/toxics'],
  ['DELETE', '/proxies/m/toxics/x'],
  ['GET', '/proxies/m/toxics/x'],
  ['POST', '/populate', '[{"name":"m","listen":"127.0.0.1:0","upstream":"@UP@","enabled":false}]'],
  ['POST', '/populate', '[{"name":"q1","upstream":"@UP@"},{"name":"q2"}]'],
  ['POST', '/populate', '[{"name":"q3","upstream":"@UP@"},{"name":"q3","upstream":"@UP@"}]'],
  ['POST', '/populate', '[null]'],
  ['POST', '/populate', '[1]'],
  ['GET', '/proxies/q1'],
  ['GET', '/proxies/m'],
  ['POST', '/reset', 'whatever'],
  ['GET', '/proxies/m'],
  ['GET', '/proxies/m/toxics'],
  ['DELETE', '/proxies/m'],
  ['GET', '/version?x'],
  ['POST', '/proxies', '{"name":"busy","listen":"@UP@","upstream":"@UP@"}'],
  ['POST', '/proxies', '{"name":"a b","upstream":"@UP@","listen":"127.0.0.1:0"}'],
  ['GET', '/proxies/a%20b'],
  ['POST', '/proxies/a%20b/toxics', '{"type":"latency","name":"t/x"}'],
  ['GET', '/proxies/a%20b/toxics/t%2Fx'],
  ['DELETE', '/proxies/a%20b/toxics/t%2Fx'],
  ['DELETE', '/proxies/a%20b'],
  ['POST', '/proxies', '{"name":"a/b","upstream":"@UP@","listen":"127.0.0.1:0"}'],
  ['GET', '/proxies/a%2Fb'],
  ['DELETE', '/proxies/a%2Fb'],
  ['POST', '/proxies', '{"name":"ü","upstream":"@UP@","listen":"127.0.0.1:0"}'],
  ['GET', '/proxies/%C3%BC'],
  ['DELETE', '/proxies/%C3%BC'],
  ['GET', '/proxies/%zz'],
  ['GET', '//proxies'],
  ['GET', '/proxies/b/../c'],
];

/**
 * One answer as a client sees it, Redis's and the proxies' ports masked.
 * @param {string} apiAddress
 * @param {Request} request
 */
async function ask(apiAddress, [method, path, body]) {
  const res = await globalThis.fetch(`http://${apiAddress}${path}`, {
    method,
    body: body === undefined ? undefined : body.replaceAll("@UP@", up),
    redirect: 'manual',
  });
  const text = (await res.text()).replaceAll(up, "@UP@").replace(/(127\.0\.0\.1|\[::1?\]|localhost|::1?):\d+/g, '$1:PORT');
  return { status: res.status, type: res.headers.get('content-type'), allow: res.headers.get('allow'), body: text };
}

let differing = 0;
for (const r of REQUESTS) {
  const a = await ask(`127.0.0.1:${tpPort}`, r);
  const b = await ask(ours.api, r);
  const same = a.status === b.status && a.type === b.type && a.body === b.body && a.allow === b.allow;
  if (!same) differing++;
  if (same && !showAll) continue;
  console.log(`${same ? '  ' : '!='} ${r[0]} ${r[1]} ${r[2] ?? ''}`);
  console.log(`   toxiproxy: ${a.status} ${a.type} ${a.allow ?? ''} ${JSON.stringify(a.body)}`);
  console.log(`   redis-rtt: ${b.status} ${b.type} ${b.allow ?? ''} ${JSON.stringify(b.body)}`);
}
console.log(`${differing} of ${REQUESTS.length} requests answered differently`);

tp.kill();
await ours.close();
await redis.stop();
