// The container defaults are config keys, checked like the others, and `doctor` reports what is in force.
import { DEFAULT_CAPABILITIES, describeHardening, resolveContainerConfig } from '../../src/index.js';
import { checkContainerEngine } from '../../src/cli/doctor-container.js';

const resolve = (section: object) => resolveContainerConfig({ image: 'img', ...section });

describe('container defaults: config keys', () => {
  it('the defaults: six capabilities, no-new-privileges, the dsh seccomp profile, 1024 pids, 4 GiB, a session network without egress', () => {
    const config = resolve({});
    expect(config.capabilities).toEqual(['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'SETUID', 'SETGID', 'KILL']);
    expect(config.capabilities).toEqual(DEFAULT_CAPABILITIES);
    expect(config.noNewPrivileges).toBe(true);
    expect(config.seccomp).toBe('dsh');
    expect(config.pidsLimit).toBe(1024);
    expect(config.memoryBytes).toBe(4 * 1024 ** 3);
    expect(config.network).toBe('session');
    expect(config.egress).toBe('none');
  });

  it('each default can be loosened explicitly', () => {
    const config = resolve({
      capabilities: ['cap_net_raw', 'chown'],
      noNewPrivileges: false,
      seccomp: 'engine-default',
      pidsLimit: 'unlimited',
      memory: 'unlimited',
      egress: 'internet',
    });
    expect(config.capabilities).toEqual(['NET_RAW', 'CHOWN']);
    expect(config.noNewPrivileges).toBe(false);
    expect(config.seccomp).toBe('engine-default');
    expect(config.pidsLimit).toBeUndefined();
    expect(config.memoryBytes).toBeUndefined();
    expect(config.egress).toBe('internet');
    expect(resolve({ network: 'none' }).network).toBe('none');
    expect(resolve({ network: 'team-net' }).network).toBe('team-net');
  });

  it.each([
    [{ capabilities: 'ALL' }, 'invalid container config: capabilities must be a list of capability names (e.g. [CHOWN, KILL]), got "ALL"'],
    [{ capabilities: ['CHOWN', 'ROOT'] }, 'invalid container config: capabilities entry "ROOT" is not a Linux capability name'],
    [{ noNewPrivileges: 'yes' }, 'invalid container config: noNewPrivileges must be true or false, got "yes"'],
    [{ seccomp: 'unconfined' }, 'invalid container config: seccomp must be one of dsh, engine-default, got "unconfined"'],
    [{ egress: 'everything' }, 'invalid container config: egress must be one of none, host, internet, got "everything"'],
    [{ network: 'none', egress: 'internet' }, 'invalid container config: egress applies only to network: session, got "internet"'],
    [{ network: '' }, 'invalid container config: network must be session, none or an engine network name, got ""'],
    [{ pidsLimit: -1 }, 'invalid container config: pidsLimit must be a positive integer or "unlimited", got -1'],
  ])('refuses %j', (section, message) => {
    expect(() => resolve(section)).toThrow(message);
  });

  it('doctor reports the defaults in force when container mode is configured', async () => {
    const checks = await checkContainerEngine({ container: { image: 'img', host: 'unix:///nonexistent/docker.sock' } });
    const defaults = checks.find((check) => check.name === 'container defaults');
    expect(defaults).toEqual(expect.objectContaining({ ok: true }));
    expect(defaults!.detail).toBe(
      'capabilities CHOWN,DAC_OVERRIDE,FOWNER,SETUID,SETGID,KILL; no-new-privileges; seccomp dsh profile; pids 1024; memory 4096 MiB; a network per session (egress none)',
    );
    expect(describeHardening(resolve({ network: 'none', seccomp: 'engine-default', noNewPrivileges: false, pidsLimit: 'unlimited', memory: 'unlimited', capabilities: [] }))).toBe(
      'capabilities none; new privileges allowed; seccomp engine default; no pids limit; no memory limit; no network',
    );
  });
});
