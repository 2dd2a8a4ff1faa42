// The one script every driver runs: each client gets an adapter (connect,
// listTools, call, close) and this file walks the same cases in the same
// order, writing one JSON object (case name → outcome) to config.resultFile.
// A case that throws records its error; the jest side decides what passes.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const bash = (command, extra = {}) => ({ command, description: 'interop test command', ...extra });

/** Pids whose command line contains `needle` (the marker of the cancel case). */
function processesWith(needle) {
  const found = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(needle)) found.push(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

async function until(check, what, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function describeError(error) {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const code = error && typeof error === 'object' && 'code' in error ? error.code : undefined;
  return { error: text.slice(0, 2000), ...(code !== undefined ? { code } : {}) };
}

/** One line from the parent (jest) on stdin: the event the driver waits for. */
function nextStdinLine() {
  const lines = createInterface({ input: process.stdin });
  return new Promise((resolve) => lines.once('line', (line) => (lines.close(), resolve(line))));
}

const CASES = {
  async connect(client) {
    return (await client.connect()) ?? {};
  },
  async list(client) {
    return { tools: await client.listTools() };
  },
  echo: (client) => client.call('bash', bash('echo hi')),
  exit: (client) => client.call('bash', bash('echo failing; exit 3')),
  // Clients with a structured-only mode (OpenAI Agents' useStructuredContent): what the model gets then.
  exitStructured: (client) => client.call('bash', bash('echo failing; exit 3'), { structuredMode: true }),
  long: (client) => client.call('bash', bash('seq 1 300000')),
  async heartbeat(client, config) {
    const progress = [];
    const started = Date.now();
    const result = await client.call('bash', bash(`sleep ${config.quietSeconds}; echo quiet-done`), {
      // Shorter than the command: only progress keeps the call alive.
      timeoutMs: config.quietTimeoutMs,
      onProgress: (p) => progress.push({ ...p, atMs: Date.now() - started }),
    });
    return { ...result, progress, elapsedMs: Date.now() - started };
  },
  async background(client) {
    const started = await client.call('bash', bash('sleep 1; echo bg-done', { run_in_background: true }));
    const id = /\b(?:task|id)[: ]+([A-Za-z0-9_-]+)/.exec(started.text ?? '')?.[1] ?? /\b([a-z]+-?[0-9a-f]{4,}|\d+)\b/.exec(started.text ?? '')?.[1];
    // In the 2026-07-28 era the task lives in a session the result names; a model passes that handle on.
    const session = /\[session: (dsh-s-[A-Za-z0-9_-]+)/.exec(started.text ?? '')?.[1];
    const output = await client.call('task_output', { task_id: id, wait: true, timeout_ms: 20_000, ...(session ? { session } : {}) });
    return { started, taskId: id, session, output };
  },
  async cancel(client, config) {
    // config.marker is a unique sleep length (1000.<digits>) the jest side can find too.
    const needle = config.marker;
    const controller = new AbortController();
    const begun = Date.now();
    const pending = client.call('bash', bash(`echo started; sleep ${needle}`), { signal: controller.signal });
    pending.catch(() => {});
    await until(() => processesWith(needle).length > 0, `${needle} to run`);
    controller.abort();
    let outcome;
    try {
      outcome = { settled: 'resolved', result: await pending };
    } catch (error) {
      outcome = { settled: 'rejected', abortError: describeError(error).error };
    }
    const settledMs = Date.now() - begun;
    const after = await client.call('bash', bash('echo after-cancel'));
    return { ...outcome, settledMs, after };
  },
  approval: (client) => client.call('bash', bash('echo approve-me')),
  // Clients with a schema linter (Inspector --strict): its portability report on our tools.
  strict: (client) => client.strict(),
};

/**
 * Runs `config.cases` against a client made by `makeClient(config)`.
 * The "badToken" and "expiry" cases make their own client (HTTP only).
 */
export async function runScript(makeClient, config) {
  const results = {};
  const pending = [];
  let client;
  const timed = async (name, run) => {
    const started = Date.now();
    try {
      results[name] = { ok: true, ...(await run()), ms: Date.now() - started };
    } catch (error) {
      results[name] = { ok: false, ...describeError(error), ms: Date.now() - started };
    }
  };
  try {
    if (config.cases.includes('badToken')) {
      await timed('badToken', async () => {
        const wrong = await makeClient({ ...config, token: 'not-the-token-not-the-token-0000' });
        try {
          await wrong.connect();
          return { tools: (await wrong.listTools()).length };
        } finally {
          await wrong.close().catch(() => {});
        }
      });
    }
    client = await makeClient(config);
    for (const name of config.cases) {
      if (name === 'badToken') continue;
      if (name === 'expiry') {
        await timed('expiry', async () => {
          const before = await client.call('bash', bash('echo before-expiry'));
          process.stdout.write('INTEROP-WAITING\n');
          await nextStdinLine();
          try {
            return { before, after: await client.call('bash', bash('echo after-expiry')) };
          } catch (error) {
            return { before, afterError: describeError(error) };
          }
        });
        continue;
      }
      if (name !== 'connect' && !results.connect?.ok) continue;
      // A client without a session (one process per request) runs its cases side by side.
      if (client.independentCases && name !== 'connect') pending.push(timed(name, () => CASES[name](client, config)));
      else await timed(name, () => CASES[name](client, config));
    }
    await Promise.all(pending);
  } finally {
    await Promise.race([client?.close().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 5_000))]);
    writeFileSync(config.resultFile, JSON.stringify(results));
  }
  // Some clients keep handles (timers, child processes) open after close.
  process.exit(0);
}

/** The config the jest side passes as the first argument (JSON). */
export function readConfig() {
  return JSON.parse(process.argv[2]);
}

/** The first text content (the model's view for most clients), all texts joined. */
export function joinText(content) {
  return (content ?? [])
    .filter((part) => part?.type === 'text')
    .map((part) => part.text)
    .join('\n');
}
