import { describe, expect, it } from 'vitest';
import { PrimaryAnswers } from '../../src/sentinel/primary-answers.js';

const at = (port: number) => ({ host: '127.0.0.1', port });

describe('PrimaryAnswers', () => {
  it('a reading in which every sentinel moved to the new primary is no disagreement: taken whole, not one sentinel at a time', () => {
    const lines: string[] = [];
    const a = new PrimaryAnswers('mymaster', (l) => lines.push(l));
    const reading = (primary: number) => [26379, 26380, 26381].map((s) => ({ sentinel: at(s), primary: at(primary) }));
    a.recordReading(reading(6379));
    a.recordReading(reading(6380));
    expect(lines).toEqual([]);
    expect(a.snapshot()).toMatchObject({ disagree: false, disagreements: 0 });
    // One still on the old primary is one.
    a.recordReading([...reading(6379).slice(0, 2), { sentinel: at(26381), primary: at(6380) }]);
    expect(a.snapshot()).toMatchObject({ disagree: true, disagreements: 1 });
  });

  it('reports a disagreement once per new set of answers, and agreement again when the odd one changes or is forgotten', () => {
    const lines: string[] = [];
    const a = new PrimaryAnswers('mymaster', (l) => lines.push(l));
    a.record(at(26379), at(6379));
    a.record(at(26380), at(6379));
    expect(a.snapshot()).toEqual({
      answers: [
        { sentinel: '127.0.0.1:26379', primary: '127.0.0.1:6379' },
        { sentinel: '127.0.0.1:26380', primary: '127.0.0.1:6379' },
      ],
      disagree: false,
      disagreements: 0,
    });
    a.record(at(26380), at(6380));
    a.record(at(26380), at(6380));
    expect(a.snapshot()).toMatchObject({ disagree: true, disagreements: 1 });
    expect(lines).toEqual([
      'sentinels disagree on the primary of mymaster: 127.0.0.1:26379 says 127.0.0.1:6379, 127.0.0.1:26380 says 127.0.0.1:6380; each answer goes to clients rewritten as given',
    ]);
    a.recordReading([{ sentinel: at(26379), primary: undefined }]);
    expect(a.snapshot()).toMatchObject({ disagree: false, disagreements: 1 });
    a.record(at(26379), at(6379));
    expect(a.snapshot().disagreements).toBe(2);
    a.reset();
    expect(a.snapshot()).toMatchObject({ disagree: true, disagreements: 0 });
  });

  it('names IPv6 sentinels and primaries as --sentinel takes them, [::1]:26379, in the log line', () => {
    const lines: string[] = [];
    const a = new PrimaryAnswers('mymaster', (l) => lines.push(l));
    a.record({ host: '::1', port: 26379 }, { host: '::1', port: 6379 });
    a.record({ host: '::1', port: 26380 }, { host: '::1', port: 6380 });
    expect(lines).toEqual(['sentinels disagree on the primary of mymaster: [::1]:26379 says [::1]:6379, [::1]:26380 says [::1]:6380; each answer goes to clients rewritten as given']);
  });
});
