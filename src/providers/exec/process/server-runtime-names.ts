/**
 * Variables that steer the server's own process, not the machine: they are
 * the operator's settings for this server, and a command that inherited
 * them would run the operator's code or report with the operator's
 * credentials (docs/security.md, "What never reaches a command").
 *
 * - `NODE_*`: `NODE_OPTIONS` can `--require` code into every node a command
 *   starts and is how telemetry SDKs are loaded; the rest tune this server's
 *   runtime (`NODE_ENV` would silently change what a command's
 *   `npm install` installs). `NODE_EXTRA_CA_CERTS` stays: it is the
 *   machine's trust (a TLS-inspecting proxy), which a command's node needs too.
 * - `OTEL_*`: the server's telemetry (collector address, its headers, its
 *   service name); a command's own tools would report into the operator's
 *   collector as this server.
 * - `LD_*`: the loader's preload, audit and debug settings load the
 *   operator's libraries into every program. `LD_LIBRARY_PATH` stays: it
 *   says where the machine's libraries are, which commands need as much.
 *
 * `executor.allowEnv` passes any of them on by name.
 */
const KEPT: ReadonlySet<string> = new Set(['NODE_EXTRA_CA_CERTS', 'LD_LIBRARY_PATH']);
const RUNTIME_PREFIXES: readonly string[] = ['NODE_', 'OTEL_', 'LD_'];

export function isServerRuntimeName(name: string): boolean {
  return RUNTIME_PREFIXES.some((prefix) => name.startsWith(prefix)) && !KEPT.has(name);
}
