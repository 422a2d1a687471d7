import { describe, expect, it } from 'vitest';
import { SelfMonitor, type LoopAccount } from '../../src/proxy/self-monitor.js';

/** A loop account and libuv idle time the test moves by hand. */
function rig(): { account: { pollNs: number; wakeNs: number; spunNs: number; idleAtSpinEndMs: number }; idle: { ms: number }; monitor: SelfMonitor } {
  const account = { pollNs: 0, wakeNs: 20_000, spunNs: 0, idleAtSpinEndMs: 0 };
  const idle = { ms: 0 };
  const monitor = new SelfMonitor(account satisfies LoopAccount, () => idle.ms);
  return { account, idle, monitor };
}

describe("the read-wait estimate (self.addedUs's start)", () => {
  it('counts a busy-wait the loop did not sleep after: bytes that came during it waited for it', () => {
    const { account, idle, monitor } = rig();
    monitor.onRead(0);
    idle.ms = 0.7; // slept 700 us, then woke and busy-waited 200 us, then this read ran
    account.spunNs = 200_000;
    account.pollNs = 0; // the poll span was the busy-wait alone
    account.idleAtSpinEndMs = 0.7;
    monitor.onRead(1_000_000);
    // 1 ms since the last read, less 0.7 ms asleep: 0.3 ms stalled (the busy-wait among it), plus the wake.
    expect(monitor.readWaitNs()).toBe(300_000 + 20_000);
  });

  it('does not count a busy-wait the loop slept after: a sleeping loop had nothing to read', () => {
    const { account, idle, monitor } = rig();
    monitor.onRead(0);
    account.spunNs = 200_000; // a busy-wait before a delivery, then a sleep of 700 us, then this read
    account.idleAtSpinEndMs = 0;
    idle.ms = 0.7;
    monitor.onRead(1_000_000);
    expect(monitor.readWaitNs()).toBe(100_000 + 20_000);
  });

  it('a read with no sleep since the previous one waited for the whole stall, and no wake-up', () => {
    const { account, monitor } = rig();
    monitor.onRead(0);
    account.pollNs = 400_000; // 0.4 ms of poll turns: a read there waits one short turn at most
    monitor.onRead(1_000_000);
    expect(monitor.readWaitNs()).toBe(600_000);
  });

  it('a read queued behind several others of one turn waited for all of them: at least the time since the turn began', async () => {
    const { idle, monitor } = rig();
    monitor.opened();
    monitor.opened(); // two connections: every turn is watched
    try {
      await new Promise((r) => setImmediate(r)); // a fresh turn
      monitor.onRead(0);
      monitor.onRead(300_000);
      expect(monitor.readWaitNs()).toBe(300_000);
      // The third read of the turn: 200 us since the second, 500 us since the turn's first read.
      monitor.onRead(500_000);
      expect(monitor.readWaitNs()).toBe(500_000);
      await new Promise((r) => setImmediate(r)); // the check phase ended that turn
      monitor.onRead(600_000);
      expect(monitor.readWaitNs()).toBe(100_000);
      // The loop slept 50 us before the next read: a batch of its own, whatever the Immediate said.
      idle.ms = 0.05;
      monitor.onRead(800_000);
      expect(monitor.readWaitNs()).toBe(150_000 + 20_000);
      expect(monitor.report().arrivalLagUs.count).toBe(5);
    } finally {
      monitor.closed();
      monitor.closed();
    }
  });

  it('with one connection open only one turn in eight is watched (the one-client fast path pays one Immediate in eight)', async () => {
    const { monitor } = rig();
    monitor.opened();
    try {
      for (let turn = 0; turn < 16; turn++) {
        monitor.onRead(turn * 1_000_000);
        await new Promise((r) => setImmediate(r));
      }
      expect(monitor.report().arrivalLagUs.count).toBe(2);
    } finally {
      monitor.closed();
    }
  });
});
