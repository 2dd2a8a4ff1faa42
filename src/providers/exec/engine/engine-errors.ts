import type { DockerOptions } from 'dockerode';

/** Where the engine is: `host` (unix path, `unix://…`, `tcp://…`, `http(s)://…`), else `DOCKER_HOST`, else the local socket. */
export function engineEndpoint(host: string | undefined, ambient: NodeJS.ProcessEnv = process.env): {
  endpoint: string;
  options: DockerOptions;
} {
  const raw = host ?? ambient.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
  if (raw.startsWith('/')) return { endpoint: `unix://${raw}`, options: { socketPath: raw } };
  if (raw.startsWith('unix://')) return { endpoint: raw, options: { socketPath: raw.slice('unix://'.length) } };
  const match = /^(tcp|http|https):\/\/([^:/]+)(?::(\d+))?\/?$/.exec(raw);
  if (!match) throw new Error(`invalid container engine host "${raw}": expected unix:///path, /path or tcp://host:port`);
  const protocol = match[1] === 'https' ? 'https' : 'http';
  return {
    endpoint: raw,
    options: { protocol, host: match[2]!, port: Number(match[3] ?? (protocol === 'https' ? 2376 : 2375)) },
  };
}

/** A model-readable cause for a failed engine call. */
export function describeEngineError(error: unknown, endpoint: string): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT' || code === 'ECONNREFUSED' || code === 'EACCES' || code === 'EHOSTUNREACH' || code === 'ENOTFOUND') {
    return `container engine unreachable at ${endpoint} (${code})`;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (/timed out/.test(message)) return `container engine unreachable at ${endpoint} (${message})`;
  // dockerode: "(HTTP code 500) server error - <engine message>"
  return message.replace(/^\(HTTP code \d+\)\s*[^-]*-\s*/, '').trim() || message;
}

/** Rejects with `message` when `promise` has not settled in time (the promise itself is left to settle). */
export function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  promise.catch(() => undefined);
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
