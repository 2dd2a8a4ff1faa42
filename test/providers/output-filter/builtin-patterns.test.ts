import { PatternRedactor } from '../../../src/providers/output-filter/pattern-redactor.js';
import { resolveRedactionConfig } from '../../../src/providers/output-filter/redaction-config.js';

const builtins = new PatternRedactor(resolveRedactionConfig({}), {});

/** Every split point of `text` through a stream must give the whole-text answer. */
function everySplit(text: string): Set<string> {
  const outs = new Set<string>();
  for (let split = 0; split <= text.length; split++) {
    const stream = builtins.stream();
    outs.add(stream.push(text.slice(0, split)) + stream.push(text.slice(split)) + stream.end());
  }
  return outs;
}

const KEY = [
  '-----BEGIN OPENSSH PRIVATE KEY-----',
  'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW',
  'QyNTUxOQAAACDr4xX0iYw9gGm0m3j8n1Xo7Vq6ej2Qq1o0bY3c1x2Z3AAAAJgAAAAAAAAA',
  '-----END OPENSSH PRIVATE KEY-----',
].join('\n');

describe('built-in patterns', () => {
  it.each([
    ['a private key block, BEGIN through END', `key:\n${KEY}\ndone`, 'key:\n[redacted]\ndone'],
    ['the password of a URL', 'git clone https://bob:s3cr3t-pw@example.com/r.git', 'git clone https://bob:[redacted]@example.com/r.git'],
    ['a GitHub classic token', 'token ghp_0123456789abcdefghijABCDEFGHIJ012345 ok', 'token [redacted] ok'],
    ['a GitHub fine-grained token', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz', '[redacted]'],
    ['an AWS access key id', 'aws_access_key_id = AKIAIOSFODNN7EXAMPLE', 'aws_access_key_id = [redacted]'],
    ['a Slack token', 'SLACK=xoxb-1234567890-abcdefghij', 'SLACK=[redacted]'],
    ['a bearer token', 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig-x', 'Authorization: Bearer [redacted]'],
  ])('%s', (_name, text, expected) => {
    expect(builtins.redact(text)).toBe(expected);
    expect(everySplit(text)).toEqual(new Set([expected]));
  });

  it('redacts the body of a key block that never reaches its END line', () => {
    const cut = KEY.split('\n').slice(0, 3).join('\n');
    expect(builtins.redact(cut)).toBe('[redacted]');
  });

  it('leaves look-alikes alone', () => {
    const text = 'http://host:8080/path@x ghp_short AKIA-not xox Authorization: Basic abc';
    expect(builtins.redact(text)).toBe(text);
  });

  it('a read holds back only an unfinished token, and shows text after a finished one', () => {
    const stream = builtins.stream();
    expect(stream.push('export T=ghp_0123456789')).toBe('export T=');
    expect(stream.drain()).toBe('');
    expect(stream.push('abcdefghijABCDEFGHIJ012345 next') + stream.drain()).toBe('[redacted] next');
  });

  it('can be switched off', () => {
    const off = new PatternRedactor(resolveRedactionConfig({ builtins: false }), {});
    expect(off.active).toBe(false);
    expect(off.redact('AKIAIOSFODNN7EXAMPLE')).toBe('AKIAIOSFODNN7EXAMPLE');
  });
});

describe('redact config', () => {
  it('redacts matches of configured patterns', () => {
    const r = new PatternRedactor(resolveRedactionConfig({ patterns: ['acct-[0-9]{6}'] }), {});
    expect(r.redact('id acct-123456 end')).toBe('id [redacted] end');
  });

  it('fails at start for a bad pattern or a bad key', () => {
    expect(() => resolveRedactionConfig({ patterns: ['(unclosed'] })).toThrow(/^invalid redact config: patterns has an invalid regular expression "\(unclosed"/);
    expect(() => resolveRedactionConfig({ values: [3 as unknown as string] })).toThrow('invalid redact config: values must be an array of non-empty strings');
    expect(() => resolveRedactionConfig({ valuez: [] } as never)).toThrow('invalid redact config: valuez is not a known key');
  });

  it('redacts credential-shaped environment values by name, including allow-listed and URL-valued ones', () => {
    const env = {
      DB_PASSWD: 'pw-0123456',
      SESSION_COOKIE: 'cookie-abcdef',
      MY_AUTH: 'auth-value-1',
      PRIVATE_THING: 'private-val',
      DEPLOY_PWD: 'deploy-pw-1',
      DATABASE_URL: 'postgres://app:db-pw-xyz@db:5432/app',
      PWD: '/home/user/work',
      GIT_AUTHOR_NAME: 'Ada Lovelace',
    };
    const r = new PatternRedactor(resolveRedactionConfig({}), env);
    const shown = Object.values(env).join(' ');
    expect(r.redact(shown)).toBe(
      '[redacted:DB_PASSWD] [redacted:SESSION_COOKIE] [redacted:MY_AUTH] [redacted:PRIVATE_THING] [redacted:DEPLOY_PWD] [redacted:DATABASE_URL] /home/user/work Ada Lovelace',
    );
  });
});
