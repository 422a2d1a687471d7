import { afterEach, describe, expect, it, vi } from 'vitest';
import { colorFor } from '../src/text-grid.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('colorFor: the one rule every command\'s table follows', () => {
  it('colours a terminal only, and not when NO_COLOR is set to anything but the empty string', () => {
    vi.stubEnv('NO_COLOR', '');
    expect([colorFor({ isTTY: true }), colorFor({ isTTY: false }), colorFor({})]).toEqual([true, false, false]);
    vi.stubEnv('NO_COLOR', '1');
    expect(colorFor({ isTTY: true })).toBe(false);
  });
});
