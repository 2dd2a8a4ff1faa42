// The `audit` and `telemetry` keys of the composition file, and the observability flags' parsing.
import { validateConfig } from '../../src/plugins/config/config-file.js';
import { checkObserveFlags, parseAuditLog, parseMetricsPort, withObserveFlags } from '../../src/cli/observe-options.js';

describe('audit and telemetry in the config file', () => {
  it('resolves audit.file against the file and takes telemetry.includeCommand', () => {
    const config = validateConfig({ audit: { file: 'logs/audit.jsonl' }, telemetry: { includeCommand: true } }, '/etc/dsh/dsh.yaml');
    expect(config.audit).toEqual({ file: '/etc/dsh/logs/audit.jsonl' });
    expect(config.telemetry).toEqual({ includeCommand: true });
  });

  it('names the key and the reason for bad values', () => {
    expect(() => validateConfig({ audit: { path: 'x' } }, 'f.yaml')).toThrow('f.yaml: audit.path: unknown key (known: file)');
    expect(() => validateConfig({ audit: { file: '' } }, 'f.yaml')).toThrow('f.yaml: audit.file: expected a non-empty string');
    expect(() => validateConfig({ telemetry: { includeCommand: 'yes' } }, 'f.yaml')).toThrow(
      'f.yaml: telemetry.includeCommand: expected true or false',
    );
  });
});

describe('serve flags', () => {
  it('--audit-log overrides the file, --metrics-port takes a port, --metrics-public needs --http', () => {
    expect(withObserveFlags({ audit: { file: '/a' } }, { auditLog: 'b.jsonl' }).audit).toEqual({ file: 'b.jsonl' });
    expect(withObserveFlags({ audit: { file: '/a' } }, {}).audit).toEqual({ file: '/a' });
    expect(parseMetricsPort('9464')).toBe(9464);
    expect(() => parseMetricsPort('70000')).toThrow('expected a TCP port 0-65535');
    expect(() => parseAuditLog(' ')).toThrow('expected a file path');
    expect(() => checkObserveFlags({ metricsPublic: true }, false)).toThrow('--metrics-public applies to --http only');
    expect(() => checkObserveFlags({ metricsPublic: true }, true)).not.toThrow();
  });
});
