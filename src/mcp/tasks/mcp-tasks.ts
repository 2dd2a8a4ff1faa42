import { ProtocolError, ProtocolErrorCode, type CallToolResult, type ListToolsResult, type Server, type ServerContext } from '@modelcontextprotocol/server';
import type { DshHost } from '../../container/dsh-host.js';
import type { HostSession } from '../../container/host-session.js';
import { messageOf } from '../../core/describe-value.js';
import type { Logger } from '../../providers/logging/logger.js';
import { mcpTaskRecordName, McpTaskStore } from '../../providers/tasks/mcp-task-store.js';
import { TaskRuntime, type TaskSnapshot } from '../../providers/tasks/task-runtime.js';
import type { CallRequest } from '../calls/call-runner.js';
import { sharedTaskResultOf, taskResultOf } from './mcp-task-result.js';
import {
  DEFAULT_TASK_TTL_MS,
  LIST_PARAMS,
  TASK_ID_PARAMS,
  TASK_POLL_INTERVAL_MS,
  clientDeclaresTasks,
  grantedTtl,
  isTerminal,
  notCancellable,
  relatedTaskMeta,
  taskCapabilitiesFor,
  taskNotFound,
  taskNotSupported,
  toMcpTask,
  type McpTask,
} from './mcp-tasks-wire.js';

type McpTool = ListToolsResult['tools'][number];

/** How long `tasks/cancel` waits for the killed process to settle before it answers. */
export const CANCEL_SETTLE_MS = 30_000;
/** Kept ttls, answers and refused calls per connection (oldest forgotten first), so a long session stays bounded. */
const KEPT_PER_CONNECTION = 100;

/** A task-augmented call refused before anything started: a failed task with no background task behind it. */
interface RefusedCall {
  readonly task: McpTask;
  readonly result: CallToolResult;
}

/**
 * MCP tasks (2025-11-25) of one 2025-era connection, for a client that
 * declared the `tasks` capability. An MCP task IS a background task of the
 * connection's session in the task runtime: same id, same status, same
 * output; `tasks/cancel` is `task_kill`. A task-augmented `tools/call` runs
 * the tool with `run_in_background`, and every background task of the
 * session (`run_in_background`, a promoted timeout) is listed and polled the
 * same way. The runtime's owner fence is the fence: another session's id
 * reads as unknown. A client that did not declare tasks sees none of this.
 * With shared sessions (`McpTaskStore` bound) a task's ttl and kept result
 * are recorded beside the session's tasks, so the replica that adopted the
 * connection answers alike (docs/shared-sessions.md#mcp-tasks).
 */
export class McpTasks {
  private readonly ttls = new Map<string, number>();
  private readonly results = new Map<string, Promise<CallToolResult>>();
  private readonly refused = new Map<string, RefusedCall>();
  private refusedCount = 0;
  private readonly unsubscribe: () => void;
  private readonly store: McpTaskStore | undefined;

  /** Attaches to `server` when the host has a task runtime; undefined otherwise (nothing changes). */
  static attach(server: Server, session: HostSession, host: DshHost, logger?: Logger): McpTasks | undefined {
    return host.isBound(TaskRuntime) ? new McpTasks(server, session, host, host.get(TaskRuntime), logger) : undefined;
  }

  private constructor(
    private readonly server: Server,
    private readonly session: HostSession,
    private readonly host: DshHost,
    private readonly runtime: TaskRuntime,
    private readonly logger?: Logger,
  ) {
    this.store = host.isBound(McpTaskStore) ? host.get(McpTaskStore) : undefined;
    // The initialize result reads getCapabilities() after it stored the client's: tasks are offered only to a client that declared them.
    const declared = server.getCapabilities.bind(server);
    server.getCapabilities = () => ({ ...declared(), ...taskCapabilitiesFor(server.getClientCapabilities(), true) });
    this.registerHandlers();
    this.unsubscribe = runtime.onTaskDone((event) => {
      if (event.owner?.id === session.id && this.declared()) this.notifyStatus(event.snapshot);
    });
  }

  /** `tools/list`: a tool that can run in the background is offered as a task. */
  readonly shapeTool = (tool: McpTool): McpTool =>
    this.declared() && supportsTasks(tool) ? { ...tool, execution: { taskSupport: 'optional' } } : tool;

