// A real session against the installed package: real bash, the custom tool,
// the wrapper. Prints one JSON line the consumer check compares.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createBackend } from './composition.js';

async function main(): Promise<void> {
  const workspace = mkdtempSync(path.join(tmpdir(), 'dsh-consumer-'));
  writeFileSync(path.join(workspace, 'data.bin'), Buffer.alloc(64 * 1024));
  const { host, audit } = await createBackend(workspace);
  try {
    const session = host.openSession({ id: 'consumer-1', cwd: workspace });
    const echo = await session.call('bash', { command: 'echo "hello from $DSH_SESSION_ID"', description: 'Greet' });
    const value = echo.value;
    const exitCode = value?.kind === 'foreground' ? value.exitCode : undefined;
    const usage = await session.call('disk_usage', { path: 'data.bin' });
    console.log(
      JSON.stringify({
        echo: echo.content[0]?.text,
        exitCode,
        usage: usage.content[0]?.text,
        audited: audit(),
        sections: host.prompt().sections.map((section) => section.name),
      }),
    );
  } finally {
    await host.dispose();
    rmSync(workspace, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
