// The leftover count a wrapper (the container exec's, the sandbox's) writes last on stderr, read out of the stream.
import fc from 'fast-check';
import { LeftoverTrailer } from '../../../src/providers/shell/leftover-trailer.js';
import { cutAt } from '../../support/chunks.js';

const TAG = '0123456789abcdef';
const trailer = (n: number, tag = TAG) => `\x1fdsh-left:${tag}:${n}\x1f`;

function feed(chunks: readonly string[]): { output: string; count: number } {
  const reader = new LeftoverTrailer(TAG);
  const parts = chunks.map((chunk) => reader.push(Buffer.from(chunk, 'latin1')));
  parts.push(reader.end());
  return { output: Buffer.concat(parts).toString('latin1'), count: reader.count };
}

describe('LeftoverTrailer', () => {
  it('takes the trailer out of the stream and keeps every other byte, at every split point', () => {
    const stream = `err line\n\x1fnot ours\x1f${trailer(3)}`;
    for (let cut = 0; cut <= stream.length; cut++) {
      expect(feed([stream.slice(0, cut), stream.slice(cut)])).toEqual({ output: 'err line\n\x1fnot ours\x1f', count: 3 });
    }
  });

  it("passes another exec's trailer, a malformed one and an unfinished one through as output", () => {
    for (const text of [trailer(2, 'ffffffffffffffff'), '\x1fdsh-left:0123456789abcdef:x\x1f', `\x1fdsh-left:${TAG}:12`]) {
      expect(feed([text])).toEqual({ output: text, count: 0 });
    }
  });

  it('finds a trailer that landed before late output, and loses nothing in any chunking', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.array(fc.nat(), { maxLength: 6 }), (before, after, cuts) => {
        const clean = (s: string) => s.replace(/\x1f/g, '');
        const stream = `${clean(before)}${trailer(7)}${clean(after)}`;
        const result = feed(cutAt(stream, cuts));
        expect(result).toEqual({ output: `${clean(before)}${clean(after)}`, count: 7 });
      }),
    );
  });
});
