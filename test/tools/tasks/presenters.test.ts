import { textResult, errorResult } from '../../../src/core/tool-contract.js';
import type { DshHost } from '../../../src/container/dsh-host.js';
import { taskTools, type HostedTool } from '../../support/tool-harness.js';

describe('task tool presenters', () => {
  let output: HostedTool;
  let list: HostedTool;
  let kill: HostedTool;
  let host: DshHost;
  beforeAll(async () => {
    ({ output, list, kill, host } = await taskTools());
  });
  afterAll(() => host.dispose());

  it('present calls, and return undefined for malformed args without throwing', () => {
    expect(output.presentCall({ task_id: 'bash-1', wait: true })).toEqual({
      title: 'task_output',
      command: 'bash-1',
      description: 'waiting',
    });
    expect(kill.presentCall({ task_id: 'bash-2', reason: 'stale' })).toEqual({
      title: 'task_kill',
      command: 'bash-2',
      description: 'stale',
    });
    expect(list.presentCall({})).toEqual({ title: 'task_list' });
    expect(list.presentCall(undefined)).toEqual({ title: 'task_list' });
    for (const bad of [undefined, null, 'bash-1', 42, [], { task_id: 7 }, { task_id: '' }]) {
      expect(output.presentCall(bad)).toBeUndefined();
      expect(kill.presentCall(bad)).toBeUndefined();
    }
    expect(list.presentCall('x')).toBeUndefined();
  });

  it('parse an exit or signal status line off the body; keep other status lines', () => {
    expect(output.presentResult(textResult('done\n[status: completed, exit code: 0]'))).toEqual({
      body: 'done',
      exitCode: 0,
      isError: false,
    });
    expect(output.presentResult(textResult('x\n[status: killed, signal: SIGTERM]'))).toEqual({
      body: 'x',
      signal: 'SIGTERM',
      isError: false,
    });
    expect(output.presentResult(textResult('(no new output)\n[status: running]'))).toEqual({
      body: '(no new output)\n[status: running]',
      isError: false,
    });
    expect(kill.presentResult(errorResult('no background task "x" in this session'))).toEqual({
      body: 'Error: no background task "x" in this session',
      isError: true,
    });
  });

  it('never throw on malformed results', () => {
    for (const bad of [undefined, null, 'text', {}, { content: 'x' }, { content: [null, 3] }]) {
      expect(() => output.presentResult(bad as never)).not.toThrow();
    }
    expect(output.presentResult({ content: 'x' } as never)).toBeUndefined();
  });
});
