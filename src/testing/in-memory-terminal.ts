import type {
  PtySession,
  SendOptions,
  SendResult,
  TerminalBackend,
  TerminalOpenOptions,
} from '../providers/exec/terminal/terminal-service.js';

/** The state a scripted shell keeps between sends, visible to the responder. */
export interface InMemoryShellState {
  readonly id: number;
  cwd: string;
  readonly env: Record<string, string>;
  readonly commands: string[];
}

/** What a scripted send answers: plain output (exit 0) or a full result. */
export type InMemoryAnswer = string | Partial<SendResult>;

export type InMemoryResponder = (command: string, state: InMemoryShellState) => InMemoryAnswer;

/**
 * A TerminalBackend for unit tests: no PTY, no process. Each opened shell
 * keeps a small state (cwd, exported env, command history) that the
 * responder may read and change; `cd <dir>` and `exit [n]` are understood
 * by default so persistence and shell death can be tested without bash.
 */
export class InMemoryTerminal implements TerminalBackend {
  readonly shells: InMemoryShellState[] = [];
  private nextId = 1;

  constructor(
    private readonly responder: InMemoryResponder = () => '',
    readonly type = 'shell',
  ) {}

  async open(options: TerminalOpenOptions): Promise<PtySession> {
    const state: InMemoryShellState = { id: this.nextId++, cwd: options.cwd, env: { ...options.dshEnv }, commands: [] };
    this.shells.push(state);
    let alive = true;
    const respond = this.responder;
    return {
      pid: -state.id,
      get alive() {
        return alive;
      },
      async send(command: string, send: SendOptions): Promise<SendResult> {
        if (send.signal?.aborted) {
          alive = false;
          return { end: { kind: 'aborted' }, output: '', lostPrefix: false };
        }
        for (const [key, value] of Object.entries(send.env ?? {})) {
          if (value === '') delete state.env[key];
          else state.env[key] = value;
        }
        state.commands.push(command);
        const builtin = runBuiltin(command, state);
        if (builtin?.end.kind === 'shell-exited') alive = false;
        if (builtin) return builtin;
        const answer = respond(command, state);
        const result: SendResult =
          typeof answer === 'string'
            ? { end: { kind: 'completed', exitCode: 0 }, output: answer, lostPrefix: false }
            : { end: { kind: 'completed', exitCode: 0 }, output: '', lostPrefix: false, ...answer };
        if (result.end.kind !== 'completed' && result.end.kind !== 'waiting-for-input') alive = false;
        return result;
      },
      async close(): Promise<void> {
        alive = false;
      },
    };
  }
}

function runBuiltin(command: string, state: InMemoryShellState): SendResult | undefined {
  const cd = /^cd\s+(\S+)\s*$/.exec(command);
  if (cd) {
    state.cwd = cd[1]!.startsWith('/') ? cd[1]! : `${state.cwd.replace(/\/$/, '')}/${cd[1]}`;
    return { end: { kind: 'completed', exitCode: 0 }, output: '', lostPrefix: false };
  }
  const exit = /^exit(?:\s+(\d+))?\s*$/.exec(command);
  if (exit) {
    return { end: { kind: 'shell-exited', exitCode: Number(exit[1] ?? 0), signal: null }, output: '', lostPrefix: false };
  }
  return undefined;
}