  /** `tools/call`: task-augmented calls become background tasks; other calls run as `plain` runs them. */
  async call(call: CallRequest, plain: (call: CallRequest) => Promise<CallToolResult>): Promise<CallToolResult> {
    // A client that did not declare tasks gets today's behaviour, a stray `task` parameter ignored.
    if (!this.declared()) return plain(call);
    if (call.task === undefined) return this.linked(await plain(call));
    const ttl = grantedTtl(call.task);
    const tool = this.host.tools().find((candidate) => candidate.name === call.name);
    if (!tool || !supportsTasks(tool)) throw taskNotSupported(call.name);
    const result = await plain({ ...call, args: { ...call.args, run_in_background: true } });
    const started = backgroundTaskOf(result);
    const snapshot = started === undefined ? undefined : this.runtime.get(this.session, started);
    if (!snapshot) return this.refuse(result, ttl);
    keep(this.ttls, snapshot.id, ttl);
    // Recorded before it is answered: the client's next request may reach another replica.
    await this.store
      ?.put(this.session, mcpTaskRecordName(snapshot.id, 'task'), { era: 'legacy', ttl })
      .catch((error: unknown) => this.logger?.error(`mcp: task ${snapshot.id} of session ${this.session.id} was not recorded for the other replicas: ${messageOf(error)}`));
    return { ...result, task: toMcpTask(snapshot, ttl) } as CallToolResult;
  }

  detach(): void {
    this.unsubscribe();
  }

  private declared(): boolean {
    return clientDeclaresTasks(this.server.getClientCapabilities());
  }

