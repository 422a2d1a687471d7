export { renderSummaryTable as renderSummary } from '../stats/summary-table.js';
