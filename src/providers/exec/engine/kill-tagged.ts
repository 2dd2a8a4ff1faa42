import { EXEC_TAG_VAR, type ExecChannel, type ExecOptions } from './container-engine.js';

/**
 * Bash: signal every process whose initial environment carries the tag,
 * oldest pid first (an indexed array lists its indices in ascending order),
 * so a parent is signalled before its children: a child signalled first
 * would let its parent run on (the rest of a `sleep 30; echo never`), which
 * a local process-group kill never allows. Not stopped first: a stopped
 * child wakes a job-control parent's `wait` (the exec wrapper's).
 */
const KILL_TAGGED =
  'k=(); for d in /proc/[0-9]*; do p=${d#/proc/}; [[ $p == "$$" ]] && continue; ' +
  'mapfile -d "" -t vars 2>/dev/null <"$d/environ" || continue; for v in "${vars[@]}"; do ' +
  `if [[ $v == "${EXEC_TAG_VAR}=$1" ]]; then k[$p]=1; break; fi; done; done; n=0; ` +
  'for p in "${!k[@]}"; do kill -s "$2" "$p" 2>/dev/null && n=$((n+1)); done; echo $n';

/**
 * `killTagged` for any engine that can exec: runs `KILL_TAGGED` through the
 * engine's own `exec` and resolves with how many processes it signalled.
 */
/** How long a kill's own exec may take before the host stops waiting for it. */
const KILL_EXEC_WAIT_MS = 10_000;

export async function killTaggedThrough(
  exec: (options: ExecOptions) => Promise<ExecChannel>,
  tag: string,
  signal: 'TERM' | 'KILL',
  extra: Partial<ExecOptions> = {},
): Promise<number> {
  const channel = await exec({ argv: ['bash', '-c', KILL_TAGGED, 'dsh-kill', tag, signal], env: {}, workdir: '/', tty: false, stdin: false, ...extra });
  let out = '';
  channel.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  channel.stderr.resume();
  // An engine may keep the exec's stream open after it ended: cut it rather than hold a stop forever.
  let timer: NodeJS.Timeout | undefined;
  const ended = await Promise.race([
    channel.exited.then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), KILL_EXEC_WAIT_MS))),
  ]);
  clearTimeout(timer);
  if (!ended) channel.detach();
  return Number.parseInt(out.trim(), 10) || 0;
}
