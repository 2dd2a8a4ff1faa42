import type { ContainerEngine } from './container-engine.js';

/**
 * Bash run by one engine exec in the container, `$1` a held shell's launcher
 * pid: signals the terminal's foreground process group (`tpgid` in the
 * launcher's stat, the terminal's) unless it is the interactive bash itself
 * (the launcher's child) or the launcher, until (up to 2 s) the bash has the
 * terminal back. SIGINT first, as a ^C: a command dead of it makes bash drop
 * the rest of its line too; SIGKILL after half a second. Fields after
 * `pid (comm) `: state, ppid, pgrp, session, tty, tpgid.
 */
const FOREGROUND_KILL =
  'L=$1; exec 7<> <(:); ' +
  'stat() { local s; { s=$(<"/proc/$1/stat"); } 2>/dev/null || return 1; s=${s##*) }; read -r -a F <<<"$s"; }; ' +
  'for ((i = 0; i < 100; i++)); do stat "$L" || exit 0; t=${F[5]}; ' +
  '((t > 0)) && [[ $t != "$L" ]] || exit 0; stat "$t" && [[ ${F[1]} == "$L" ]] && exit 0; ' +
  'if ((i < 25)); then g=INT; else g=KILL; fi; kill -$g -- "-$t" 2>/dev/null; read -t 0.02 -u 7; done; exit 1';

/** Kills what a replica that stopped driving the shell left running in its foreground (shared-shell.ts). */
export async function killHeldForeground(engine: ContainerEngine, containerId: string, launcherPid: number, user?: string): Promise<void> {
  const exec = await engine.exec(containerId, {
    argv: ['bash', '-c', FOREGROUND_KILL, 'dsh-held-fg', String(launcherPid)],
    env: {},
    workdir: '/',
    tty: false,
    stdin: false,
    ...(user === undefined ? {} : { user }),
  });
  exec.stdout.resume();
  exec.stderr.resume();
  await exec.exited;
}
