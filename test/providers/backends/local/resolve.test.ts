import path from 'node:path';
import { LocalShellExecutor } from '../../../../src/providers/backends/local/local-shell-executor.js';
import type { ExecRequest } from '../../../../src/providers/exec/shell/shell-executor.js';
import { ExecSpec } from '../../../../src/providers/exec/shell/shell-executor.js';

describe('LocalShellExecutor.checkRequest', () => {
  const executor = new LocalShellExecutor();

  it('fills the defaults: process cwd and 120000 ms', () => {
    const spec = executor.checkRequest({ command: 'true' });
    expect(spec).toEqual({ command: 'true', workdir: process.cwd(), timeoutMs: 120_000 });
  });

  it('defaults the workdir to config cwd and resolves relative workdirs against it', () => {
    const configured = new LocalShellExecutor({ cwd: '/srv/project' });
    expect(configured.checkRequest({ command: 'true' }).workdir).toBe('/srv/project');
    expect(configured.checkRequest({ command: 'true', workdir: 'src/../lib' }).workdir).toBe('/srv/project/lib');
    expect(configured.checkRequest({ command: 'true', workdir: '/abs' }).workdir).toBe('/abs');
    expect(executor.checkRequest({ command: 'true', workdir: 'rel' }).workdir).toBe(path.join(process.cwd(), 'rel'));
  });

  it('caps timeoutMs at maxTimeoutMs and keeps smaller values', () => {
    expect(executor.checkRequest({ command: 'true', timeoutMs: 10_000_000 }).timeoutMs).toBe(600_000);
    expect(executor.checkRequest({ command: 'true', timeoutMs: 1500 }).timeoutMs).toBe(1500);
    const small = new LocalShellExecutor({ timeoutMs: 1000, maxTimeoutMs: 2000 });
    expect(small.checkRequest({ command: 'true' }).timeoutMs).toBe(1000);
    expect(small.checkRequest({ command: 'true', timeoutMs: 5000 }).timeoutMs).toBe(2000);
  });

  it('keeps the caller fields it does not default', () => {
    const request: ExecRequest = {
      command: 'cat',
      stdin: 'data',
      env: { A: '1' },
      dshEnv: { DSH_X: 'y' },
    };
    expect(executor.checkRequest(request)).toMatchObject(request);
  });

  it.each([
    [0, '0'],
    [-5, '-5'],
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    ['100', '"100"'],
    [null, 'null'],
    [true, 'true'],
    [{ ms: 1 }, '{"ms":1}'],
  ])('rejects timeoutMs %p with a clear message', (value, shown) => {
    expect(() => executor.checkRequest({ command: 'true', timeoutMs: value as number })).toThrow(
      `invalid timeoutMs: expected a positive number, got ${shown}`,
    );
  });

  it.each([[''], ['   '], [undefined], [42], [null]])('rejects command %p', (command) => {
    expect(() => executor.checkRequest({ command: command as string })).toThrow(
      'invalid command: expected a non-empty string',
    );
  });

  it('rejects NUL characters and non-string env values instead of failing inside spawn', () => {
    expect(() => executor.checkRequest({ command: 'echo a\0b' })).toThrow('invalid command: contains a NUL character');
    expect(() => executor.checkRequest({ command: 'true', env: { A: 1 as unknown as string } })).toThrow(
      'invalid env: value of A must be a string without NUL characters',
    );
    expect(() => executor.checkRequest({ command: 'true', workdir: 7 as unknown as string })).toThrow(
      'invalid workdir: expected a path string, got 7',
    );
  });
});

describe('checks done once: an ExecSpec is the proof its checks ran', () => {
  const executor = new LocalShellExecutor({ timeoutMs: 1000, maxTimeoutMs: 2000 });
  const limits = executor.config;

  it('passes a checked spec through as is, also after the env overlay was added', () => {
    const spec = ExecSpec.check({ command: 'true' }, limits);
    expect(ExecSpec.of(spec, limits)).toBe(spec);
    const withEnv = spec.with({ dshEnv: { DSH_X: '1' } });
    expect(withEnv).toEqual({ ...spec, dshEnv: { DSH_X: '1' } });
    expect(ExecSpec.of(withEnv, limits)).toBe(withEnv);
    expect(Object.isFrozen(spec)).toBe(true);
  });

  it('checks again a copy, one checked under other limits, or a hand-made one', () => {
    const spec = ExecSpec.check({ command: 'true', timeoutMs: 1500 }, limits);
    expect(() => ExecSpec.of({ ...spec, command: ' ' }, limits)).toThrow('invalid command: expected a non-empty string');
    expect(() => ExecSpec.of({ ...spec, timeoutMs: Number.NaN }, limits)).toThrow('invalid timeoutMs');
    const copy = { ...spec };
    expect(ExecSpec.of(copy, limits)).not.toBe(copy);
    const wider = new LocalShellExecutor({ maxTimeoutMs: 600_000 }).config;
    expect(ExecSpec.of(ExecSpec.check({ command: 'true', timeoutMs: 500_000 }, wider), limits).timeoutMs).toBe(2000);
    expect(ExecSpec.of({ command: 'true', workdir: '/', timeoutMs: 999_999 }, limits).timeoutMs).toBe(2000);
  });
});
