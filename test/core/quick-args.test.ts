// The quick argument check (src/core/quick-args.ts) against class-validator, on the same arguments:
// whatever it accepts, class-validator accepts as the same instance, and it accepts every plain valid one.
import { validateArgs } from '../../src/core/arg-validation.js';
import { toPlainObject } from '../../src/core/plain-args.js';
import { quickArgs } from '../../src/core/quick-args.js';
import { argsSchema, argumentNames } from '../../src/core/tool-schema.js';
import { BashArgs } from '../../src/tools/bash/bash-args.js';
import { PersistentBashArgs } from '../../src/tools/persistent-bash/persistent-bash-args.js';
import { TaskKillArgs, TaskListArgs, TaskOutputArgs } from '../../src/tools/tasks/task-args.js';

/** Each argument class with valid arguments that the cases vary one name at a time. */
const CLASSES: Array<[new () => object, Record<string, unknown>]> = [
  [BashArgs, { command: 'true', description: 'x' }],
  [PersistentBashArgs, { command: 'true' }],
  [TaskOutputArgs, { task_id: 'bash-1' }],
  [TaskKillArgs, { task_id: 'bash-1' }],
  [TaskListArgs, {}],
];

/** Values a model (or an embedding program) may pass for any argument. */
const VALUES: unknown[] = [
  undefined, null, '', ' ', '\t\n', 'x', 'ls -la', 'bash-1', 'workspace-write', 'danger-full-access', 'read-only', '5', 'true',
  0, -1, 0.5, 1, 1.5, 5, 120_000, 600_001, Number.NaN, Number.POSITIVE_INFINITY, -0, true, false, {}, [], ['x'],
];

type Quick = typeof quickArgs;

/**
 * quickArgs with class-validator's registry hidden: in this process it is
 * loaded (the comparison needs it), and quickArgs steps aside once it is.
 */
const quickWithoutRegistry: Quick = (argsClass, plain) => {
  const holder = globalThis as { classValidatorMetadataStorage?: unknown };
  const storage = holder.classValidatorMetadataStorage;
  delete holder.classValidatorMetadataStorage;
  try {
    return quickArgs(argsClass, plain);
  } finally {
    holder.classValidatorMetadataStorage = storage;
  }
};

/** class-validator's answer: the instance, or its message. */
function full(cls: new () => object, plain: Record<string, unknown>): { instance?: object; message?: string } {
  try {
    return { instance: validateArgs(cls, plain, { tool: 't', names: Object.keys(plain) }) };
  } catch (error) {
    return { message: (error as Error).message };
  }
}

/** A small deterministic generator (the same cases every run). */
function* cases(valid: Record<string, unknown>, names: readonly string[], count: number): Generator<Record<string, unknown>> {
  yield {};
  yield valid;
  for (const name of names) {
    for (const value of VALUES) {
      yield value === undefined ? {} : { [name]: value };
      const { [name]: _dropped, ...rest } = valid;
      yield value === undefined ? rest : { ...valid, [name]: value };
    }
  }
  let seed = 7;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < count; i++) {
    const plain: Record<string, unknown> = {};
    for (const name of names) {
      const value = VALUES[Math.floor(next() * VALUES.length)];
      if (value !== undefined || next() < 0.2) plain[name] = value;
    }
    yield plain;
  }
}

/** Plain JSON-like values only (what quickArgs handles; the rest always goes to class-validator). */
const primitive = (plain: Record<string, unknown>) => Object.values(plain).every((value) => ['string', 'number', 'boolean'].includes(typeof value));

describe('quick argument check', () => {
  it.each(CLASSES.map(([cls, valid]) => [cls.name, cls, valid] as const))('%s: accepts exactly what class-validator accepts plainly, as the same instance', (_name, cls, valid) => {
    const names = argumentNames(argsSchema(cls));
    let accepted = 0;
    for (const plain of cases(valid, names, 3000)) {
      const quick = quickWithoutRegistry(cls, { ...plain });
      const answer = full(cls, { ...plain });
      if (quick !== undefined) {
        accepted++;
        expect(answer.message).toBeUndefined();
        expect(Object.getPrototypeOf(quick)).toBe(cls.prototype);
        expect(Object.entries(quick)).toEqual(Object.entries(answer.instance!));
      } else if (primitive(plain)) {
        // Valid plain arguments never pay for class-validator.
        expect(answer.instance).toBeUndefined();
      }
    }
    expect(accepted).toBeGreaterThan(0);
  });

  it('steps aside once class-validator is loaded, and for a class whose rules it did not record', () => {
    expect(quickWithoutRegistry(BashArgs, { command: 'true', description: 'x' })).toBeInstanceOf(BashArgs);
    // Loaded in this process (by arg-validation.js above): anyone's decorators may be in its registry.
    expect(quickArgs(BashArgs, { command: 'true', description: 'x' })).toBeUndefined();
    class Foreign {}
    class Extended extends BashArgs {}
    expect(quickWithoutRegistry(Foreign, {})).toBeUndefined();
    expect(quickWithoutRegistry(Extended, { command: 'true', description: 'x' })).toBeUndefined();
  });

  it('leaves unknown names to the plain-object step, with the same message as before', () => {
    const known = { tool: 'bash', names: argumentNames(argsSchema(BashArgs)) };
    expect(() => toPlainObject({ command: 'true', timeout_ms: 5 }, known)).toThrow(
      'unknown argument "timeout_ms" for bash; valid arguments: command, description, timeoutMs, workdir, run_in_background, sandbox_permissions, justification',
    );
    expect(() => validateArgs(BashArgs, { command: 'true', timeout_ms: 5 }, known)).toThrow(/^unknown argument "timeout_ms" for bash/);
  });
});
