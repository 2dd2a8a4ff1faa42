import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import fc from 'fast-check';
import { PatternRedactor } from '../../../../src/providers/output-filter/pattern-redactor.js';
import { resolveRedactionConfig } from '../../../../src/providers/output-filter/redaction-config.js';
import type { Redactor } from '../../../../src/providers/output-filter/redactor.js';
import { TextFilter } from '../../../../src/providers/output-filter/text-filter.js';
import { OutputCapture } from '../../../../src/providers/exec/shell/output-capture.js';
import { SpillDirectory } from '../../../../src/providers/exec/shell/spill-directory.js';

const redactor = new PatternRedactor(resolveRedactionConfig({ values: ['hunter2-correct'] }), {});
const euro = Buffer.from('€');
const PIECES: Buffer[] = [
  Buffer.from('x'.repeat(9000)),
  Buffer.from('warning: value 42 is never read\n'.repeat(300)),
  Buffer.from('line\n'),
  Buffer.from('50%\r100%\n'),
  Buffer.from('\x1b[1mbold\x1b[0m\n'),
  Buffer.from('hunter2-correct'),
  Buffer.from('ghp_' + 'A1b2'.repeat(8)),
  euro,
  euro.subarray(0, 1),
  euro.subarray(1),
  Buffer.from([0xff]),
  Buffer.from('é\n'),
];

/** What the capture did before the ASCII fast path: decode every chunk, push the text. */
function reference(chunks: Buffer[], active: Redactor | undefined): { clean: string; spill: Buffer } {
  const decoder = new StringDecoder('utf8');
  const filter = new TextFilter(active);
  let clean = '';
  let redacted = '';
  for (const chunk of [...chunks.map((c) => decoder.write(c)), decoder.end()]) {
    const step = filter.push(chunk);
    clean += step.clean;
    redacted += step.redacted;
  }
  const last = filter.end();
  return { clean: clean + last.clean, spill: active ? Buffer.from(redacted + last.redacted) : Buffer.concat(chunks) };
}

describe('OutputCapture fast path for ASCII chunks', () => {
  let spills: SpillDirectory;
  beforeEach(() => {
    spills = new SpillDirectory('dsh-capture-ascii-');
  });
  afterEach(() => spills.remove());

  it('keeps the same view and spill as decoding every chunk, split characters and invalid bytes included', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 4 }), { maxLength: 10 }),
        fc.boolean(),
        (groups, redacting) => {
          const chunks = groups.map((group) => Buffer.concat(group));
          const active = redacting ? redactor : undefined;
          const expected = reference(chunks, active);
          const whole = new OutputCapture({ maxOutputBytes: 1_000_000, maxSpillBytes: 2_000_000 }, spills, 'stdout', active);
          const spilling = new OutputCapture({ maxOutputBytes: 16, maxSpillBytes: 2_000_000 }, spills, 'stdout', active);
          for (const chunk of chunks) {
            whole.write(chunk);
            spilling.write(chunk);
          }
          whole.close();
          spilling.close();
          expect(whole.text()).toBe(expected.clean);
          const spill = spilling.spillPath;
          if (spill !== undefined) expect(fs.readFileSync(spill).equals(expected.spill)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('decodes an ASCII chunk that completes nothing but follows a cut character', () => {
    const capture = new OutputCapture({ maxOutputBytes: 100, maxSpillBytes: 1000 }, spills, 'stdout');
    capture.write(Buffer.concat([Buffer.from('a'), euro.subarray(0, 2)]));
    capture.write(Buffer.from('bc\n'));
    capture.close();
    expect(capture.text()).toBe('a\ufffdbc\n');
  });
});
