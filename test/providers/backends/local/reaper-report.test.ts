// The namespace reaper's channel carries exactly one report (a job line, then `<count> <status>`); anything else means it is unavailable.
import { parseReaperReport, ReaperReport, reportedExit } from '../../../../src/providers/exec/process/namespace-reaper.js';

const JOB = (state: string): string => `[1] + 2935 ${state.padEnd(22)}\n`;

describe('the reaper report', () => {
  it('reads one well-formed report', () => {
    expect(parseReaperReport(Buffer.from(`${JOB('Done')}0 0\n`))).toEqual({ count: 0 });
    expect(parseReaperReport(Buffer.from(`${JOB('Done(143)')}17 143\n`))).toEqual({ count: 17 });
    expect(parseReaperReport(Buffer.from(`${JOB('Terminated')}0 143\n`))).toEqual({ count: 0, signal: 15 });
    expect(parseReaperReport(Buffer.from(`${JOB('Broken pipe')}2 141\n`))).toEqual({ count: 2, signal: 13 });
  });

  it('takes a status without a job line as an exit code', () => {
    expect(parseReaperReport(Buffer.from('3 137\n'))).toEqual({ count: 3 });
  });

  it.each([
    ['nothing', ''],
    ['the old count alone', '0\n'],
    ['two reports', '424242 0\n0 0\n'],
    ['a report without its newline', '3 0'],
    ['a trailer', '\x1fdsh-left:abc:3\x1f'],
    ['ten digits', '1234567890 0\n'],
    ['a sign', '-1 0\n'],
  ])('reads no report from %s', (_name, content) => {
    expect(parseReaperReport(Buffer.from(content))).toBeUndefined();
  });

  it('gives up on a channel flooded past the longest report, whatever comes after', () => {
    const report = new ReaperReport();
    report.take(Buffer.alloc(4096, 0x31));
    report.take(Buffer.from(' 0\n'));
    expect(report.count).toBeUndefined();
  });

  it('joins a report split across chunks', () => {
    const report = new ReaperReport();
    report.take(Buffer.from('[1] + 7 Kil'));
    report.take(Buffer.from('led\n4'));
    report.take(Buffer.from('2 137\n'));
    expect(report.record).toEqual({ count: 42, signal: 9 });
  });

  it('puts a reported signal back only where the leader passed it on as 128 + n', () => {
    expect(reportedExit({ code: 143, signal: null }, { count: 0, signal: 15 })).toEqual({ exitCode: null, signal: 'SIGTERM' });
    expect(reportedExit({ code: null, signal: 'SIGKILL' }, { count: 0, signal: 15 })).toEqual({ exitCode: null, signal: 'SIGKILL' });
    expect(reportedExit({ code: 143, signal: null }, { count: 0 })).toEqual({ exitCode: 143, signal: null });
    expect(reportedExit({ code: 0, signal: null }, undefined)).toEqual({ exitCode: 0, signal: null });
  });
});
