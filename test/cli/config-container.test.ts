// The container: section of a composition file is checked at start with the file, the key and the reason.
import { validateConfig } from '../../src/plugins/config/config-file.js';

describe('container: in a composition file', () => {
  it('accepts every documented key', () => {
    const config = validateConfig(
      {
        container: {
          image: 'img:1',
          host: 'unix:///var/run/docker.sock',
          mounts: ['/usr:/usr:ro', '/data:/data'],
          network: 'none',
          memory: '512m',
          cpus: 1.5,
          pidsLimit: 256,
          user: '1000:1000',
          readOnlyRootfs: true,
          env: { LANG: 'C.UTF-8' },
          capabilities: ['CHOWN', 'KILL'],
          noNewPrivileges: true,
          seccomp: 'dsh',
        },
      },
      '/etc/dsh.yaml',
    );
    expect(config.container?.image).toBe('img:1');
  });

  it.each([
    [{ colour: 'red' }, '/etc/dsh.yaml: container: colour is not a known key'],
    [{ mounts: ['/a'] }, '/etc/dsh.yaml: container: mounts entry "/a" must look like src:dst or src:dst:ro'],
    [{ memory: '1k' }, '/etc/dsh.yaml: container: memory must be a byte count, a number with k, m or g (at least 6m), or "unlimited", got "1k"'],
    [{ pidsLimit: 0 }, '/etc/dsh.yaml: container: pidsLimit must be a positive integer or "unlimited", got 0'],
    [{ env: { 'BAD-NAME': 'x' } }, '/etc/dsh.yaml: container: env.BAD-NAME is not a valid variable name'],
    ['img', '/etc/dsh.yaml: container: expected a mapping'],
  ])('refuses %j', (section, message) => {
    expect(() => validateConfig({ container: section }, '/etc/dsh.yaml')).toThrow(message);
  });
});
