// A custom tool that builds its executor request without the session (as a
// tool author easily does) still runs each session's commands in that
// session's container: the host runs every tool as its call, and the request
// takes the call's session (src/core/tool-call-context.ts). A request made
// outside every call, without a session, is refused instead of shared.
import 'reflect-metadata';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IsOptional, IsString } from 'class-validator';
import { inject } from 'inversify';
import {
  PluginModule,
  ShellExecutor,
  Tool,
  bindTool,
  containerEnvironment,
  createHost,
  textResult,
  type DshHost,
  type ToolInstance,
} from '../../src/index.js';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../support/container-engine.js';

class HostnameArgs {
  @IsOptional()
  @IsString()
  note?: string;
}

@Tool({ name: 'where_am_i', description: 'Print the hostname.', args: HostnameArgs, requires: [ShellExecutor] })
class WhereAmITool implements ToolInstance<HostnameArgs> {
  constructor(@inject(ShellExecutor) private readonly executor: ShellExecutor) {}
  async run() {
    // No `session` here on purpose: the call's session must reach the executor anyway.
    const spec = this.executor.checkRequest({ command: 'cat /etc/hostname' });
    return textResult((await this.executor.run(spec)).stdout.trim());
  }
}

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');

describeWithEngine(`a custom tool in the container composition${NEEDS_ENGINE}`, () => {
  let host: DshHost;
  let root: string;
  beforeAll(async () => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-ct-tool-')));
    host = await createHost(
      ...containerEnvironment({ workspace: root, container: { image: TEST_IMAGE } }),
      new PluginModule('where-am-i', ({ bind }) => bindTool(bind, WhereAmITool)),
    );
  });
  afterAll(async () => {
    await host.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it("two sessions' custom-tool calls run in two containers, each the one its bash calls run in", async () => {
    const [a, b] = [host.openSession({ cwd: root }), host.openSession({ cwd: root })];
    try {
      const [toolA, toolB] = await Promise.all([a.call('where_am_i', {}), b.call('where_am_i', {})]);
      expect(text(toolA)).toMatch(/^[0-9a-f]{12}$/);
      expect(text(toolB)).toMatch(/^[0-9a-f]{12}$/);
      expect(text(toolA)).not.toBe(text(toolB));
      expect(text(await a.call('bash', { command: 'cat /etc/hostname', description: 'Where' }))).toBe(text(toolA));
      expect(text(await b.call('bash', { command: 'cat /etc/hostname', description: 'Where' }))).toBe(text(toolB));
    } finally {
      await Promise.all([a.dispose(), b.dispose()]);
    }
  });

  it('a request without a session made outside every tool call fails loudly instead of sharing a container', async () => {
    const executor = host.get(ShellExecutor);
    const spec = executor.checkRequest({ command: 'cat /etc/hostname' });
    await expect(executor.run(spec)).rejects.toThrow(
      /came without a session and outside any tool call: pass the calling session in the request \(`session: ctx\.session`\)/,
    );
  });
});
