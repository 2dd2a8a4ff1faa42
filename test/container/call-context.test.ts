// The call id, request id and metadata a backend passes reach a custom tool (its CallContext and
// currentToolCall()) and env contributors (execution.call), with real bash; never the model's text nor
// a command's environment unless a contributor puts them there. Bad metadata is refused before anything runs.
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IsString } from 'class-validator';
import {
  EnvContributor,
  PluginModule,
  Tool,
  bindTool,
  createHost,
  currentToolCall,
  localEnvironment,
  textResult,
  type CallContext,
  type DshHost,
  type EnvExecution,
  type ToolInstance,
} from '../../src/index.js';

class NoteArgs {
  @IsString()
  note!: string;
}

@Tool({ name: 'who_calls', description: 'Say which call and tenant this is.', args: NoteArgs, requires: [] })
class WhoCallsTool implements ToolInstance<NoteArgs> {
  async run(_args: NoteArgs, ctx: CallContext) {
    const current = currentToolCall();
    return textResult('seen', { callId: ctx.callId, requestId: ctx.requestId, metadata: ctx.metadata, same: current === ctx });
  }
}

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');
const SECRET = 'tenant-secret-7f3a';

describe('call id and metadata', () => {
  let host: DshHost;
  let dir: string;
  const seen: EnvExecution[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-call-context-'));
    const tenantEnv: EnvContributor = {
      name: 'tenant',
      keys: [{ key: 'DSH_TENANT', description: 'The tenant the call runs for.' }],
      valuesFor: (execution) => {
        seen.push(execution);
        return { DSH_TENANT: execution.call?.metadata.tenant };
      },
    };
    host = await createHost(
      ...localEnvironment({ workspace: dir, shell: 'both' }),
      new PluginModule('who-calls', ({ bind }) => {
        bindTool(bind, WhoCallsTool);
        bind(EnvContributor).toConstantValue(tenantEnv);
      }),
    );
  });
  afterAll(async () => {
    await host.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => void (seen.length = 0));

  it("a custom tool sees the backend's call id, request id and metadata, in its context and currentToolCall()", async () => {
    const session = host.openSession({ cwd: dir });
    const result = await session.call('who_calls', { note: 'x' }, { callId: 'call-1', requestId: 'req-9', metadata: { tenant: 'acme' } });
    expect(result.value).toEqual({ callId: 'call-1', requestId: 'req-9', metadata: { tenant: 'acme' }, same: true });
    const bare = await host.call('who_calls', { note: 'x' });
    const value = bare.value as { callId: string; requestId?: string; metadata: object };
    expect(value.callId).toMatch(/^[0-9a-f-]{36}$/);
    expect(value.requestId).toBeUndefined();
    expect(value.metadata).toEqual({});
    await session.dispose();
  });

  it('an env contributor sees the call; the one-shot command gets only what it exports', async () => {
    const session = host.openSession({ cwd: dir });
    const result = await session.call('bash', { command: 'echo "tenant=$DSH_TENANT"; env', description: 'Show the environment' }, {
      callId: 'call-2',
      metadata: { tenant: 'acme', secret: SECRET },
    });
    expect(text(result)).toContain('tenant=acme');
    expect(text(result)).not.toContain(SECRET);
    expect(text(result)).not.toContain('call-2');
    expect(seen.map((execution) => execution.call?.callId)).toEqual(['call-2']);
    expect(seen[0]!.call!.metadata).toEqual({ tenant: 'acme', secret: SECRET });
    await session.dispose();
  });

  it("the persistent shell's overlay follows each call's tenant", async () => {
    const session = host.openSession({ cwd: dir });
    const call = (tenant: string) =>
      session.call('bash_persistent', { command: 'echo "tenant=$DSH_TENANT"' }, { metadata: { tenant } }).then(text);
    expect(await call('acme')).toContain('tenant=acme');
    expect(await call('globex')).toContain('tenant=globex');
    await session.dispose();
  });

  it('attack: a tool cannot change the metadata the env contributors see next', async () => {
    @Tool({ name: 'meddle', description: 'Try to change the tenant.', args: NoteArgs, requires: [] })
    class MeddleTool implements ToolInstance<NoteArgs> {
      async run(_args: NoteArgs, ctx: CallContext) {
        try {
          (ctx.metadata as Record<string, string>).tenant = 'root';
        } catch (error) {
          return textResult(String(error));
        }
        return textResult('changed');
      }
    }
    await host.load(new PluginModule('meddle', ({ bind }) => bindTool(bind, MeddleTool)));
    const session = host.openSession({ cwd: dir });
    const result = await session.call('meddle', { note: 'x' }, { metadata: { tenant: 'acme' } });
    expect(text(result)).toMatch(/TypeError: Cannot assign to read only property 'tenant'/);
    await session.dispose();
  });

  it('bad metadata is refused with a clear error, before the tool or a contributor runs', async () => {
    const session = host.openSession({ cwd: dir });
    const numeric = await session.call('bash', { command: 'touch ran', description: 'Must not run' }, { metadata: { tenant: 42 as unknown as string } });
    expect(numeric).toEqual({ content: [{ type: 'text', text: 'Error: invalid call metadata: "tenant" must be a string, got a number' }], isError: true });
    const huge = await session.call('bash', { command: 'touch ran', description: 'Must not run' }, { metadata: { tenant: SECRET.repeat(1000) } });
    expect(text(huge)).toBe('Error: invalid call metadata: "tenant" is longer than 4096 characters');
    const badId = await host.call('bash', { command: 'touch ran', description: 'Must not run' }, { callId: '' });
    expect(text(badId)).toMatch(/^Error: invalid callId/);
    expect(seen).toEqual([]);
    expect((await session.call('bash', { command: 'ls', description: 'List' })).content[0]!.text).not.toContain('ran');
    await session.dispose();
  });
});
