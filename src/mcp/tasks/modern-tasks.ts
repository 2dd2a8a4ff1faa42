import type { CallToolResult } from '@modelcontextprotocol/server';
import type { DshHost } from '../../container/dsh-host.js';
import type { HostSession } from '../../container/host-session.js';
import { messageOf } from '../../core/describe-value.js';
import { Logger } from '../../providers/logging/logger.js';
import { McpTaskStore } from '../../providers/tasks/mcp-task-store.js';
import { TaskRuntime, type TaskSnapshot } from '../../providers/tasks/task-runtime.js';
import { sharedTaskResultOf, taskResultOf } from './mcp-task-result.js';
import type { ModernTaskEntry } from './modern-task-entry.js';
import { findSharedModernTask, recordSharedModernTask } from './shared-modern-task.js';
import { backgroundTaskOf, CANCEL_SETTLE_MS } from './mcp-tasks.js';
import { isTerminal, taskNotFound } from './mcp-tasks-wire.js';
import { toModernTask, type ModernTask } from './modern-tasks-wire.js';
import type { SessionHandles } from '../sessions/session-handles.js';

/** Task ids of this era are bearer-like: 32 random bytes, never a counter. */
const TASK_ID_PREFIX = 'dsh-t-';
/** Tasks remembered at most (oldest forgotten first), over every caller and handle. */
const MAX_TASKS = 1000;

/** What a `tools/call` that started a background task hands over to become a task. */
interface TaskHandOver {
  readonly caller: string | undefined;
  /** The handle of the session the call ran in (given, or minted by this call). */
  readonly handle: string;
  readonly session: HostSession;
  /** The handle notice the call's result carried when it minted the handle; repeated in the final result. */
  readonly handleNotice?: string;
}

const tables = new WeakMap<SessionHandles, ModernTasks>();

/**
 * The 2026-07-28 tasks (`io.modelcontextprotocol/tasks`) of one handle table.
 * A task IS a background task of a handle's session in the task runtime, as
 * in the 2025-11-25 era (mcp-tasks.ts): same output, `tasks/cancel` is
 * `task_kill`. Its id is random and bound to the caller and the handle: it
 * reads only while that caller's handle is alive, and every other id, a
 * guess or another caller's, reads as not found. The servers of this era
 * live for one request, so the table is the handle table's, found by it.
 */
export class ModernTasks {
  private readonly entries = new Map<string, ModernTaskEntry>();
  /** With `--shared-sessions`: every task is recorded there too, so any replica serves it (docs/shared-sessions.md#mcp-tasks). */
  private readonly store: McpTaskStore | undefined;

  /** The table of `handles`' sessions; undefined when the host has no task runtime (nothing changes). */
  static for(host: DshHost, handles: SessionHandles): ModernTasks | undefined {
    if (!host.isBound(TaskRuntime)) return undefined;
    let table = tables.get(handles);
    if (!table) tables.set(handles, (table = new ModernTasks(host, handles, host.get(TaskRuntime))));
    return table;
  }

  private constructor(
    private readonly host: DshHost,
    private readonly handles: SessionHandles,
    private readonly runtime: TaskRuntime,
  ) {
    this.store = host.isBound(McpTaskStore) ? host.get(McpTaskStore) : undefined;
  }

  /**
   * `tools/call` of a declaring request: a result that started a background
   * task (`run_in_background`, or promoted at the timeout) answers as the
   * task's handle, `resultType: "task"`. Its `content` keeps the call's text
   * (the start line, notices, a new session handle) for clients that show it.
   * With shared sessions the task is recorded before it is answered: the
   * client's next request may reach another replica.
   */
  async handOver(result: CallToolResult, over: TaskHandOver): Promise<CallToolResult> {
    const runtimeId = backgroundTaskOf(result);
    const snapshot = runtimeId === undefined ? undefined : this.runtime.get(over.session, runtimeId);
    if (runtimeId === undefined || !snapshot) return result;
    this.forgetGone();
    const taskId = TASK_ID_PREFIX + Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
    this.remember(taskId, { ...over, runtimeId });
    // Not recorded: this replica still serves it, the others answer as for an unknown id.
    await this.store
      ?.put(over.session, ...recordSharedModernTask(taskId, { ...over, runtimeId }))
      .catch((error: unknown) => this.logger()?.error(`mcp: task ${runtimeId} of session ${over.session.id} was not recorded for the other replicas: ${messageOf(error)}`));
    return { resultType: 'task', ...toModernTask(taskId, snapshot), content: result.content } as unknown as CallToolResult;
  }