  private registerHandlers(): void {
    // The SDK has the 2025-11-25 task wire but no task runtime: these four are served here.
    const on = this.server.setRequestHandler.bind(this.server) as unknown as (
      method: string,
      schemas: { params: typeof TASK_ID_PARAMS | typeof LIST_PARAMS },
      handler: (params: { taskId: string; cursor?: string }, ctx: ServerContext) => Promise<unknown>,
    ) => void;
    // To a client that did not declare tasks these methods do not exist, as before.
    const served = <T>(answer: () => T | Promise<T>): Promise<T> =>
      this.declared() ? Promise.resolve().then(answer) : Promise.reject(new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found'));
    on('tasks/get', { params: TASK_ID_PARAMS }, ({ taskId }) => served(() => this.taskOf(taskId)));
    on('tasks/list', { params: LIST_PARAMS }, () => served(async () => ({ tasks: await this.list() })));
    on('tasks/result', { params: TASK_ID_PARAMS }, ({ taskId }, ctx) => served(() => this.result(taskId, ctx.mcpReq.signal)));
    on('tasks/cancel', { params: TASK_ID_PARAMS }, ({ taskId }) => served(() => this.cancel(taskId)));
  }

  private async taskOf(taskId: string): Promise<McpTask> {
    const refused = this.refused.get(taskId);
    if (refused) return refused.task;
    await this.ready([taskId]);
    const snapshot = this.runtime.get(this.session, taskId);
    if (!snapshot) throw taskNotFound(taskId);
    return this.wire(snapshot);
  }

  private async list(): Promise<McpTask[]> {
    await this.ready();
    const snapshots = this.runtime.list(this.session);
    await this.ready(snapshots.map((snapshot) => snapshot.id));
    return [...snapshots.map((snapshot) => this.wire(snapshot)), ...[...this.refused.values()].map((call) => call.task)];
  }

  /**
   * Brings the session's tasks into view (a runtime that keeps them outside
   * this process), and with shared sessions the recorded ttls of `ids`
   * this replica did not grant itself.
   */
  private async ready(ids: readonly string[] = []): Promise<void> {
    await this.runtime.prepare?.(this.session);
    const store = this.store;
    if (!store) return;
    for (const id of ids.filter((candidate) => !this.ttls.has(candidate))) {
      const record = await store.get<{ era?: unknown; ttl?: unknown }>(this.session, mcpTaskRecordName(id, 'task')).catch(() => undefined);
      if (record?.era === 'legacy' && typeof record.ttl === 'number') keep(this.ttls, id, record.ttl);
    }
  }

  /** Blocks until the task is terminal, then answers what `task_output` says about it (the same answer every time). */
  private async result(taskId: string, signal: AbortSignal): Promise<CallToolResult> {
    const refused = this.refused.get(taskId);
    if (refused) return refused.result;
    await this.ready([taskId]);
    let snapshot = this.runtime.get(this.session, taskId);
    while (snapshot && !isTerminal(this.wire(snapshot).status)) {
      if (signal.aborted) throw new Error('tasks/result cancelled by the client');
      snapshot = await this.runtime.wait(this.session, taskId, 60_000, signal);
    }
    if (!snapshot) throw taskNotFound(taskId);
    let result = this.results.get(taskId);
    if (!result) {
      result = this.store
        ? sharedTaskResultOf(this.store, this.session, this.host, this.runtime, { mcpTaskId: taskId, taskId })
        : taskResultOf(this.session, this.host, this.runtime, taskId);
      keep(this.results, taskId, result);
    }
    const answer = await result;
    return { ...answer, _meta: { ...answer._meta, ...relatedTaskMeta(taskId) } };
  }

  private async cancel(taskId: string): Promise<McpTask> {
    const refused = this.refused.get(taskId);
    if (refused) throw notCancellable(refused.task.status);
    await this.ready([taskId]);
    const before = this.runtime.get(this.session, taskId);
    if (!before) throw taskNotFound(taskId);
    if (isTerminal(this.wire(before).status)) throw notCancellable(this.wire(before).status);
    const killed = await this.runtime.kill(this.session, taskId, 'cancelled by the MCP client (tasks/cancel)');
    if (!killed) throw taskNotFound(taskId);
    if (killed.alreadyFinished) throw notCancellable(this.wire(killed.snapshot).status);
    // Awaited so the answer comes after the process is gone: a cancelled task leaves nothing running.
    const settled = (await this.runtime.wait(this.session, taskId, CANCEL_SETTLE_MS)) ?? killed.snapshot;
    const task = this.wire(settled);
    return isTerminal(task.status) ? task : { ...task, status: 'cancelled' };
  }

  private wire(snapshot: TaskSnapshot): McpTask {
    return toMcpTask(snapshot, this.ttls.get(snapshot.id) ?? DEFAULT_TASK_TTL_MS);
  }

  /** A plain call that started a background task names it in `_meta`, so the client can follow it as a task. */
  private linked(result: CallToolResult): CallToolResult {
    const taskId = backgroundTaskOf(result);
    return taskId === undefined ? result : { ...result, _meta: { ...result._meta, ...relatedTaskMeta(taskId) } };
  }

  private refuse(result: CallToolResult, ttl: number): CallToolResult {
    const now = new Date().toISOString();
    const taskId = `refused-${++this.refusedCount}`;
    const text = result.content.find((block) => block.type === 'text');
    const task: McpTask = {
      taskId,
      status: 'failed',
      ...(text?.type === 'text' ? { statusMessage: text.text.split('\n')[0] } : {}),
      createdAt: now,
      lastUpdatedAt: now,
      ttl,
      pollInterval: TASK_POLL_INTERVAL_MS,
    };
    keep(this.refused, taskId, { task, result: { ...result, isError: true } });
    this.notifyStatus(undefined, task);
    return { ...result, task } as CallToolResult;
  }

  private notifyStatus(snapshot: TaskSnapshot | undefined, task: McpTask | undefined = snapshot && this.wire(snapshot)): void {
    if (!task || !this.server.transport) return;
    const notify = this.server.notification.bind(this.server) as unknown as (notification: { method: string; params: McpTask }) => Promise<void>;
    notify({ method: 'notifications/tasks/status', params: task }).catch((error: unknown) =>
      this.logger?.debug(`mcp: task status of ${task.taskId} not delivered: ${messageOf(error)}`),
    );
  }
}

function keep<V>(map: Map<string, V>, key: string, value: V): void {
  map.set(key, value);
  for (const oldest of map.keys()) {
    if (map.size <= KEPT_PER_CONNECTION) break;
    map.delete(oldest);
  }
}

/** A tool whose arguments include `run_in_background` can run as a task. */
function supportsTasks(tool: { inputSchema: { properties?: unknown } }): boolean {
  const properties = tool.inputSchema.properties as Record<string, unknown> | undefined;
  return properties?.run_in_background !== undefined;
}

/** The background task a tool result reports having started (structured `{ kind: 'background', taskId }`). */
export function backgroundTaskOf(result: CallToolResult): string | undefined {
  const value = result.structuredContent as { kind?: unknown; taskId?: unknown } | undefined;
  return !result.isError && value?.kind === 'background' && typeof value.taskId === 'string' ? value.taskId : undefined;
}
