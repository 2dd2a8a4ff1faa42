// The peer identification behind the HTTP listener's refusal of commands
// (issue 33 item 2): a TCP peer's socket found in /proc/net/tcp{,6}, its
// owners through their descriptors, and why an owner counts as a command.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { commandPeerReason } from '../../../../src/providers/exec/process/command-peer.js';
import { isHostAddress, peerSocket, socketOwners } from '../../../../src/providers/exec/process/tcp-socket-owners.js';

/** A pid that is nobody's ancestor: the reason must then come from the tag or the confinement. */
const NOT_AN_ANCESTOR = 0x7fffffff;

describe('peer identification of a TCP connection', () => {
  let server: Server;
  const accepted: Socket[] = [];
  const children: ChildProcess[] = [];
  beforeEach(async () => {
    server = createServer((socket) => accepted.push(socket));
  });
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    for (const socket of accepted.splice(0)) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  const listen = async (host: string) => {
    server.listen(0, host);
    await once(server, 'listening');
    return (server.address() as AddressInfo).port;
  };
  /** A child (in `env`) that connects to `port` and holds the connection; resolves with the server's side of it. */
  const connectFrom = async (host: string, port: number, env: NodeJS.ProcessEnv, wrapper: string[] = []) => {
    const script = `require('net').connect(${port}, ${JSON.stringify(host)}, () => process.stdout.write('up\\n'))`;
    const child = spawn(wrapper[0] ?? process.execPath, [...wrapper.slice(1), ...(wrapper.length ? [process.execPath] : []), '-e', script], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    await once(child.stdout!, 'data');
    while (accepted.length === 0) await once(server, 'connection');
    return accepted.at(-1)!;
  };
  const ownersOf = async (socket: Socket) => {
    const found = await peerSocket({ address: socket.remoteAddress!, port: socket.remotePort! }, { address: socket.localAddress!, port: socket.localPort! });
    expect(found?.inode).toBeGreaterThan(0);
    return socketOwners(found!.inode);
  };

  it.each(['127.0.0.1', '::1'])('finds the process holding a connection over %s, and names it a command of this server', async (host) => {
    const port = await listen(host);
    const socket = await connectFrom(host, port, { PATH: process.env.PATH });
    const child = children[0]!;
    expect(await ownersOf(socket)).toEqual([child.pid]);
    expect(commandPeerReason(child.pid!)).toBe('a command of this server');
    // The server's own process (an in-process client) is none of its commands.
    expect(commandPeerReason(process.pid)).toBeUndefined();
    // Seen from another server (not its ancestor), an untagged, unconfined process is nobody's command.
    expect(commandPeerReason(child.pid!, NOT_AN_ANCESTOR)).toBeUndefined();
  });

  it('names a tagged process, and one whose environment was cleared under a tagged parent, a command of a dsh-tools server', async () => {
    const port = await listen('127.0.0.1');
    const tagged = await connectFrom('127.0.0.1', port, { PATH: process.env.PATH, DSH_PROCESS_TAG: 'abc.def' });
    expect(commandPeerReason((await ownersOf(tagged))[0]!, NOT_AN_ANCESTOR)).toBe('a command of a dsh-tools server');
    const cleared = await connectFrom('127.0.0.1', port, { PATH: process.env.PATH, DSH_PROCESS_TAG: 'abc.def' }, ['bash', '-c', 'env -i "$@"; exit', 'bash']);
    const [owner] = await ownersOf(cleared);
    expect(owner).not.toBe(children[1]!.pid);
    expect(commandPeerReason(owner!, NOT_AN_ANCESTOR)).toBe('a command of a dsh-tools server');
  });

  it('ignores a tag the server itself runs under: a client beside it inside the same command is no command of a server', async () => {
    const port = await listen('127.0.0.1');
    // Both under one tagged shell: the "server" is a sibling of the client there.
    const both = `${JSON.stringify(process.execPath)} -e 'setInterval(() => {}, 1000)' & echo $! >&3; exec "$@"`;
    const sibling = spawn('bash', ['-c', both, 'bash', process.execPath, '-e', `require('net').connect(${port}, '127.0.0.1', () => process.stdout.write('up\\n'))`], {
      env: { PATH: process.env.PATH, DSH_PROCESS_TAG: 'abc.def' },
      stdio: ['ignore', 'pipe', 'inherit', 'pipe'],
    });
    children.push(sibling);
    const [serverPid] = await once(sibling.stdio[3]!, 'data');
    await once(sibling.stdout!, 'data');
    while (accepted.length === 0) await once(server, 'connection');
    const [owner] = await ownersOf(accepted.at(-1)!);
    try {
      expect(commandPeerReason(owner!, Number(String(serverPid).trim()))).toBeUndefined();
      expect(commandPeerReason(owner!, NOT_AN_ANCESTOR)).toBe('a command of a dsh-tools server');
    } finally {
      process.kill(Number(String(serverPid).trim()), 'SIGKILL');
    }
  });

  it("finds nothing for an address that is not this host's, and knows its own addresses", async () => {
    expect(isHostAddress('127.0.0.5')).toBe(true);
    expect(isHostAddress('::ffff:127.0.0.1')).toBe(true);
    expect(isHostAddress('192.0.2.7')).toBe(false);
    expect(await peerSocket({ address: '192.0.2.7', port: 1 }, { address: '127.0.0.1', port: 2 })).toBeUndefined();
  });
});
