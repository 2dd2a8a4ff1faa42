// A TCP proxy in front of the API server that a test can take down (every connection dropped) and bring back.
import net from 'node:net';

/** A TCP proxy to `target` that can drop every connection (new and open) while `down`. */
export function outageProxy(target: URL): Promise<{ port: number; down: () => void; up: () => void; refusedWhileDown: () => number; close: () => void }> {
  let down = false;
  let refused = 0;
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (down) {
      refused++;
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port), target.hostname);
    open.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as net.AddressInfo).port,
        down: () => {
          down = true;
          refused = 0;
          for (const socket of open) socket.destroy();
        },
        up: () => void (down = false),
        refusedWhileDown: () => refused,
        close: () => {
          server.close();
          for (const socket of open) socket.destroy();
        },
      }),
    ),
  );
}
