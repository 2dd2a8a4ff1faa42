import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { commandPeerReason } from '../../providers/exec/process/command-peer.js';
import { hasProcFs } from '../../providers/exec/process/proc-stat.js';
import { isHostAddress, peerSocket, socketOwners } from '../../providers/exec/process/tcp-socket-owners.js';

/** The 403 a connection from a command gets, whatever it asks. */
function commandPeerRefusal(reason: string): string {
  return `forbidden: this connection comes from ${reason}; a command cannot open or use a session of this server, nor answer its approvals`;
}

/**
 * Keeps the server's own commands from being its clients: a confined command
 * that reaches the listener (bwrap's network-on sandbox shares the host's
 * loopback) could otherwise open a session declaring elicitation, ask for
 * `danger-full-access` and approve itself, token or not.
 *
 * Checked once per TCP connection, and only when the peer uses an address of
 * this host (then its socket is in this server's /proc/net/tcp): the owning
 * processes are found through their descriptors and refused when
 * `commandPeerReason` names one. Fails closed where the peer should be
 * visible but is not (socket gone, no owner found in the host's PID
 * namespace); a holder outside a containerised server's PID namespace, a remote peer, a peer
 * of another uid the server cannot read, or a host without /proc cannot be
 * known and passes (docs/security.md, "Who may answer an approval").
 */
export class PeerCheck {
  private readonly verdicts = new WeakMap<Socket, Promise<string | undefined>>();

  /** Why `req`'s connection is refused (403), or undefined. */
  refusal(req: IncomingMessage): Promise<string | undefined> {
    const socket = req.socket;
    let verdict = this.verdicts.get(socket);
    if (!verdict) {
      verdict = checkPeer(socket).catch(() => commandPeerRefusal('a peer that could not be identified'));
      this.verdicts.set(socket, verdict);
    }
    return verdict;
  }
}

async function checkPeer(socket: Socket): Promise<string | undefined> {
  const { remoteAddress, remotePort, localAddress, localPort } = socket;
  if (!remoteAddress || !remotePort || !localAddress || !localPort) return commandPeerRefusal('a peer that is gone');
  if (!hasProcFs || !isHostAddress(remoteAddress)) return undefined;
  const peer = { address: remoteAddress, port: remotePort };
  const local = { address: localAddress, port: localPort };
  const found = await peerSocket(peer, local);
  if (!found || found.inode === 0) return commandPeerRefusal('a peer whose socket is gone');
  const owners = await socketOwners(found.inode);
  if (owners.length === 0) {
    const euid = process.geteuid?.();
    // Another user's process: not readable, and no command of this server (they run as its uid).
    if (euid !== 0 && found.uid !== euid) return undefined;
    // A server in a container's PID namespace cannot see the host's processes (a `kubectl port-forward`,
    // a runtime's relay, a host client of a hostNetwork pod), but sees every command it started: a socket
    // still held by the same owner after the whole scan is held outside its namespace, never by a command.
    if (!inHostPidNamespace() && (await peerSocket(peer, local))?.inode === found.inode) return undefined;
    return commandPeerRefusal('a process this server cannot identify');
  }
  for (const pid of owners) {
    const reason = commandPeerReason(pid);
    if (reason) return commandPeerRefusal(`${reason} (pid ${pid})`);
  }
  return undefined;
}

/**
 * True when this process sees the host's kernel threads (pid 2, `kthreadd`),
 * which only the initial PID namespace does: there every process is visible,
 * so a socket holder that cannot be found is one that just let go of it.
 */
function inHostPidNamespace(): boolean {
  try {
    return readFileSync('/proc/2/comm', 'utf8').trim() === 'kthreadd';
  } catch {
    return false;
  }
}
