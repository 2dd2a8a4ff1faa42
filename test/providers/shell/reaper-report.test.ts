// The namespace reaper's channel carries exactly one record; anything else means the count is unavailable.
import { parseReaperReport, ReaperReport } from '../../../src/providers/process/namespace-reaper.js';

describe('the reaper report', () => {
  it('reads one well-formed record', () => {
    expect(parseReaperReport(Buffer.from('0\n'))).toBe(0);
    expect(parseReaperReport(Buffer.from('17\n'))).toBe(17);
  });

  it.each([
    ['nothing', ''],
    ['two records', '424242\n0\n'],
    ['a record without its newline', '3'],
    ['a trailer', '\x1fdsh-left:abc:3\x1f'],
    ['ten digits', '1234567890\n'],
    ['a sign', '-1\n'],
  ])('reads no count from %s', (_name, content) => {
    expect(parseReaperReport(Buffer.from(content))).toBeUndefined();
  });

  it('gives up on a channel flooded past the longest record, whatever comes after', () => {
    const report = new ReaperReport();
    report.take(Buffer.alloc(4096, 0x31));
    report.take(Buffer.from('\n'));
    expect(report.count).toBeUndefined();
  });

  it('joins a record split across chunks', () => {
    const report = new ReaperReport();
    report.take(Buffer.from('4'));
    report.take(Buffer.from('2\n'));
    expect(report.count).toBe(42);
  });
});

