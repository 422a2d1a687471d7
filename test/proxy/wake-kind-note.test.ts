import { describe, expect, it } from 'vitest';
import { wakeKindNote } from '../../src/cli/proxy-notes.js';
import { timerfdBinding } from '../../src/link/native-alarm.js';
import { sharedScheduler } from '../../src/link/shared-scheduler.js';

describe('the note a proxy prints at start when the timerfd alarm did not load', () => {
  it('says what deliveries wake on instead, on Linux only', () => {
    expect(wakeKindNote('linux', 'timerfd')).toBeUndefined();
    expect(wakeKindNote('darwin', 'thread')).toBeUndefined();
    expect(wakeKindNote('linux', 'thread')).toMatch(/timerfd alarm \(native\/timerfd\) is not built .* wake on a timer thread/);
    expect(wakeKindNote('linux', 'timeout')).toMatch(/wake on Node's setTimeout/);
  });

  it('speaks on this machine exactly when the addon did not load here', () => {
    const silent = wakeKindNote(process.platform, sharedScheduler().wakeKindInUse) === undefined;
    expect(silent).toBe(process.platform !== 'linux' || timerfdBinding() !== null);
  });
});
