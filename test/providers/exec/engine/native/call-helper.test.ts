// Which calls the native call helper may run, and the `channel` setting that turns it off.
import { callFitsHelper } from '../../../../../src/providers/exec/engine/native/call-helper.js';
import { checkChannel } from '../../../../../src/providers/exec/engine/container-config.js';

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
