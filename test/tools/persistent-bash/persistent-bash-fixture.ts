import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CallContext, ToolResult } from '../../../src/core/tool-contract.js';
import { EnvRegistry, type EnvExecution } from '../../../src/providers/policy/env/env-registry.js';
import { TerminalService } from '../../../src/providers/exec/terminal/terminal-service.js';
import { createHost, replace } from '../../../src/container/create-host.js';
import type { DshHost } from '../../../src/container/dsh-host.js';
import { testingEnvironment } from '../../../src/testing.js';
import { BashPtyBackend } from '../../../src/providers/backends/pty/bash-pty-backend.js';
import { LocalTerminalService } from '../../../src/providers/exec/terminal/local-terminal-service.js';
import type { PersistentBashArgs } from '../../../src/tools/persistent-bash/persistent-bash-args.js';
import { PersistentBashConfig, resolvePersistentBashConfig } from '../../../src/tools/persistent-bash/persistent-bash-config.js';
import { fakeSession, type FakeSession } from '../../support/fake-session.js';

/** A tiny EnvRegistry: `DSH_SESSION_ID` of the calling session, recording what it was asked. */
export class RecordingEnvRegistry implements EnvRegistry {
  readonly executions: EnvExecution[] = [];
  list() {
    return [{ name: 'test', keys: [{ key: 'DSH_SESSION_ID', description: 'calling session' }] }];
  }
  collect(execution: EnvExecution): Record<string, string> {
    this.executions.push(execution);
    return execution.session ? { DSH_SESSION_ID: execution.session.id } : {};
  }
}

/** The real service, remembering the ids it handed out (in order). */
export class RecordingTerminalService extends LocalTerminalService {
  readonly ids: string[] = [];
  override async open(...args: Parameters<LocalTerminalService['open']>): Promise<string> {
    const id = await super.open(...args);
    this.ids.push(id);
    return id;
  }
}

export interface Harness {
  /** The active `bash` tool as the host runs it (validation and the invocation pipeline included). */
  readonly tool: { run(args: PersistentBashArgs, ctx: CallContext): Promise<ToolResult> };
  readonly host: DshHost;
  readonly terminals: RecordingTerminalService;
  readonly env: RecordingEnvRegistry;
  readonly workspace: string;
  session(id: string): FakeSession;
  call(session: FakeSession | undefined, command: string, signal?: AbortSignal): Promise<ToolResult>;
  /** A call with every argument given (e.g. `restart`). */
  callWith(session: FakeSession, args: PersistentBashArgs, signal?: AbortSignal): Promise<ToolResult>;
  text(session: FakeSession, command: string): Promise<string>;
  dispose(): Promise<void>;
}

/**
 * The persistent shell composed the way a package user tests one: the testing
 * environment with the persistent shell, the real PTY terminal service and a
 * recording env registry swapped in with `replace()`.
 */
export async function harness(
  config: Partial<PersistentBashConfig> = {},
  terminals = new RecordingTerminalService([new BashPtyBackend()]),
): Promise<Harness> {
  const workspace = realpathSync(mkdtempSync(path.join(tmpdir(), 'dsh-pbash-')));
  const env = new RecordingEnvRegistry();
  const host = await createHost(
    ...testingEnvironment({ shell: 'persistent' }),
    replace(TerminalService, terminals),
    replace(EnvRegistry, env),
    replace(PersistentBashConfig, resolvePersistentBashConfig(config)),
  );
  const tool = { run: (args: PersistentBashArgs, ctx: CallContext) => host.invoke('bash', args, ctx) };
  const sessions: FakeSession[] = [];
  let calls = 0;
  const callWith = (session: FakeSession | undefined, args: PersistentBashArgs, signal = new AbortController().signal) => {
    const ctx: CallContext = { session, signal, callId: `call-${++calls}` };
    return tool.run(args, ctx);
  };
  const call = (session: FakeSession | undefined, command: string, signal?: AbortSignal) => callWith(session, { command }, signal);
  return {
    tool,
    host,
    terminals,
    env,
    workspace,
    session(id) {
      const session = fakeSession(id, { cwd: workspace });
      sessions.push(session);
      return session;
    },
    call,
    callWith,
    async text(session, command) {
      const result = await call(session, command);
      return result.content[0]!.text;
    },
    /** Closes the sessions and the host, then removes the workspace it made. */
    async dispose() {
      await Promise.all(sessions.map((s) => s.dispose()));
      await host.dispose();
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}
