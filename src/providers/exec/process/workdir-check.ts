import fs from 'node:fs';

// Why a shell could not start in a workdir, in words the model can act on.

/** Why a directory cannot be entered, as a shell that tried it inside a container reports it too. */
export type WorkdirProblem = 'missing' | 'notdir' | 'denied';

/**
 * The one wording for each problem, on every backend. `label` names the
 * directory as the caller's model knows it: the one-shot `workdir`
 * argument, or the persistent shell's `working directory`.
 */
export function workdirMessage(problem: WorkdirProblem, dir: string, label = 'workdir', code = 'EACCES'): string {
  if (problem === 'missing') return `${label} does not exist: ${dir}`;
  if (problem === 'notdir') return `${label} is not a directory: ${dir}`;
  return `${label} is not accessible: ${dir} (${code})`;
}

/** Throws a message naming the directory when `dir` cannot be a working directory. */
export function checkWorkdir(dir: string, label = 'workdir'): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new Error(workdirMessage('missing', dir, label));
    throw new Error(workdirMessage('denied', dir, label, code ?? String(error)));
  }
  if (!stat.isDirectory()) throw new Error(workdirMessage('notdir', dir, label));
  // stat needs search permission on the parents only; the shell must be able to enter the directory itself.
  if (!canEnter(dir)) throw new Error(workdirMessage('denied', dir, label));
}

function canEnter(dir: string): boolean {
  try {
    fs.accessSync(dir, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function describeSpawnFailure(shellPath: string, workdir: string, result: unknown): string {
  const { code, originalMessage, message } = (result ?? {}) as Record<string, unknown>;
  const detail = typeof originalMessage === 'string' && originalMessage !== '' ? originalMessage : String(message);
  // spawn reports a failed chdir as ENOENT too: the workdir may have vanished since it was checked.
  if (code === 'ENOENT' && !fs.existsSync(workdir)) return `workdir does not exist: ${workdir}`;
  if (code === 'ENOENT') return `cannot start the shell: ${shellPath} was not found (${detail})`;
  if (code === 'EACCES' && !canEnter(workdir)) return `workdir is not accessible: ${workdir} (EACCES)`;
  if (code === 'EACCES') return `cannot start the shell: ${shellPath} is not executable (${detail})`;
  return `cannot start the shell ${shellPath}: ${detail}`;
}
