import fs from 'node:fs';
import { OutputCapture } from '../../../src/providers/exec/shell/output-capture.js';
import { SpillDirectory } from '../../../src/providers/exec/shell/spill-directory.js';
import { PatternRedactor } from '../../../src/providers/output-filter/pattern-redactor.js';
import { resolveRedactionConfig } from '../../../src/providers/output-filter/redaction-config.js';

const SECRET = 'sk-0123456789';
const redactor = new PatternRedactor(resolveRedactionConfig({ values: [SECRET] }), {});

describe('OutputCapture with the output filters', () => {
  let spills: SpillDirectory;
  beforeEach(() => {
    spills = new SpillDirectory('dsh-filtered-capture-');
  });
  afterEach(() => spills.remove());

  it('a mid-run read shows a waiting last line at once but never half a secret', () => {
    const capture = new OutputCapture({ maxOutputBytes: 1000, maxSpillBytes: 10_000 }, spills, 'stdout', redactor);
    capture.write(Buffer.from('Continue? [y/N] '));
    expect(capture.readNew().text).toBe('Continue? [y/N] ');
    capture.write(Buffer.from('key=sk-01234'));
    expect(capture.readNew().text).toBe('key=');
    capture.write(Buffer.from('56789\n'));
    capture.close();
    expect(capture.readNew().text).toBe('[redacted]\n');
  });

  it('counts collapsed updates per read', () => {
    const capture = new OutputCapture({ maxOutputBytes: 1000, maxSpillBytes: 10_000 }, spills, 'stdout');
    capture.write(Buffer.from('1%\r2%\r3%\n'));
    expect(capture.readNew()).toEqual({ text: '3%\n', lost: false, collapsed: 2 });
    capture.write(Buffer.from('a\rb\n'));
    expect(capture.readNew()).toEqual({ text: 'b\n', lost: false, collapsed: 1 });
  });

  it('the spill is redacted, keeps escape codes and redraws, and is dropped when the collapsed view fit', () => {
    const capture = new OutputCapture({ maxOutputBytes: 64, maxSpillBytes: 10_000 }, spills, 'stdout', redactor);
    const redraws = Array.from({ length: 50 }, (_, i) => `\r\x1b[1m${i}%\x1b[0m`).join('');
    capture.write(Buffer.from(`${SECRET}\n${redraws}\n`));
    const spill = capture.spillPath!;
    // The last characters stay in the redactor's window until more text or the end arrives.
    const written = fs.readFileSync(spill, 'utf8');
    expect(written.length).toBeGreaterThan(64);
    expect(`[redacted]\n${redraws}\n`.startsWith(written)).toBe(true);
    capture.close();
    expect(capture.snapshot()).toEqual({ text: '[redacted]\n49%\n', bytes: 13 + 1 + redraws.length + 1, truncated: false });
    expect(fs.existsSync(spill)).toBe(false);
  });
});
