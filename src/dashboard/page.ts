/**
 * The dashboard: one self-contained page (style and script inline, nothing fetched but its own
 * /events and the API). What it may control is in its config: an endpoint without a link API or a
 * toxics API shows them read only.
 */
import { esc } from '../svg/escape.js';
import { FONT_FAMILY } from '../svg/frame.js';
import { PAGE_SCRIPT } from './page-script.js';

export interface PageConfig {
  title: string;
  /** The event stream's path. */
  events: string;
  /** PUT here changes the link (the control endpoint's /link); null: the link is shown only. */
  link: string | null;
  /** POST here adds a toxic, DELETE here?name=NAME removes one; null: toxics are shown only. */
  toxics: string | null;
  presets: readonly string[];
  toxicTypes: readonly string[];
}

/**
 * An icon that costs no request: without one, Chromium asks the endpoint for /favicon.ico each time
 * a page opens, and the 404 is an error line in the page's console.
 */
export const NO_ICON = '<link rel="icon" href="data:,">';

const STYLE = `
[hidden] { display: none !important; }
body { font-family: ${FONT_FAMILY}; margin: 0; color: #111; background: #f6f7f9; }
header { display: flex; gap: 16px; align-items: baseline; padding: 12px 20px; background: #1f2937; color: #fff; }
header h1 { font-size: 18px; margin: 0; }
#status.live { color: #86efac; } #status.down { color: #fca5a5; }
body.stale main { opacity: 0.45; }
main { padding: 12px 20px; display: grid; gap: 14px; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); }
section { background: #fff; border: 1px solid #e2e4e8; border-radius: 6px; padding: 10px 14px; }
section.wide { grid-column: 1 / -1; }
h2 { font-size: 14px; margin: 0 0 8px; color: #374151; }
.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 8px; }
.figure { border-left: 3px solid #3b82f6; padding: 2px 8px; }
.figure .name { font-size: 11px; color: #6b7280; } .figure .value { font-size: 18px; font-variant-numeric: tabular-nums; }
table { border-collapse: collapse; width: 100%; font-size: 12px; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: 3px 6px; border-bottom: 1px solid #eef0f3; }
th { color: #6b7280; font-weight: 600; }
.control { display: flex; gap: 6px; align-items: center; margin: 4px 0; flex-wrap: wrap; }
.control label { display: flex; gap: 6px; align-items: center; min-width: 260px; }
.error { color: #b91c1c; font-size: 12px; white-space: pre-line; }
.muted { color: #6b7280; }
#chart svg { max-width: 100%; height: auto; }
textarea { font-family: monospace; width: 100%; }
`;

export function dashboardPage(c: PageConfig): string {
  // JSON in a script element: `<` escaped, so no value can close the element.
  const config = JSON.stringify(c).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
${NO_ICON}<title>${esc(c.title)}</title><style>${STYLE}</style></head>
<body>
<header><h1>${esc(c.title)}</h1><span id="status">connecting</span><span id="window" class="muted"></span></header>
<main>
<section class="wide"><h2>Traffic (per second, over the window)</h2><div class="figures">
${figure('commands', 'commands (up)')}${figure('replies', 'replies (down)')}${figure('roundTrips', 'round trips')}
${figure('bytesUp', 'bytes up')}${figure('bytesDown', 'bytes down')}${figure('errorReplies', 'error replies')}
${figure('connections', 'connections')}${figure('self', 'self: added by the proxy')}${figure('late', 'self: delivery lateness')}
</div></section>
<section id="link-section"><h2>Link</h2><p data-figure="link"></p>
<div id="node-choice" class="control" hidden><label>node <select id="node-select"></select></label></div>
<div id="link-controls"></div><div id="loss-controls"></div>
<form id="preset-form" class="control"><label>preset <select id="preset-select"></select></label><button id="preset-apply">Apply</button><span class="error" id="preset-error" role="alert"></span></form>
</section>
<section><h2>Toxics</h2>
<table><thead><tr><th>name</th><th>type</th><th>stream</th><th>toxicity</th><th>attributes</th><th>applied</th><th></th></tr></thead><tbody id="toxics-body"></tbody></table>
<p id="toxics-empty" class="muted">none</p>
<form id="toxic-form">
<div class="control"><label>type <select id="toxic-type"></select></label><label>stream <select id="toxic-stream"><option>downstream</option><option>upstream</option></select></label></div>
<div class="control"><label>name <input id="toxic-name" placeholder="TYPE_STREAM"></label><label>toxicity <input id="toxic-toxicity" value="1" size="4"></label></div>
<label>attributes (JSON) <textarea id="toxic-attributes" rows="2">{}</textarea></label>
<div class="control"><button id="toxic-add">Add toxic</button><span class="error" id="toxic-error" role="alert"></span></div>
</form></section>
<section><h2>Commands over the window</h2>
<table><thead><tr><th>command</th><th>answered</th><th>per second</th><th>p50</th><th>p99</th><th>max</th></tr></thead><tbody id="commands-body"></tbody></table>
<p id="commands-empty" class="muted">none yet</p></section>
<section><h2>Latency</h2><div id="chart"></div></section>
<section id="nodes" class="wide" hidden><h2>Nodes</h2>
<table><thead><tr><th>node</th><th>listener</th><th id="nodes-client-zone" hidden>client zone</th><th>role</th><th>zone</th><th>link</th><th>RTT</th><th>commands</th><th>round trips</th><th>bytes up</th><th>bytes down</th><th>connections</th></tr></thead><tbody id="nodes-body"></tbody></table>
</section>
</main>
<script type="application/json" id="dashboard-config">${config}</script>
<script>${PAGE_SCRIPT}</script>
</body></html>
`;
}

function figure(name: string, label: string): string {
  return `<div class="figure"><div class="name">${esc(label)}</div><div class="value" data-figure="${name}">-</div></div>`;
}
