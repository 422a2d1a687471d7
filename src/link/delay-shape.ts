/**
 * What moves a link's mean one-way delays over time: a wave around the configured RTT, a ramp from
 * the delays before a schedule step to the step's, and a replayed series that replaces the RTT.
 * Pure: a time in, delays out. A link without any keeps its constant samplers (link-state.ts), so
 * only a moving link reads the clock per chunk.
 */
import { RttSeriesCursor, type RttSeries } from './rtt-series.js';
import { splitRtt } from './settings.js';
import { waveOffsetUs, type RttWave } from './wave.js';
import type { Direction } from '../stage/types.js';

export interface DelayRamp {
  /** The one-way delays when the ramp started; it ends at the configured ones. */
  fromUs: Record<Direction, number>;
  startNs: number;
  durationNs: number;
}

export class DelayShape {
  private wave: { wave: RttWave; originNs: number } | undefined;
  private series: { cursor: RttSeriesCursor; originNs: number } | undefined;
  private ramp: DelayRamp | undefined;

  /** True when nothing moves: the link's delays are its settings. */
  get constant(): boolean {
    return this.wave === undefined && this.series === undefined && this.ramp === undefined;
  }

  setWave(wave: RttWave | undefined, originNs: number): void {
    this.wave = wave && { wave, originNs };
  }

  setSeries(series: RttSeries | undefined, once: boolean, originNs: number): void {
    this.series = series && { cursor: new RttSeriesCursor(series, once), originNs };
  }

  setRamp(ramp: DelayRamp | undefined): void {
    this.ramp = ramp;
  }

  /** The series row that holds at `nowNs` (for /stats), if a series runs. */
  seriesRowAt(nowNs: number): { row: number; rows: number } | undefined {
    const s = this.series;
    return s && { row: s.cursor.rowAt(nowNs - s.originNs), rows: s.cursor.series.atUs.length };
  }

  /**
   * The mean one-way delay of `direction` at `nowNs`, microseconds, floored at 0. `baseUs` is the
   * configured delay: a series replaces it (split as an RTT is), a ramp moves toward it, a wave's
   * deviation (split the same way) goes on top.
   */
  meanUs(direction: Direction, baseUs: number, nowNs: number): number {
    let us = baseUs;
    const s = this.series;
    if (s !== undefined) us = splitRtt(s.cursor.rttUsAt(nowNs - s.originNs))[direction === 'up' ? 'upUs' : 'downUs'];
    const r = this.ramp;
    if (r !== undefined && nowNs < r.startNs + r.durationNs) {
      const done = nowNs <= r.startNs ? 0 : (nowNs - r.startNs) / r.durationNs;
      us = r.fromUs[direction] + (us - r.fromUs[direction]) * done;
    }
    const w = this.wave;
    if (w !== undefined) {
      const offsetUs = waveOffsetUs(w.wave, nowNs - w.originNs);
      us += direction === 'up' ? offsetUs / 2 : offsetUs - offsetUs / 2;
    }
    return us > 0 ? us : 0;
  }
}
