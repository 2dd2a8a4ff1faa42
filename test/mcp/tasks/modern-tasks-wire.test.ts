// The 2026-07-28 Tasks extension's pure vocabulary: who declared it, the
// runtime status in the extension's words (a non-zero exit completes), the
// flat Task, and the -32021 a non-declaring request gets.
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { declaresTasksExtension, envelopeCapabilities, missingTasksExtension, modernStatusOf, TASKS_EXTENSION, toModernTask } from '../../../src/mcp/tasks/modern-tasks-wire.js';
import type { TaskSnapshot, TaskStatus } from '../../../src/providers/tasks/task-runtime.js';

const snapshot = (status: TaskStatus, extra: Partial<TaskSnapshot> = {}): TaskSnapshot => ({
  id: 'bash-3',
  kind: 'bash',
  label: 'count',
  status,
  startedAt: Date.UTC(2026, 6, 28, 1, 2, 3),
  ...extra,
});

it.each([
  ['running', 'working'],
  ['stopping', 'working'],
  ['completed', 'completed'],
  ['failed', 'completed'],
  ['killed', 'cancelled'],
] as const)('runtime %s is %s', (runtime, modern) => {
  expect(modernStatusOf(snapshot(runtime))).toBe(modern);
});

it('the Task is flat, carries the id it is given (never the runtime id), ttlMs null and pollIntervalMs', () => {
  const ended = Date.UTC(2026, 6, 28, 1, 2, 9);
  expect(toModernTask('dsh-t-x', snapshot('failed', { detail: 'exit code: 3', endedAt: ended }))).toEqual({
    taskId: 'dsh-t-x',
    status: 'completed',
    statusMessage: 'exit code: 3',
    createdAt: '2026-07-28T01:02:03.000Z',
    lastUpdatedAt: '2026-07-28T01:02:09.000Z',
    ttlMs: null,
    pollIntervalMs: 1000,
  });
  expect(toModernTask('dsh-t-y', snapshot('stopping')).statusMessage).toBe('stopping');
  expect(toModernTask('dsh-t-z', snapshot('running'))).not.toHaveProperty('statusMessage');
});

it.each([
  [{ extensions: { [TASKS_EXTENSION]: {} } }, true],
  [{ extensions: { [TASKS_EXTENSION]: { future: true } } }, true],
  [{ extensions: { [TASKS_EXTENSION]: null } }, false],
  [{ extensions: { [TASKS_EXTENSION]: true } }, false],
  [{ extensions: { 'io.modelcontextprotocol/ui': {} } }, false],
  [{ tasks: {} }, false],
  [{}, false],
  [undefined, false],
])('capabilities %j declare the extension: %s', (capabilities, declared) => {
  expect(declaresTasksExtension(capabilities)).toBe(declared);
});

it('the capabilities come from the request envelope only', () => {
  const capabilities = { extensions: { [TASKS_EXTENSION]: {} } };
  expect(envelopeCapabilities({ 'io.modelcontextprotocol/clientCapabilities': capabilities })).toBe(capabilities);
  expect(envelopeCapabilities({ 'io.modelcontextprotocol/clientCapabilities': 'nonsense' })).toBeUndefined();
  expect(envelopeCapabilities(undefined)).toBeUndefined();
});

it('a request that did not declare it gets -32021 naming the extension', () => {
  const error = missingTasksExtension();
  expect(error.code).toBe(ProtocolErrorCode.MissingRequiredClientCapability);
  expect(error.code).toBe(-32021);
  expect(error.data).toEqual({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
});
