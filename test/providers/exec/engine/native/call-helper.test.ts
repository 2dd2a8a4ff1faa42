// Which calls the native call helper may run, the `channel` setting that turns it off, and the
// names its C source shares with this side.
import { readFileSync } from 'node:fs';
import { HOLDER_OPENED, HOLDER_UNSTARTED } from '../../../../../src/providers/exec/engine/channel-holder.js';
import { checkChannel } from '../../../../../src/providers/exec/engine/container-config.js';
import { EXEC_TAG_VAR } from '../../../../../src/providers/exec/engine/container-engine.js';
import { WORKDIR_STATUS, WRAPPER_TAG_SUFFIX } from '../../../../../src/providers/exec/engine/container-exec-wrapper.js';
import { CALL_HELPER_VERSION, callFitsHelper } from '../../../../../src/providers/exec/engine/native/call-helper.js';

describe('callFitsHelper', () => {
  it('takes an absolute shell or a bare name, and a workdir bash would keep as written', () => {
    for (const [shell, workdir] of [['/bin/bash', '/'], ['bash', '/work/space'], ['/usr/bin/bash', '/a b/c.d/..e']]) {
      expect(callFitsHelper(shell!, workdir!, {})).toBe(true);
    }
  });

  it('leaves to bash a relative shell path and a workdir its cd would rewrite', () => {
    expect(callFitsHelper('bin/bash', '/work', {})).toBe(false);
    expect(callFitsHelper('', '/work', {})).toBe(false);
    for (const workdir of ['', 'work', '/work/', '//work', '/work//x', '/work/.', '/work/./x', '/work/..', '/work/../x']) {
      expect(callFitsHelper('bash', workdir, {})).toBe(false);
    }
  });

  it('leaves to bash a call that sets PWD', () => {
    expect(callFitsHelper('bash', '/w', { PWD: '/w' })).toBe(false);
  });

  it('leaves to bash a SHLVL it would warn about or read as 0', () => {
    for (const level of ['0', '1', '42', '998']) expect(callFitsHelper('bash', '/w', { SHLVL: level })).toBe(true);
    for (const level of ['999', '1000', '-1', '+2', ' 3', '07', 'x', '']) expect(callFitsHelper('bash', '/w', { SHLVL: level })).toBe(false);
  });
});

describe('the channel setting', () => {
  const fail = (key: string, problem: string): never => {
    throw new Error(`${key} ${problem}`);
  };

  it('is true, false or "bash", and says so otherwise', () => {
    expect([true, false, 'bash'].map((value) => checkChannel(value, fail))).toEqual([true, false, 'bash']);
    for (const value of ['native', 'true', 1, null]) expect(() => checkChannel(value, fail)).toThrow('channel must be true, false or "bash"');
  });
});

describe('dsh-call.c', () => {
  it('defines the names it shares with the host and the holder as they are here', () => {
    const source = readFileSync(new URL('../../../../../src/providers/exec/engine/native/dsh-call.c', import.meta.url), 'utf8');
    const defined = (name: string) => new RegExp(`^#define ${name} ("[^"]*"|\\S+)`, 'm').exec(source)?.[1];
    expect(defined('VERSION')).toBe(JSON.stringify(CALL_HELPER_VERSION));
    expect(defined('TAG_VAR')).toBe(JSON.stringify(EXEC_TAG_VAR));
    expect(defined('WRAPPER_TAG_SUFFIX')).toBe(JSON.stringify(WRAPPER_TAG_SUFFIX));
    expect(defined('WORKDIR_STATUS')).toBe(String(WORKDIR_STATUS));
    expect(defined('OPENED')).toBe(JSON.stringify(HOLDER_OPENED));
    expect(defined('UNSTARTED')).toBe(JSON.stringify(HOLDER_UNSTARTED));
  });
});
