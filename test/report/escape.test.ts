import { describe, expect, it } from 'vitest';
import { renderCsv, renderHtml, renderMarkdown, renderTable } from '../../src/report/index.js';
import { csvField } from '../../src/report/csv.js';
import { esc } from '../../src/svg/escape.js';
import type { BenchReport } from '../../src/results/types.js';
import { benchFixture, calibrateFixture } from './helpers.js';

/** The fixture with hostile text wherever a user's words can reach a report. */
function hostile(): BenchReport {
  const report = benchFixture();
  for (const r of report.results) {
    if (r.link === 'cross-az') r.link = '<script>alert(1)</script>';
    if (r.link === 'local') r.link = 'a "quoted", link & co';
  }
  report.results[0]!.note = 'line one\nline "two", | piped <b>bold</b>';
  report.notes.push('<img src=x onerror=alert(1)>');
  return report;
}

describe('escaping', () => {
  it('esc covers the five XML specials', () => {
    expect(esc(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });

  it('HTML: a link named <script> stays text, in tables, charts, legends and attributes', () => {
    const html = renderHtml(hostile(), { title: '<script>t</script>' });
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<img/i);
    expect(html).not.toContain('<b>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('data-series="&lt;script&gt;alert(1)&lt;/script&gt; (1.2ms)"');
    expect(html).toContain('data-link="a &quot;quoted&quot;, link &amp; co"');
    // Every attribute value is closed where it should be: no raw quote inside one.
    expect(html).not.toMatch(/data-series="[^"]*"[^ >/]/);
  });

  it('calibrate HTML escapes labels and the verdict', () => {
    const report = calibrateFixture();
    report.rows[2]!.label = '<script>x</script>';
    report.verdict = '<i>fine</i> & dandy';
    const html = renderHtml(report);
    expect(html).not.toMatch(/<script|<i>/i);
    expect(html).toContain('&lt;i&gt;fine&lt;/i&gt; &amp; dandy');
  });

  it('markdown: no raw HTML, pipes escaped, one line per row', () => {
    const md = renderMarkdown(hostile());
    expect(md).not.toMatch(/<script|<img|<b>/i);
    expect(md).toContain('line one line "two", \\| piped &lt;b>bold&lt;/b>');
    const tableRows = md.split('\n').filter((l) => l.startsWith('|'));
    expect(tableRows).toHaveLength(2 + 27);
  });

  it('CSV: RFC 4180 quoting, CRLF rows, one record per result', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    const csv = renderCsv(hostile());
    expect(csv).toContain('"a ""quoted"", link & co"');
    expect(csv).toContain('"line one\nline ""two"", | piped <b>bold</b>"');
    expect(csv.endsWith('\r\n')).toBe(true);
    // 27 results + header; the embedded LF is inside quotes and does not end a record.
    expect(csv.split('\r\n').filter(Boolean)).toHaveLength(28);
  });

  it('terminal table: line breaks in a note are indented, control bytes in names cannot reach the terminal', () => {
    const report = hostile();
    report.results[1]!.link = 'evil\x1b[2J\nname';
    const text = renderTable(report);
    expect(text).toContain('  [1] line one\n      line "two"');
    expect(text).toContain('<script>alert(1)</script>');
    expect(text).toContain('evil [2J name');
    expect(text).not.toContain('\x1b');
  });
});
