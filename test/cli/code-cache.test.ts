// The code cache file's own checks (src/cli/code-cache.ts): V8 compares only
// its version, its flags and the source length, so every other mismatch must
// be caught here, before V8 sees the bytes.
import { bundleIdOf, decodeCodeCache, encodeCodeCache } from '../../src/cli/code-cache.js';

const ID = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
const PAYLOAD = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 31) % 256));

describe('bundleIdOf', () => {
  it('reads the id from the first line of a bundle', () => {
    expect(bundleIdOf(`// dsh-tools-bundle ${ID}\nvar x=1;`)).toBe(ID);
  });
  it.each([
    ['no mark', 'var x=1;'],
    ['an id that is not hex', '// dsh-tools-bundle not-an-id\nvar x=1;'],
    ['an empty id', '// dsh-tools-bundle \nvar x=1;'],
    ['the mark on a later line', `var x=1;\n// dsh-tools-bundle ${ID}\n`],
  ])('has none with %s', (_case, text) => {
    expect(bundleIdOf(text)).toBeUndefined();
  });
});

describe('decodeCodeCache', () => {
  const file = encodeCodeCache(ID, PAYLOAD);

  it('gives back the payload of an intact cache of this bundle', () => {
    expect(decodeCodeCache(ID, file)?.equals(PAYLOAD)).toBe(true);
  });

  it('refuses the cache of another bundle', () => {
    expect(decodeCodeCache('0'.repeat(32), file)).toBeUndefined();
  });

  it('refuses a payload with one byte changed', () => {
    for (const at of [0, 1000, PAYLOAD.length - 1]) {
      const damaged = Buffer.from(file);
      const offset = file.indexOf(0x0a) + 1 + at;
      damaged[offset] = damaged[offset]! ^ 0x01;
      expect(decodeCodeCache(ID, damaged)).toBeUndefined();
    }
  });

  it.each([
    ['cut short', () => file.subarray(0, file.length - 10)],
    ['longer', () => Buffer.concat([file, Buffer.from([0])])],
    ['empty', () => Buffer.alloc(0)],
    ['a header only', () => file.subarray(0, file.indexOf(0x0a) + 1)],
    ['raw V8 data without a header', () => PAYLOAD],
    ['text', () => Buffer.from('hello\nworld')],
    ['a header with an extra field', () => Buffer.concat([Buffer.from(`${file.toString('latin1', 0, file.indexOf(0x0a))} x\n`), PAYLOAD])],
  ])('refuses a file that is %s', (_case, make) => {
    expect(decodeCodeCache(ID, make())).toBeUndefined();
  });
});
