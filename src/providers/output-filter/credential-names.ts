/**
 * Credential-shaped names: scrubbed from every child env, and their values
 * redacted from every model-visible text (see pattern-redactor.ts).
 * `PASS` covers PASSWORD, PASSWD and PASSPHRASE; `_PWD` as a suffix only, so
 * the shell's own `PWD`/`OLDPWD` stay, and `AUTHOR` (git's
 * `GIT_AUTHOR_NAME`) is not `AUTH`.
 */
const CREDENTIAL_PATTERN = /KEY|TOKEN|SECRET|PASS|CREDENTIAL|AUTH(?!OR)|COOKIE|PRIVATE|_PWD$/i;
/** Names that match but hold the path to an agent or file, not a credential: ssh and X keep working. */
const NOT_CREDENTIALS: ReadonlySet<string> = new Set(['SSH_AUTH_SOCK', 'XAUTHORITY']);
/** A value that is a URL with a password in it (`scheme://user:password@host`). */
const URL_WITH_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:[^\s/@]+@/i;

export function isCredentialName(name: string): boolean {
  return CREDENTIAL_PATTERN.test(name) && !NOT_CREDENTIALS.has(name);
}

/** A credential by its name, or by a value that is a URL carrying a password. */
export function isCredential(name: string, value: string): boolean {
  return isCredentialName(name) || URL_WITH_PASSWORD.test(value);
}
