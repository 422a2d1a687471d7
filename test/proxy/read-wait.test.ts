import { describe, expect, it } from 'vitest';
import { SelfMonitor, type LoopAccount } from '../../src/proxy/self-monitor.js';
import type { PollRunEnd } from '../../src/stage/types.js';

/** A loop account, libuv idle time and libuv's turn count that the test moves by hand. */
function rig(firstTurn = 1): {
  account: LoopAccount & {
    pollNs: number;
    spunNs: number;
    idleAtSpinEndMs: number;
    chainedPollStartNs: number;
    lastTurnEndNs: number;
    lastRunEnd: PollRunEnd;
  };
  idle: { ms: number };
  turn: { n: number };
  monitor: SelfMonitor;
} {
  // A wake-up of 20 us after sleeps under 5 ms, 150 us after longer ones.
  const wakeAfterNs = (sleptNs: number): number => (sleptNs < 5_000_000 ? 20_000 : 150_000);
  const lastRunEnd = { endNs: -1, idleMs: 0, pollNs: 0, spunNs: 0 };
  const account = { pollNs: 0, wakeAfterNs, spunNs: 0, idleAtSpinEndMs: 0, chainedPollStartNs: -1, lastTurnEndNs: -1, lastRunEnd };
  const idle = { ms: 0 };
  const turn = { n: firstTurn };
  const monitor = new SelfMonitor(account satisfies LoopAccount, () => idle.ms, () => turn.n);
  return { account, idle, turn, monitor };
}

/** The loop's next turn: the check phase of this one runs (ending a watched turn), and libuv's count reads `n`. */
async function turnTo(turn: { n: number }, n: number): Promise<void> {
  await new Promise((r) => setImmediate(r));
  turn.n = n;
}

