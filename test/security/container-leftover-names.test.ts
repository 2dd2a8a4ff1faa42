// The exec wrapper reads each process's stat line to find the command's
// leftovers cheaply; a leftover whose name breaks that line's parsing (blanks,
// `) `, a newline) is still found by its environ, killed and counted.
import { NEEDS_ENGINE, describeWithEngine } from '../support/container-engine.js';
import { containerExecHost, type ContainerExecHost } from './support/container-exec-host.js';

const LEFT_ONE = '[killed 1 leftover process when the command ended; use run_in_background to keep one running]';

describeWithEngine(`container exec: leftovers with hostile names are still killed${NEEDS_ENGINE}`, () => {
  let ct: ContainerExecHost;
  beforeAll(async () => {
    ct = await containerExecHost('sec-names');
  });
  afterAll(() => ct.dispose());

  it.each([
    ['blanks and a closing parenthesis', 'a) Z 1 1 1'],
    ['a newline', 'x\ny) Z'],
  ])('a setsid leftover whose name holds %s', async (_label, name) => {
    const quoted = `$'${name.replace(/\n/g, '\\n')}'`;
    const result = await ct.call(`cp "$(command -v sleep)" /tmp/${quoted}; (setsid /tmp/${quoted} 30 &); echo started`);
    expect(result.text).toBe(`started\n${LEFT_ONE}`);
    // Nothing of it runs on: the next call sees no such process (a file right under /tmp; the channel's helper is deeper).
    expect((await ct.call("ps -eo args= | grep -c '^/tmp/[^/]* 30$' || true")).text).toBe('0');
  });
});
