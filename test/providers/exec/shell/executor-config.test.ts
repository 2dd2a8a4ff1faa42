import { resolveExecutorConfig } from '../../../../src/providers/exec/shell/executor-config.js';
import { LocalShellExecutor } from '../../../../src/providers/backends/local/local-shell-executor.js';
import { DEFAULT_EXECUTOR_CONFIG, type ExecutorConfig } from '../../../../src/providers/exec/shell/shell-executor.js';

describe('executor config', () => {
  it('merges a partial config over the defaults and makes cwd absolute', () => {
    const config = resolveExecutorConfig({ graceMs: 50, cwd: 'rel', timeoutMs: undefined });
    expect(config).toEqual({ ...DEFAULT_EXECUTOR_CONFIG, graceMs: 50, cwd: `${process.cwd()}/rel` });
    expect(resolveExecutorConfig(undefined)).toEqual(DEFAULT_EXECUTOR_CONFIG);
  });

  it('allows a zero grace (immediate SIGKILL)', () => {
    expect(resolveExecutorConfig({ graceMs: 0 }).graceMs).toBe(0);
  });

  it.each<[Partial<ExecutorConfig>, string]>([
    [{ timeoutMs: 0 }, 'invalid executor config: timeoutMs must be a positive integer'],
    [{ timeoutMs: 1.5 }, 'invalid executor config: timeoutMs must be a positive integer'],
    [{ maxTimeoutMs: Number.POSITIVE_INFINITY }, 'invalid executor config: maxTimeoutMs must be a positive integer'],
    [{ maxTimeoutMs: 2 ** 31 }, 'invalid executor config: maxTimeoutMs must be a positive integer of at most 2147483647'],
    [{ maxOutputBytes: -1 }, 'invalid executor config: maxOutputBytes must be a positive integer'],
    [{ maxSpillBytes: '5' as unknown as number }, 'invalid executor config: maxSpillBytes must be a positive integer of at most 9007199254740991, got "5"'],
    [{ graceMs: -1 }, 'invalid executor config: graceMs must be a non-negative integer'],
    [{ timeoutMs: 700_000 }, 'invalid executor config: timeoutMs (700000) must not exceed maxTimeoutMs (600000)'],
    [{ maxOutputBytes: 100, maxSpillBytes: 99 }, 'invalid executor config: maxSpillBytes (99) must be at least maxOutputBytes (100)'],
    [{ allowEnv: 'MY_TOKEN' as unknown as string[] }, 'invalid executor config: allowEnv must be an array of non-empty strings'],
    [{ shellPath: '' }, 'invalid executor config: shellPath must be a non-empty string, got ""'],
    [{ cwd: '' }, 'invalid executor config: cwd must be a non-empty string'],
    [{ keepSpills: 'yes' as unknown as boolean }, 'invalid executor config: keepSpills must be true or false, got "yes"'],
    [{ maxOutputByte: 5 } as unknown as Partial<ExecutorConfig>, 'invalid executor config: maxOutputByte is not a known key'],
  ])('rejects %p', (partial, message) => {
    expect(() => resolveExecutorConfig(partial)).toThrow(message);
    expect(() => new LocalShellExecutor(partial)).toThrow(message);
  });
});
