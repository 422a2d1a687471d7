import { ConfigError } from '../errors.js';
import { DURATION_FLOOR, parseDurationUs, parsePositiveDurationUs } from '../units.js';

export type WaveShape = 'sine' | 'square' | 'triangle' | 'sawtooth';
export const WAVE_SHAPES: readonly WaveShape[] = ['sine', 'square', 'triangle', 'sawtooth'];

/** A periodic RTT deviation, as speedbump has them: the RTT moves in [base - A, base + A]. */
export interface RttWave {
  shape: WaveShape;
  periodUs: number;
  /** Peak RTT deviation, split between the directions as an RTT is (splitRtt). */
  amplitudeUs: number;
}

const ACCEPTS = `SHAPE:PERIOD:AMPLITUDE, SHAPE one of ${WAVE_SHAPES.join(' | ')}, a period ${DURATION_FLOOR} (e.g. sine:60s:20ms)`;

/** Parses `sine:60s:20ms`; the period must be above zero (at least 1us), the amplitude may be zero. */
export function parseRttWave(text: string, flag = '--rtt-wave'): RttWave {
  const parts = text.split(':');
  if (parts.length !== 3 || !(WAVE_SHAPES as readonly string[]).includes(parts[0]!.trim())) throw new ConfigError(flag, text, ACCEPTS);
  const periodUs = parsePositiveDurationUs(parts[1]!, `${flag} period`, 'a period', '60s');
  return { shape: parts[0]!.trim() as WaveShape, periodUs, amplitudeUs: parseDurationUs(parts[2]!, `${flag} amplitude`) };
}

/**
 * The shape's value in [-1, 1] at `phase` in [0, 1). Sine and triangle start at the base and rise
 * first; square holds the high half first; sawtooth starts at the low peak and climbs to the high one.
 */
export function waveValue(shape: WaveShape, phase: number): number {
  switch (shape) {
    case 'sine':
      return Math.sin(2 * Math.PI * phase);
    case 'square':
      return phase < 0.5 ? 1 : -1;
    case 'triangle':
      return phase < 0.25 ? 4 * phase : phase < 0.75 ? 2 - 4 * phase : 4 * phase - 4;
    case 'sawtooth':
      return 2 * phase - 1;
  }
}

/** The RTT deviation at `elapsedNs` since the wave started, microseconds (not yet split or floored). */
export function waveOffsetUs(wave: RttWave, elapsedNs: number): number {
  const periodNs = wave.periodUs * 1000;
  const phase = (elapsedNs % periodNs) / periodNs;
  return wave.amplitudeUs * waveValue(wave.shape, phase);
}