  /** `tasks/get`: the task, and once it completed its final CallToolResult inline (what `task_output` says). */
  get(taskId: string, caller: string | undefined): Promise<ModernTask | (ModernTask & { result: CallToolResult })> {
    return this.withTask(taskId, caller, async (entry, session, snapshot) => {
      const task = toModernTask(taskId, snapshot);
      if (task.status !== 'completed') return task;
      const notices = entry.handleNotice ? [entry.handleNotice] : [];
      entry.result ??= this.store
        ? sharedTaskResultOf(this.store, session, this.host, this.runtime, { mcpTaskId: taskId, taskId: entry.runtimeId }, notices)
        : taskResultOf(session, this.host, this.runtime, entry.runtimeId, notices);
      return { ...task, result: await entry.result };
    });
  }

  /** `tasks/cancel`: `task_kill`, acknowledged once the process is gone (a finished task: acknowledged as is). */
  cancel(taskId: string, caller: string | undefined): Promise<Record<string, never>> {
    return this.withTask(taskId, caller, async (entry, session, snapshot) => {
      if (isTerminal(toModernTask(taskId, snapshot).status)) return {};
      const killed = await this.runtime.kill(session, entry.runtimeId, 'cancelled by the MCP client (tasks/cancel)');
      if (killed && !killed.alreadyFinished) await this.runtime.wait(session, entry.runtimeId, CANCEL_SETTLE_MS);
      return {};
    });
  }

  /**
   * `tasks/update`: nothing of ours asks for input while a task runs (approvals
   * are settled before the task exists), so no key is ever outstanding and,
   * as the extension says, responses to such keys are ignored: an empty ack.
   */
  update(taskId: string, caller: string | undefined): Promise<Record<string, never>> {
    return this.withTask(taskId, caller, () => Promise.resolve({}));
  }

  /** Runs `use` on the caller's own live task; anything else is the not-found error, alike for every reason. */
  private async withTask<T>(taskId: string, caller: string | undefined, use: (entry: ModernTaskEntry, session: HostSession, snapshot: TaskSnapshot) => Promise<T>): Promise<T> {
    const entry = this.entries.get(taskId) ?? (await this.found(taskId, caller));
    if (!entry || entry.caller !== caller) throw taskNotFound(taskId);
    // Through the handle table: a released handle's tasks are gone, and a poll keeps the session from idling out.
    const held = await this.handles.acquire(entry.handle, caller);
    if (typeof held === 'string') {
      this.entries.delete(taskId);
      throw taskNotFound(taskId);
    }
    try {
      // A shared session's task is its sandbox's: whichever host session serves the handle here now reads it.
      if (this.store) {
        await this.runtime.prepare?.(held.session);
        entry.session = held.session;
      }
      const snapshot = held.session === entry.session ? this.runtime.get(held.session, entry.runtimeId) : undefined;
      if (!snapshot) {
        this.entries.delete(taskId);
        throw taskNotFound(taskId);
      }
      return await use(entry, held.session, snapshot);
    } finally {
      await held.finish();
    }
  }

  /** A task another replica handed over (or this one before a restart), from its shared record; undefined without one. */
  private async found(taskId: string, caller: string | undefined): Promise<ModernTaskEntry | undefined> {
    if (!this.store) return undefined;
    const entry = await findSharedModernTask(this.store, taskId, caller).catch(() => undefined);
    if (entry) this.remember(taskId, entry);
    return entry;
  }

  private remember(taskId: string, entry: ModernTaskEntry): void {
    this.entries.set(taskId, entry);
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= MAX_TASKS) break;
      this.entries.delete(oldest);
    }
  }

  private logger(): Logger | undefined {
    return this.host.isBound(Logger) ? this.host.get(Logger) : undefined;
  }

  /** Drops tasks whose session was released or whose runtime task was forgotten. */
  private forgetGone(): void {
    for (const [taskId, entry] of this.entries) {
      if (entry.session && !this.runtime.get(entry.session, entry.runtimeId)) this.entries.delete(taskId);
    }
  }
}
