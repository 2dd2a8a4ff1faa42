import { messageOf } from '../../core/describe-value.js';
import { resolveHttpToken, type HttpToken } from '../access/http-auth.js';
import { readTokenFile } from '../access/token-files.js';

/**
 * The console's operator tokens (`--operator-token-file`, `serve.operatorTokenFile`):
 * the same formats as `--token-file` (one token, `name:token` lines, a
 * directory of token files), each naming an operator. They are a set of
 * their own — only the console takes them, and the console takes nothing
 * else — and an operator token that is also a caller's fails the start, so
 * neither role can stand in for the other.
 */
export function resolveOperatorTokens(file: string, callers: HttpToken | 'none'): HttpToken {
  try {
    const operators = resolveHttpToken({ tokenFile: file, env: {} });
    if (callers !== 'none') {
      for (const { name, secret } of readTokenFile(file).secrets) {
        if (callers.matches(`Bearer ${secret}`)) throw new Error(`operator "${name}" has a caller's token; an operator token must be a token of its own`);
      }
    }
    return operators;
  } catch (error) {
    throw new Error(`--operator-token-file ${file}: ${messageOf(error)}`);
  }
}
