/**
 * The dashboard page's script, as text: it runs in the browser (no build step, no library), so it
 * is plain ES2020 in a string. It renders each `stats` event and sends the controls' changes to
 * the same API a script would use, showing the API's error, or the warnings of a change it made,
 * beside the control that caused it.
 * Text from the proxy (command names, toxic names) is set with textContent, never as markup; the
 * chart's SVG comes from the proxy's own chart code, which escapes every label.
 */
import { STREAM_RETRY_MS } from './event-streams.js';

export const PAGE_SCRIPT = String.raw`
(() => {
  'use strict';
  const cfg = JSON.parse(document.getElementById('dashboard-config').textContent);
  const $ = (id) => document.getElementById(id);
  const fixed = (v, d) => (Math.round(v * 10 ** d) / 10 ** d).toString();
  const fmtRate = (n) => (n >= 1e6 ? fixed(n / 1e6, 2) + ' M' : n >= 1e4 ? fixed(n / 1e3, 1) + ' k' : fixed(n, n < 10 ? 1 : 0));
  const fmtBytes = (n) => (n >= 1048576 ? fixed(n / 1048576, 2) + ' MiB' : n >= 1024 ? fixed(n / 1024, 1) + ' KiB' : fixed(n, 0) + ' B');
  const fmtUs = (us) => (us >= 1e6 ? fixed(us / 1e6, 2) + ' s' : us >= 1000 ? fixed(us / 1000, us >= 1e4 ? 1 : 2) + ' ms' : fixed(us, 0) + ' us');
  const fmtBps = (bps) => (bps === 0 ? 'unlimited' : bps >= 1e9 ? fixed(bps / 1e9, 2) + ' Gbit/s' : bps >= 1e6 ? fixed(bps / 1e6, 2) + ' Mbit/s' : fixed(bps / 1e3, 1) + ' kbit/s');
  const set = (name, text) => { for (const el of document.querySelectorAll('[data-figure="' + name + '"]')) el.textContent = text; };
  const row = (cells) => { const tr = document.createElement('tr'); for (const c of cells) { const td = document.createElement('td'); if (c instanceof Node) td.append(c); else td.textContent = String(c); tr.append(td); } return tr; };
  const fill = (id, rows) => { const body = $(id); body.replaceChildren(...rows); };
  const lossKeys = (link) => Object.keys(link).filter((k) => /loss/i.test(k));
  let last = null;

  // Without the tap (--no-tap) the proxy counts no traffic: its rates would read 0/s while traffic flows.
  const OFF = 'off (no tap)';
  const rate = (e, text) => (e.countsOff ? OFF : text);

  function render(e) {
    last = e;
    // A stats event means the stream is up; a disabled proxy (redis-rtt server) still sends its last stats.
    const disabled = e.enabled === false;
    status.textContent = disabled ? 'disabled: its last stats' : 'live';
    status.className = disabled ? 'down' : 'live';
    document.body.classList.toggle('stale', disabled);
    $('window').textContent = 'last ' + fixed(e.windowMs / 1000, 1) + ' s';
    const r = e.rates;
    set('commands', rate(e, fmtRate(r.commands) + '/s'));
    set('replies', rate(e, fmtRate(r.replies) + '/s'));
    set('roundTrips', rate(e, fmtRate(r.roundTrips) + '/s'));
    set('bytesUp', rate(e, fmtBytes(r.bytesUp) + '/s'));
    set('bytesDown', rate(e, fmtBytes(r.bytesDown) + '/s'));
    set('errorReplies', rate(e, fmtRate(r.errorReplies) + '/s'));
    set('connections', e.connections.active + ' open, ' + e.connections.total + ' total');
    const own = e.self && (e.self.roundTripAddedUs.count > 0 ? e.self.roundTripAddedUs : e.self.addedUs);
    set('self', own ? 'p50 ' + fmtUs(own.p50) + ', p99 ' + fmtUs(own.p99) + ', max ' + fmtUs(own.max) : '-');
    set('late', e.self ? 'p99 ' + fmtUs(e.self.lateUs.p99) : '-');
    const l = e.link;
    const extra = lossKeys(l).map((k) => ', ' + k + ' ' + l[k]).join('');
    // A moving link's settings stay put while its delays move: what runs now, and a partition that holds, are shown beside them.
    const n = e.linkNow;
    const now = n ? '; now RTT ' + fmtUs(n.upUs + n.downUs) + ' (up ' + fmtUs(n.upUs) + ', down ' + fmtUs(n.downUs) + ')' : '';
    const p = e.partition;
    const cut = p && p.active ? '; partition: heals in ' + fmtUs(Math.max(0, p.durationMs - p.startedMsAgo) * 1000) + ', then ' + p.then : '';
    set('link', 'RTT ' + fmtUs(l.upUs + l.downUs) + ' (up ' + fmtUs(l.upUs) + ', down ' + fmtUs(l.downUs) + '), jitter ' + fmtUs(l.jitterUs) + ' ' + l.jitterDist + ', bandwidth ' + fmtBps(l.bandwidthBps) + extra + now + cut);
    lossControls(l);
    fill('commands-body', e.commands.map((c) => row([c.name, c.count, fmtRate(c.perSecond), fmtUs(c.p50Us), fmtUs(c.p99Us), fmtUs(c.maxUs)])));
    $('commands-empty').hidden = e.commands.length > 0;
    $('commands-empty').textContent = e.countsOff ? 'not counted: the proxy runs without the tap (--no-tap)' : 'none yet';
    $('chart').innerHTML = e.chartSvg || '<p class="muted">no command answered in the window</p>';
    toxicRows(e.toxics);
    const nodes = e.nodes || [];
    $('nodes').hidden = nodes.length === 0;
    // With --client-zones a node has a listener, so a row, per client zone: the column says whose apps each serves.
    const split = nodes.some((n) => n.clientZone !== undefined);
    $('nodes-client-zone').hidden = !split;
    fill('nodes-body', nodes.map((n) => row([n.upstream ?? n.id ?? '', n.listen ?? '', ...(split ? [n.clientZone ?? '-'] : []), n.role ?? '', n.zone ?? '-', n.link ?? '', n.linkSettings ? fmtUs(n.linkSettings.upUs + n.linkSettings.downUs) : '', rate(e, fmtRate(n.rates.commands) + '/s'), rate(e, fmtRate(n.rates.roundTrips) + '/s'), rate(e, fmtBytes(n.rates.bytesUp) + '/s'), rate(e, fmtBytes(n.rates.bytesDown) + '/s'), n.connections.active])));
    nodeChoices(nodes);
  }

  function toxicRows(toxics) {
    const body = $('toxics-body');
    // Rows made again only when a toxic came, went or changed, else each count set in its cell: made
    // at every event, a Remove held down across one (a press longer than the time between events)
    // was lost, its button gone from the page before the release.
    const key = JSON.stringify(toxics.map((t) => [t.name, t.type, t.stream, t.toxicity, t.attributes]));
    if (body.dataset.key === key) {
      toxics.forEach((t, i) => { body.rows[i].cells[5].textContent = String(t.applications); });
      return;
    }
    body.dataset.key = key;
    fill('toxics-body', toxics.map((t) => row([t.name, t.type, t.stream, t.toxicity, JSON.stringify(t.attributes), t.applications, cfg.toxics ? removeButton(t.name) : ''])));
    $('toxics-empty').hidden = toxics.length > 0;
  }

  function lossControls(link) {
    const box = $('loss-controls');
    const keys = lossKeys(link);
    if (box.dataset.keys === keys.join(',')) return;
    box.dataset.keys = keys.join(',');
    box.replaceChildren(...keys.map((k) => control(k, k, (v) => ({ [k]: number(v) }))));
  }

  function nodeChoices(nodes) {
    const sel = $('node-select');
    // Each node once: a selector picks a node in every client zone.
    const ids = [...new Set(nodes.map((n) => String(n.upstream ?? n.id ?? '')))];
    if (sel.dataset.ids === ids.join(',')) return;
    sel.dataset.ids = ids.join(',');
    const keep = sel.value;
    sel.replaceChildren(new Option('every node', ''), ...ids.map((id) => new Option(id, id)));
    sel.value = ids.includes(keep) ? keep : '';
    $('node-choice').hidden = ids.length === 0;
  }

  // A number when the text is one; else the text as typed, for the API to name what it accepts.
  const number = (text) => (/^\s*-?(\d+\.?\d*|\.\d+)(e-?\d+)?\s*$/i.test(text) ? Number(text) : text);
  const scaled = (text, by) => { const v = number(text); return typeof v === 'number' ? Math.round(v * by) : v; };

  async function call(method, path, body, errorEl) {
    errorEl.textContent = '';
    let res;
    try {
      res = await fetch(path, { method, credentials: 'same-origin', headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (err) {
      errorEl.textContent = String(err);
      return false;
    }
    if (res.ok) {
      // PUT /link answers the warnings the flags would log at start (jitter that reaches zero
      // delay): the change is made, but the user should hear why it may not act as asked.
      let warnings = [];
      try { const answer = await res.json(); if (Array.isArray(answer.warnings)) warnings = answer.warnings; } catch (err) { /* no body (204) */ }
      errorEl.textContent = warnings.join('\n');
      return true;
    }
    let reason = res.status + ' ' + res.statusText;
    try { reason = (await res.json()).error || reason; } catch (err) { /* not JSON: the status says it */ }
    errorEl.textContent = reason;
    return false;
  }

  function linkPath() {
    const node = $('node-select').value;
    return node ? cfg.link + '?node=' + encodeURIComponent(node) : cfg.link;
  }

  /** A labelled input, its Apply button and the error beside it. */
  function control(id, label, toUpdate) {
    const form = document.createElement('form');
    form.className = 'control';
    form.id = id + '-form';
    const lab = document.createElement('label');
    lab.textContent = label;
    const input = document.createElement('input');
    input.id = id + '-input';
    input.size = 8;
    lab.append(input);
    const button = document.createElement('button');
    button.id = id + '-apply';
    button.textContent = 'Apply';
    const error = document.createElement('span');
    error.className = 'error';
    error.id = id + '-error';
    error.setAttribute('role', 'alert');
    form.append(lab, button, error);
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      if (await call('PUT', linkPath(), toUpdate(input.value), error)) input.value = '';
    });
    return form;
  }

  function removeButton(name) {
    const b = document.createElement('button');
    b.textContent = 'Remove';
    b.dataset.toxic = name;
    // ?name=, not /NAME: the browser drops a "." or ".." path segment (percent-encoded too) before sending.
    b.addEventListener('click', () => call('DELETE', cfg.toxics + '?name=' + encodeURIComponent(name), undefined, $('toxic-error')));
    return b;
  }

  if (cfg.link) {
    $('link-controls').append(
      control('rtt', 'RTT (ms)', (v) => ({ rttUs: scaled(v, 1000) })),
      control('jitter', 'jitter (ms)', (v) => ({ jitterUs: scaled(v, 1000) })),
      control('bandwidth', 'bandwidth (Mbit/s, 0 = unlimited)', (v) => ({ bandwidthBps: scaled(v, 1e6) })),
    );
    const presets = $('preset-select');
    for (const p of cfg.presets) presets.append(new Option(p, p));
    $('preset-form').addEventListener('submit', (ev) => { ev.preventDefault(); void call('PUT', linkPath(), { preset: presets.value }, $('preset-error')); });
  } else {
    $('preset-form').hidden = true;
  }

  if (cfg.toxics) {
    const types = $('toxic-type');
    for (const t of cfg.toxicTypes) types.append(new Option(t, t));
    $('toxic-form').addEventListener('submit', async (ev) => {
      ev.preventDefault();
      const error = $('toxic-error');
      let attributes;
      try { attributes = JSON.parse($('toxic-attributes').value || '{}'); } catch (err) { error.textContent = 'attributes: not JSON (' + err.message + ')'; return; }
      const body = { type: types.value, stream: $('toxic-stream').value, toxicity: number($('toxic-toxicity').value || '1'), attributes };
      const name = $('toxic-name').value.trim();
      if (name) body.name = name;
      if (await call('POST', cfg.toxics, body, error)) $('toxic-name').value = '';
    });
  } else {
    $('toxic-form').hidden = true;
  }

  const status = $('status');
  function connect() {
    const source = new EventSource(cfg.events);
    source.addEventListener('stats', (m) => render(JSON.parse(m.data)));
    source.addEventListener('open', () => { status.textContent = 'live'; status.className = 'live'; document.body.classList.remove('stale'); });
    source.addEventListener('error', () => {
      status.textContent = last ? 'disconnected, retrying' : 'not connected, retrying';
      status.className = 'down';
      // The figures stay as they last were: greyed, so that no one reads them as the traffic now.
      document.body.classList.add('stale');
      // The browser retries a stream that broke, but gives up for good on an answer that is not one
      // (a 503 from an endpoint that is closing, a 404 for a proxy redis-rtt server no longer has):
      // the page would say it retries and never show the proxy started again or made again.
      if (source.readyState === EventSource.CLOSED) setTimeout(connect, ${STREAM_RETRY_MS});
    });
  }
  connect();
})();
`;