describe("the read-wait estimate (self.addedUs's start)", () => {
  it('counts a busy-wait the loop did not sleep after: bytes that came during it waited for it', async () => {
    const { account, idle, turn, monitor } = rig();
    monitor.onRead(0);
    await turnTo(turn, 5);
    idle.ms = 0.7; // slept 700 us, then woke and busy-waited 200 us, then this read ran
    account.spunNs = 200_000;
    account.pollNs = 0; // the poll span was the busy-wait alone
    account.idleAtSpinEndMs = 0.7;
    monitor.onRead(1_000_000);
    // 1 ms since the last read, less 0.7 ms asleep: 0.3 ms stalled (the busy-wait among it), plus the wake.
    expect(monitor.readWaitNs()).toBe(300_000 + 20_000);
  });

  it("adds the wake-up of the last sleep: after a poll turn (a linger), a short one, not the whole gap since the last read", async () => {
    const { account, idle, turn, monitor } = rig();
    monitor.onRead(0);
    await turnTo(turn, 7);
    // 20 ms later: asleep 19.7 ms until a delivery, polling 100 us after it, then asleep 150 us until this read.
    idle.ms = 19.85;
    account.pollNs = 150_000;
    account.lastTurnEndNs = 19_850_000;
    monitor.onRead(20_000_000);
    expect(monitor.readWaitNs()).toBe(20_000);
    // The next read, 20 ms on with no poll turn since: the loop slept all that time, so the long sleep's wake-up.
    await turnTo(turn, 9);
    idle.ms = 39.85;
    monitor.onRead(40_000_000);
    expect(monitor.readWaitNs()).toBe(150_000);
  });

  it('counts no busy time from before the last run of poll turns when the loop slept after it: the bytes came later', async () => {
    const { account, idle, turn, monitor } = rig();
    monitor.onRead(0); // Redis's reply, then 40 us of its own callback
    await turnTo(turn, 6);
    // Asleep 19.7 ms from 40 us; the wake's callback until 19.8 ms; a poll run (the delivery, a linger) until 19.95
    // ms; asleep 40 us; then 10 us of another callback before this read, the client's next request, at 20 ms.
    account.pollNs = 150_000;
    account.lastTurnEndNs = 19_950_000;
    account.lastRunEnd = { endNs: 19_950_000, idleMs: 19.7, pollNs: 150_000, spunNs: 0 };
    idle.ms = 19.74;
    monitor.onRead(20_000_000);
    // Since the run ended: 50 us, 40 of them asleep; the short sleep's wake-up.
    expect(monitor.readWaitNs()).toBe(10_000 + 20_000);
    // Had the loop not slept after the run, the bytes could have come during any of it: since the last read.
    await turnTo(turn, 9);
    account.lastRunEnd = { endNs: 20_500_000, idleMs: 19.74, pollNs: 150_000, spunNs: 0 };
    idle.ms = 19.74;
    monitor.onRead(21_000_000);
    expect(monitor.readWaitNs()).toBe(1_000_000);
  });

  it('does not count a busy-wait the loop slept after: a sleeping loop had nothing to read', async () => {
    const { account, idle, turn, monitor } = rig();
    monitor.onRead(0);
    await turnTo(turn, 2); // the turn right after, but the loop slept in its epoll: the bytes woke it
    account.spunNs = 200_000; // a busy-wait before a delivery, then a sleep of 700 us, then this read
    account.idleAtSpinEndMs = 0;
    idle.ms = 0.7;
    monitor.onRead(1_000_000);
    expect(monitor.readWaitNs()).toBe(100_000 + 20_000);
  });

  it('a read turns after the previous one, with no sleep between, waited for the whole stall, and no wake-up', async () => {
    const { account, turn, monitor } = rig();
    monitor.onRead(0);
    await turnTo(turn, 9);
    account.pollNs = 400_000; // 0.4 ms of poll turns, since ended: a read there waits one short turn at most
    monitor.onRead(1_000_000);
    expect(monitor.readWaitNs()).toBe(600_000);
  });

  it('a read in the turn after one it saw waited, at worst, since that turn began: its reads, writes and deliveries', async () => {
    const { idle, turn, monitor } = rig();
    monitor.onRead(0);
    monitor.onRead(400_000); // the same turn (one connection: no Immediate watches it)
    expect(monitor.readWaitNs()).toBe(400_000);
    await turnTo(turn, 2);
    monitor.onRead(1_500_000); // the bytes came after turn 1's epoll, before 0 at the earliest
    expect(monitor.readWaitNs()).toBe(1_500_000);
    monitor.onRead(1_600_000); // the same batch
    expect(monitor.readWaitNs()).toBe(1_600_000);
    await turnTo(turn, 3);
    idle.ms = 0.3; // turn 3's epoll slept 300 us: the bytes woke it
    monitor.onRead(2_000_000);
    expect(monitor.readWaitNs()).toBe(100_000 + 20_000);
  });

  it("a read right after a poll turn waited since that turn began, whatever the loop did before it (the poll's deliveries)", async () => {
    const { account, idle, turn, monitor } = rig();
    monitor.onRead(0);
    idle.ms = 3; // slept 3 ms, then woke and polled from 4 ms; the poll turn that began at 5 ms
    account.pollNs = 3_000_000; // fired deliveries for 2 ms and asked for one more turn
    account.chainedPollStartNs = 5_000_000;
    await turnTo(turn, 40);
    monitor.onRead(7_100_000);
    expect(monitor.readWaitNs()).toBe(2_100_000);
  });

  it("a read waited at most since its connection's last write the other way: what it answers", async () => {
    const { turn, monitor } = rig();
    monitor.onRead(0);
    await turnTo(turn, 2);
    monitor.onRead(2_000_000, 1_700_000); // the turn before began at 0, but the request went to Redis at 1.7 ms
    expect(monitor.readWaitNs()).toBe(300_000);
    monitor.onRead(2_100_000, -1); // the same batch, a connection that never wrote the other way: the batch's bound
    expect(monitor.readWaitNs()).toBe(2_100_000);
    monitor.onRead(2_200_000, 500_000); // a write after the batch's floor (0): it bounds the wait
    expect(monitor.readWaitNs()).toBe(1_700_000);
    await turnTo(turn, 3);
    monitor.onRead(2_300_000, 100_000); // a write before the turn that came first (turn 2's, at 2 ms): that bounds it
    expect(monitor.readWaitNs()).toBe(300_000);
  });

  it("where Node gives no turn count, each read is timed from the one before (and a chained poll's start)", async () => {
    const { account, idle, monitor } = rig(-1);
    monitor.onRead(0);
    await turnTo({ n: -1 }, -1);
    monitor.onRead(400_000);
    expect(monitor.readWaitNs()).toBe(400_000);
    await turnTo({ n: -1 }, -1);
    account.chainedPollStartNs = 900_000;
    monitor.onRead(1_000_000);
    expect(monitor.readWaitNs()).toBe(100_000);
    account.chainedPollStartNs = -1;
    idle.ms = 0.5;
    await turnTo({ n: -1 }, -1);
    monitor.onRead(2_000_000);
    expect(monitor.readWaitNs()).toBe(500_000 + 20_000);
  });

  it('a read queued behind several others of one turn waited for all of them: at least the time since the turn began', async () => {
    const { idle, turn, monitor } = rig();
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
      await turnTo(turn, 2); // its bytes came after turn 1's epoll: at worst right after it, at 0
      monitor.onRead(600_000);
      expect(monitor.readWaitNs()).toBe(600_000);
      // The loop slept 50 us in turn 3's epoll: the bytes woke it.
      await turnTo(turn, 3);
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
    const { turn, monitor } = rig();
    monitor.opened();
    try {
      for (let t = 0; t < 16; t++) {
        turn.n = t + 1;
        monitor.onRead(t * 1_000_000);
        await new Promise((r) => setImmediate(r));
      }
      expect(monitor.report().arrivalLagUs.count).toBe(2);
    } finally {
      monitor.closed();
    }
  });
});
