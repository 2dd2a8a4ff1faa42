import fs from 'node:fs';
import fc from 'fast-check';
import { OutputCapture } from '../../../../src/providers/exec/shell/output-capture.js';
import { SpillDirectory } from '../../../../src/providers/exec/shell/spill-directory.js';
import { TailBuffer } from '../../../../src/providers/exec/shell/tail-buffer.js';

describe('TailBuffer', () => {
  it('always holds exactly the last `capacity` bytes of everything appended', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 600 }),
        fc.array(fc.uint8Array({ maxLength: 900 }), { maxLength: 40 }),
        fc.integer({ min: 0, max: 700 }),
        (capacity, chunks, lastCount) => {
          const tail = new TailBuffer(capacity);
          for (const chunk of chunks) tail.append(chunk);
          const all = Buffer.concat(chunks);
          const kept = all.subarray(Math.max(0, all.length - capacity));
          expect(tail.size).toBe(kept.length);
          expect(tail.last()).toEqual(kept);
          expect(tail.last(lastCount)).toEqual(kept.subarray(Math.max(0, kept.length - lastCount)));
        },
      ),
    );
  });

  it('does not keep appended chunks alive (it copies them in)', () => {
    const tail = new TailBuffer(8);
    const chunk = Buffer.from('abcdefgh');
    tail.append(chunk);
    chunk.fill(0);
    expect(tail.last().toString()).toBe('abcdefgh');
  });
});

describe('OutputCapture', () => {
  let spills: SpillDirectory;
  beforeEach(() => {
    spills = new SpillDirectory('dsh-capture-test-');
  });
  afterEach(() => spills.remove());

  it('starts the spill only on overflow and writes the buffered head first', () => {
    const capture = new OutputCapture({ maxOutputBytes: 10, maxSpillBytes: 100 }, spills, 'stdout');
    capture.write(Buffer.from('0123456'));
    expect(spills.path).toBeUndefined();
    capture.write(Buffer.from('789abc'));
    capture.write(Buffer.from('def'));
    capture.close();
    expect(capture.snapshot()).toEqual({ text: '6789abcdef', bytes: 16, truncated: true, spillPath: capture.spillPath });
    expect(fs.readFileSync(capture.spillPath!, 'utf8')).toBe('0123456789abcdef');
  });

  it('deletes a started spill once the stream passes maxSpillBytes', () => {
    const capture = new OutputCapture({ maxOutputBytes: 4, maxSpillBytes: 10 }, spills, 'stdout');
    capture.write(Buffer.from('abcdef'));
    const spill = capture.spillPath!;
    expect(fs.existsSync(spill)).toBe(true);
    capture.write(Buffer.from('ghijk'));
    expect(capture.spillPath).toBeUndefined();
    expect(fs.existsSync(spill)).toBe(false);
    capture.write(Buffer.from('lmn'));
    capture.close();
    expect(capture.snapshot()).toEqual({ text: 'klmn', bytes: 14, truncated: true });
  });

  it('keeps going without a spill when the disk refuses one', async () => {
    await spills.remove(); // later create() calls throw
    const capture = new OutputCapture({ maxOutputBytes: 4, maxSpillBytes: 100 }, spills, 'stdout');
    capture.write(Buffer.from('abcdefgh'));
    expect(capture.snapshot()).toEqual({ text: 'efgh', bytes: 8, truncated: true });
  });

  it('reads consume: each byte once, losses flagged, characters never split across reads', () => {
    const capture = new OutputCapture({ maxOutputBytes: 8, maxSpillBytes: 1000 }, spills, 'stdout');
    const euro = Buffer.from('€'); // 3 bytes
    capture.write(Buffer.from('ab'));
    capture.write(euro.subarray(0, 1));
    expect(capture.readNew()).toEqual({ text: 'ab', lost: false, collapsed: 0 });
    capture.write(euro.subarray(1));
    expect(capture.readNew()).toEqual({ text: '€', lost: false, collapsed: 0 });
    expect(capture.readNew()).toEqual({ text: '', lost: false, collapsed: 0 });
    capture.write(Buffer.from('0123456789'));
    expect(capture.readNew()).toEqual({ text: '23456789', lost: true, collapsed: 0 });
    capture.write(Buffer.from('x'));
    capture.close();
    expect(capture.readNew()).toEqual({ text: 'x', lost: false, collapsed: 0 });
  });

  it('drops a split character at the start of a lossy read', () => {
    const capture = new OutputCapture({ maxOutputBytes: 7, maxSpillBytes: 1000 }, spills, 'stdout');
    capture.write(Buffer.from('€€€€')); // 12 bytes, the last 7 start mid-character
    expect(capture.readNew()).toEqual({ text: '€€', lost: true, collapsed: 0 });
  });
});
