import { buildChildEnv } from '../../../../src/providers/exec/process/child-env.js';
import { ExecutorPool, runCommand } from '../../../support/shell-test-kit.js';

describe('buildChildEnv: credential-shaped names', () => {
  it('scrubs AUTH, PASS, COOKIE, PRIVATE, *_PWD and URL-with-password values, not PWD/OLDPWD, AUTHOR or SSH_AUTH_SOCK', () => {
    const parent = {
      GH_AUTH: 'a',
      DB_PASSWD: 'b',
      SESSION_COOKIE: 'c',
      PRIVATE_PEM: 'd',
      DEPLOY_PWD: 'e',
      DATABASE_URL: 'postgres://app:pw@db/app',
      PUBLIC_URL: 'https://example.com/x',
      PWD: '/w',
      OLDPWD: '/v',
      GIT_AUTHOR_NAME: 'Ada',
      SSH_AUTH_SOCK: '/tmp/ssh-x/agent.1',
    };
    expect(Object.keys(buildChildEnv(parent)).filter((name) => name in parent).sort()).toEqual([
      'GIT_AUTHOR_NAME',
      'OLDPWD',
      'PUBLIC_URL',
      'PWD',
      'SSH_AUTH_SOCK',
    ]);
  });

  it('scrubs credentials by convention: *_HEADERS and URLs carrying a password or a token, not an ssh login name', () => {
    const parent = {
      OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer c0llector',
      MY_CLIENT_HEADER: 'x-api: 1',
      GIT_REMOTE: 'https://ghp_abc123@github.com/org/repo.git',
      MIRRORS: 'https://a.example/x https://u:p@b.example/y',
      PUBLIC_URL: 'https://example.com/x?next=a@b',
      REPO_SSH: 'ssh://git@github.com/org/repo.git',
      SCP_LIKE: 'git@github.com:org/repo.git',
    };
    expect(Object.keys(buildChildEnv(parent)).filter((name) => name in parent).sort()).toEqual(['PUBLIC_URL', 'REPO_SSH', 'SCP_LIKE']);
  });

  it("keeps the server's own runtime settings out (NODE_*, OTEL_*, LD_*), but not the machine's CA bundle or library path", () => {
    const parent = {
      NODE_OPTIONS: '--require /opt/otel/register.js',
      NODE_ENV: 'production',
      NODE_V8_COVERAGE: '/srv/coverage',
      NODE_EXTRA_CA_CERTS: '/etc/ssl/proxy.pem',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example:4318',
      OTEL_SERVICE_NAME: 'dsh-tools',
      LD_PRELOAD: '/opt/profiler/libprof.so',
      LD_AUDIT: '/opt/audit.so',
      LD_LIBRARY_PATH: '/opt/cuda/lib64',
      NODENAME: 'kept: not a NODE_ prefix',
    };
    expect(Object.keys(buildChildEnv(parent)).filter((name) => name in parent).sort()).toEqual(['LD_LIBRARY_PATH', 'NODENAME', 'NODE_EXTRA_CA_CERTS']);
    expect(buildChildEnv(parent, { allow: ['NODE_ENV'] }).NODE_ENV).toBe('production');
  });
});

/** Runs `env -0` in the child and parses it. */
async function childEnv(pool: ExecutorPool, config = {}, request = {}): Promise<Record<string, string>> {
  const result = await runCommand(pool.make(config), { command: 'env -0', ...request });
  const env: Record<string, string> = {};
  for (const entry of result.stdout.split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}

describe('LocalShellExecutor: child environment', () => {
  const pool = new ExecutorPool();
  const saved: Record<string, string | undefined> = {};
  const setParent = (name: string, value: string): void => {
    if (!(name in saved)) saved[name] = process.env[name];
    process.env[name] = value;
  };

  afterEach(async () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
      delete saved[name];
    }
    await pool.disposeAll();
  });

  it('scrubs credential-shaped names but keeps allow-listed ones and ordinary variables', async () => {
    setParent('MY_API_TOKEN', 'secret-1');
    setParent('DB_PASSWORD', 'secret-2');
    setParent('ALLOWED_KEY', 'kept');
    setParent('PLAIN_SETTING', 'plain');
    const env = await childEnv(pool, { allowEnv: ['ALLOWED_KEY'] });
    expect(env.MY_API_TOKEN).toBeUndefined();
    expect(env.DB_PASSWORD).toBeUndefined();
    expect(env.ALLOWED_KEY).toBe('kept');
    expect(env.PLAIN_SETTING).toBe('plain');
    expect(process.env.MY_API_TOKEN).toBe('secret-1');
  });

  it('drops inherited DSH_* and applies the managed overlay last', async () => {
    setParent('DSH_SESSION_ID', 'stale-session');
    setParent('DSH_OTHER', 'stale');
    const env = await childEnv(pool, {}, {
      env: { DSH_SESSION_ID: 'from-caller', CALLER_VAR: 'c', NO_COLOR: '0' },
      dshEnv: { DSH_SESSION_ID: 'fresh-session' },
    });
    expect(env.DSH_SESSION_ID).toBe('fresh-session');
    expect(env.DSH_OTHER).toBeUndefined();
    expect(env.CALLER_VAR).toBe('c');
    // The trusted caller env may override a model-friendly default.
    expect(env.NO_COLOR).toBe('0');
  });

  it('sets the model-friendly variables', async () => {
    setParent('TERM', 'xterm-256color');
    setParent('PAGER', 'less');
    const env = await childEnv(pool);
    expect(env).toMatchObject({
      NO_COLOR: '1',
      TERM: 'dumb',
      PAGER: 'cat',
      GIT_PAGER: 'cat',
      GH_PAGER: 'cat',
      GIT_TERMINAL_PROMPT: '0',
      DEBIAN_FRONTEND: 'noninteractive',
    });
  });

  it('never passes BASH_ENV or ENV, even from the parent', async () => {
    setParent('BASH_ENV', '/nonexistent/rc');
    setParent('ENV', '/nonexistent/rc');
    const env = await childEnv(pool);
    expect(env.BASH_ENV).toBeUndefined();
    expect(env.ENV).toBeUndefined();
  });
});
