/** The process's CPU time (user + system, every thread) since it started, microseconds. */
function processCpuUs(): number {
  const cpu = process.cpuUsage();
  return cpu.user + cpu.system;
}

/**
 * The CPU a proxy process reports to the driver: its own, less what answering the driver's reads
 * cost. A read builds the /stats snapshot (every command's histograms) and serialises it over IPC:
 * 0.2-0.5 ms warm, 11 ms the first time (cold code), at load 0.5. A sample's `prx` is the
 * difference of the readings before and after it, and the CPU was read before the snapshot was
 * built, so the first read's cost fell inside the sample: a 64-command pipeline of 3.7 ms showed
 * 5.5 ms of proxy CPU. Each answer's own CPU is now kept out of its reading and every later one.
 */
export class ReadingCpu {
  private answeringUs = 0;

  constructor(private readonly cpuNowUs: () => number = processCpuUs) {}

  /** Answers one read: `send` builds and sends the reading with the CPU it is given. */
  answer(send: (cpuUs: number) => void): void {
    const startUs = this.cpuNowUs();
    send(startUs - this.answeringUs);
    this.answeringUs += this.cpuNowUs() - startUs;
  }
}
