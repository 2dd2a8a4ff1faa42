import fc from 'fast-check';
import { ExecStatusReader } from '../../../../src/providers/exec/process/exec-status.js';
import { cutAt } from '../../../support/chunks.js';

const KEY = '0123456789abcdef0123456789abcdef';
const record = (body: string, key = KEY) => `\x1fdsh-status:${key}:${body}\x1f`;

function feed(stream: string, points: number[] = []) {
  const reader = new ExecStatusReader(KEY);
  let out = '';
  for (const chunk of cutAt(stream, points)) out += reader.push(Buffer.from(chunk, 'latin1')).toString('latin1');
  out += reader.end().toString('latin1');
  return { out, reader };
}

describe('ExecStatusReader', () => {
  it('takes the keyed count and workdir records out of the stream however it is cut', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 6 }), (points) => {
        const { out, reader } = feed(`err\x1fline${record('left:3')}`, points);
        expect(out).toBe('err\x1fline');
        expect(reader.leftovers).toBe(3);
      }),
    );
    expect(feed(record('workdir:notdir')).reader.workdirProblem).toBe('notdir');
  });

  it('leaves records with another key, bad bodies and unfinished ones as output', () => {
    for (const text of [record('left:9', 'f'.repeat(32)), record('left:x'), record('workdir:gone'), `\x1fdsh-status:${KEY}:left:4`]) {
      const { out, reader } = feed(text);
      expect(out).toBe(text);
      expect(reader.leftovers).toBe(0);
      expect(reader.workdirProblem).toBeUndefined();
    }
  });
});
