// Issue 31's scripted agent (support/agent-script.ts) over two container
// replicas on one Docker engine: nothing of the session — no container — is
// left once the last replica stops (docs/shared-sessions.md).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../support/container-engine.js';
import { sessionContainers } from '../support/container-kit.js';
import { ensureBuilt } from '../support/built-server.js';
import { AGENT_APPROVAL, AGENT_TOKEN, runAgentScript } from './support/agent-script.js';
import { describeBehindNginx, NEEDS_NGINX, UPSTREAM_HOST } from './support/round-robin-nginx.js';
import { replicaDirs, startReplica, type ReplicaDirs } from './support/shared-replicas.js';

const describeWithNginx = describeBehindNginx(describeWithEngine);

describeWithNginx(`shared sessions: a scripted 2026-era agent across two replicas${NEEDS_ENGINE}${NEEDS_NGINX}`, () => {
  let dirs: ReplicaDirs;
  let configFile: string;
  beforeAll(() => {
    ensureBuilt();
    dirs = replicaDirs(`agent:${AGENT_TOKEN}\n`);
    configFile = path.join(dirs.root, 'dsh.json');
    writeFileSync(configFile, JSON.stringify({ approval: AGENT_APPROVAL }));
  }, 180_000);
  afterAll(() => dirs?.cleanup());

  it('finishes 20 steps with every result right through a SIGKILL, a restart and a SIGTERM, and leaves nothing', async () => {
    await runAgentScript({
      startReplica: (port) => {
        const args = ['--workspace', dirs.workspace, '--container', TEST_IMAGE, '--shared-sessions', '--shell', 'both', '--config', configFile];
        args.push('--token-file', dirs.tokenFile, '--allowed-host', UPSTREAM_HOST, '--reap-interval', '1', '--log-level', 'info', '--drain-timeout', '5');
        return startReplica(port, args, dirs.env);
      },
      sandboxes: sessionContainers,
      leftovers: sessionContainers,
      goneWithinMs: 20_000,
    });
  }, 180_000);
});
