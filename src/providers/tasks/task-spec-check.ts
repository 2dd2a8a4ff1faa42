import type { TaskProcess, TaskStartSpec } from './task-runtime.js';

const KIND_PATTERN = /^[A-Za-z0-9_.]+(?:-[A-Za-z0-9_.]+)*$/;

/** A start spec from any caller (plugins are untyped at run time): a bad one fails `start` with the field named. */
export function validateTaskSpec(spec: TaskStartSpec): void {
  if (typeof spec !== 'object' || spec === null) throw new Error('invalid task spec: expected an object');
  if (typeof spec.kind !== 'string' || !KIND_PATTERN.test(spec.kind)) {
    throw new Error(`invalid task kind: expected letters, digits, "_", "." or inner "-", got ${JSON.stringify(spec.kind)}`);
  }
  if (typeof spec.label !== 'string') throw new Error('invalid task label: expected a string');
  if (typeof spec.producer !== 'function') throw new Error('invalid task producer: expected a function');
}

/** Whether a producer's answer is a task process (it may return anything at run time). */
export function isTaskProcess(value: unknown): value is TaskProcess {
  const candidate = value as Partial<TaskProcess> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.readOutput === 'function' &&
    typeof candidate.kill === 'function' &&
    typeof (candidate.done as Promise<unknown> | undefined)?.then === 'function'
  );
}
