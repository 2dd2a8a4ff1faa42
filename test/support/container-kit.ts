import { DockerContainerEngine, LABELS } from '../../src/index.js';

export const engine = new DockerContainerEngine();

/** Ids of the running containers labelled with this session id. */
export async function sessionContainers(sessionId: string): Promise<string[]> {
  return (await engine.list([`${LABELS.managed}=1`, `${LABELS.session}=${sessionId}`])).map((c) => c.id);
}

/** The process table (`pid args` lines) of the session's container, read with `ps` inside it, minus the `ps`. */
export async function containerProcesses(sessionId: string): Promise<string[]> {
  const [id] = await sessionContainers(sessionId);
  if (id === undefined) throw new Error(`no container for session ${sessionId}`);
  const channel = await engine.exec(id, { argv: ['ps', '-eo', 'pid,args'], env: {}, workdir: '/', tty: false, stdin: false });
  let out = '';
  channel.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  channel.stderr.resume();
  await channel.exited;
  return out.split('\n').filter((line) => line.trim() !== '' && !/\bps -eo\b/.test(line));
}
