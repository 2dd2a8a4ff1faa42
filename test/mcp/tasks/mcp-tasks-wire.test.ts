// The task vocabulary's pure mapping: runtime status → MCP status, the Task
// object, the ttl a `task` parameter gets, and who is offered tasks.
import {
  DEFAULT_TASK_TTL_MS,
  MAX_TASK_TTL_MS,
  SERVER_TASK_CAPABILITIES,
  grantedTtl,
  isTerminal,
  mcpStatusOf,
  taskCapabilitiesFor,
  toMcpTask,
} from '../../../src/mcp/tasks/mcp-tasks-wire.js';
import type { TaskSnapshot, TaskStatus } from '../../../src/providers/tasks/task-runtime.js';

const snapshot = (status: TaskStatus, extra: Partial<TaskSnapshot> = {}): TaskSnapshot => ({
  id: 'bash-7',
  kind: 'bash',
  label: 'count',
  status,
  startedAt: Date.UTC(2026, 0, 2, 3, 4, 5),
  ...extra,
});

describe('status mapping', () => {
  it.each([
    ['running', 'working'],
    ['stopping', 'working'],
    ['completed', 'completed'],
    ['failed', 'failed'],
    ['killed', 'cancelled'],
  ] as const)('%s → %s', (runtime, mcp) => {
    expect(mcpStatusOf(snapshot(runtime))).toBe(mcp);
  });

  it('only completed, failed and cancelled are terminal', () => {
    expect(['working', 'input_required', 'completed', 'failed', 'cancelled'].map((status) => isTerminal(status as never))).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
  });
});

describe('the Task object', () => {
  it('carries the id, ISO times, ttl, poll interval and the terminal detail', () => {
    const ended = snapshot('failed', { detail: 'exit code: 3', endedAt: Date.UTC(2026, 0, 2, 3, 4, 9) });
    expect(toMcpTask(ended, 5000)).toEqual({
      taskId: 'bash-7',
      status: 'failed',
      statusMessage: 'exit code: 3',
      createdAt: '2026-01-02T03:04:05.000Z',
      lastUpdatedAt: '2026-01-02T03:04:09.000Z',
      ttl: 5000,
      pollInterval: 1000,
    });
  });

  it('a stopping task says so, and a running one has no message', () => {
    expect(toMcpTask(snapshot('stopping'), 1).statusMessage).toBe('stopping');
    expect(toMcpTask(snapshot('running'), 1)).not.toHaveProperty('statusMessage');
  });
});

describe('the ttl of a task parameter', () => {
  it('absent or null → the default; within range → as asked (whole ms); above → the maximum', () => {
    expect(grantedTtl({})).toBe(DEFAULT_TASK_TTL_MS);
    expect(grantedTtl({ ttl: null })).toBe(DEFAULT_TASK_TTL_MS);
    expect(grantedTtl({ ttl: 1500.7 })).toBe(1500);
    expect(grantedTtl({ ttl: 0 })).toBe(0);
    expect(grantedTtl({ ttl: MAX_TASK_TTL_MS * 10 })).toBe(MAX_TASK_TTL_MS);
  });

  it.each([[{ ttl: -1 }], [{ ttl: 'soon' }], [{ ttl: Infinity }], [{ ttl: true }], ['task'], [null], [[1]]])('%j → -32602', (task) => {
    expect(() => grantedTtl(task)).toThrow(expect.objectContaining({ code: -32602 }));
  });
});

describe('who is offered tasks', () => {
  it('a client that declares tasks, on a host with a task runtime', () => {
    expect(taskCapabilitiesFor({ tasks: {} } as never, true)).toEqual({ tasks: SERVER_TASK_CAPABILITIES });
    expect(taskCapabilitiesFor({ tasks: {} } as never, false)).toEqual({});
    expect(taskCapabilitiesFor({}, true)).toEqual({});
    expect(taskCapabilitiesFor(undefined, true)).toEqual({});
    expect(taskCapabilitiesFor({ tasks: true } as never, true)).toEqual({});
  });
});
