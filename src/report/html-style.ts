/**
 * The page's stylesheet, inlined: system fonts, charts that scale down to the window, a table
 * that scrolls sideways rather than squeezing its columns, and a print layout.
 */
import { FONT_FAMILY } from '../svg/frame.js';

export const HTML_STYLE = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; font-family: ${FONT_FAMILY}; font-size: 15px; line-height: 1.45; color: #1a1a1a; background: #f6f6f4; }
main { max-width: 1500px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 32px 0 10px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
.sub { color: #555; margin: 0; }
.reading { background: #fff; border-left: 4px solid #0072B2; padding: 10px 16px; margin: 18px 0 0; }
.reading p { margin: 4px 0; }
.verdict { font-weight: 600; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(600px, 1fr)); gap: 18px; }
figure { margin: 0; background: #fff; border: 1px solid #e2e2e2; border-radius: 4px; padding: 8px; }
figure svg { display: block; width: 100%; height: auto; }
figcaption { color: #444; font-size: 13.5px; padding: 4px 8px 2px; }
.table-wrap { overflow-x: auto; background: #fff; border: 1px solid #e2e2e2; border-radius: 4px; }
table { border-collapse: collapse; font-size: 12.5px; font-variant-numeric: tabular-nums; white-space: nowrap; }
th, td { padding: 3px 6px; text-align: right; border-bottom: 1px solid #eee; }
thead th { white-space: normal; vertical-align: bottom; }
td.where { white-space: pre; text-align: left; }
sup { line-height: 0; }
th.l, td.l { text-align: left; }
thead th { background: #f0f0ee; position: sticky; top: 0; font-weight: 600; }
tbody + tbody tr:first-child td { border-top: 2px solid #bbb; }
td.link { font-weight: 600; }
td.link .rtt { font-weight: 400; color: #666; }
tr.failed td { color: #b00020; background: #fff3f3; }
sup a { color: #0072B2; text-decoration: none; }
ol.notes { font-size: 14px; }
.method li { margin: 2px 0; }
dl.env { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; }
dl.env dt { color: #555; }
dl.env dd { margin: 0; }
footer { color: #777; font-size: 13px; margin-top: 36px; }
@media print {
  body { background: #fff; }
  main { max-width: none; padding: 0; }
  .charts { display: block; }
  figure { break-inside: avoid; margin-bottom: 12px; border: none; }
  .table-wrap { overflow: visible; border: none; }
}
`;
