/** The charts of each report kind, in page order; charts without data are left out. */
import type { BenchReport, CalibrateReport } from '../../results/types.js';
import { speedupChart, timeVsBatchChart } from './batch-charts.js';
import { addedRttChart } from './calibrate-charts.js';
import type { Chart } from './chart.js';
import { benchPercentileCharts, calibratePercentileChart } from './percentile-charts.js';
import { bytesChart, roundTripsChart } from './traffic-charts.js';

export type { Chart } from './chart.js';

export function benchCharts(report: BenchReport): Chart[] {
  return [
    timeVsBatchChart(report),
    speedupChart(report),
    roundTripsChart(report),
    bytesChart(report),
    ...benchPercentileCharts(report),
  ].filter((c): c is Chart => c !== null);
}

export function calibrateCharts(report: CalibrateReport): Chart[] {
  return [addedRttChart(report), calibratePercentileChart(report)].filter((c): c is Chart => c !== null);
}
