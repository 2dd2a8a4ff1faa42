// The stderr logger's two forms: text (as it always was, plus key=value fields) and JSON (one object per line, with a timestamp).
import { StderrLogger } from '../../../src/providers/logging/stderr-logger.js';

function capture(level: 'debug' | 'info' | 'warn' | 'error', format: 'text' | 'json') {
  const lines: string[] = [];
  return { lines, logger: new StderrLogger(level, format, (line) => lines.push(line)) };
}

describe('StderrLogger', () => {
  it('text: the message as before, fields as key=value (quoted when they hold spaces), below the level nothing', () => {
    const { lines, logger } = capture('info', 'text');
    logger.debug('hidden');
    logger.info('drain started', { event: 'drain', timeoutMs: 30000, reason: 'SIGTERM' });
    logger.warn('auth failed', { peer: '10.0.0.7', why: 'no token given', absent: undefined });
    expect(lines).toEqual([
      'dsh-tools info: drain started event=drain timeoutMs=30000 reason=SIGTERM\n',
      'dsh-tools warn: auth failed peer=10.0.0.7 why="no token given"\n',
    ]);
  });

  it('json: one parseable object per line with time, level, msg and the fields; a field cannot replace time, level or msg', () => {
    const { lines, logger } = capture('warn', 'json');
    logger.info('hidden');
    logger.error('reap', { event: 'reap', removed: 2, level: 'debug', msg: 'forged', time: 'then' });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.endsWith('\n')).toBe(true);
    const parsed = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(parsed).toEqual({ time: expect.any(String), level: 'error', msg: 'reap', event: 'reap', removed: 2 });
    expect(new Date(parsed.time as string).toISOString()).toBe(parsed.time);
  });

  it('attack: a message or field with newlines, ANSI or bidi characters stays one line in both forms and drives no terminal', () => {
    const hostile = 'x\n{"level":"error","msg":"forged"}\u001b[31m\u202e\u2028';
    for (const format of ['text', 'json'] as const) {
      const { lines, logger } = capture('debug', format);
      logger.warn(hostile, { peer: hostile });
      expect(lines).toHaveLength(1);
      expect(lines[0]!.slice(0, -1)).not.toMatch(/[\n\r\u001b\u202e\u2028]/);
      if (format === 'json') expect(JSON.parse(lines[0]!)).toMatchObject({ msg: hostile, peer: hostile });
    }
  });
});
