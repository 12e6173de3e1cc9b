/**
 * A loopback server that speaks just enough of PostgreSQL's protocol to ask a client for its password
 * (cleartext) and keep what it is sent: what a collector a cloned `.env` points DATABASE_URL at would
 * receive. Every connection is then refused as a wrong password.
 */
import { createServer, type AddressInfo, type Socket } from 'node:net';

export interface PasswordCatcher {
  /** `postgres://subops@127.0.0.1:<port>/subops`: no password of its own. */
  url: string;
  port: number;
  /** The passwords clients sent, in order. */
  received: string[];
  /** Connections made, whether or not they sent a password. */
  connections: number;
  close(): Promise<void>;
}

const message = (type: string, body: Buffer) => {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
};
const int32 = (value: number) => {
  const buffer = Buffer.alloc(4);
  buffer.writeInt32BE(value);
  return buffer;
};
const AUTH_CLEARTEXT = message('R', int32(3));
const WRONG_PASSWORD = message('E', Buffer.from('SFATAL\0C28P01\0Mpassword authentication failed\0\0', 'latin1'));

export async function startPasswordCatcher(): Promise<PasswordCatcher> {
  const sockets = new Set<Socket>();
  const catcher = { received: [] as string[], connections: 0 };
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    catcher.connections++;
    let pending = Buffer.alloc(0);
    let started = false;
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      if (!started) {
        // The startup message: a length, no type byte.
        if (pending.length < 4 || pending.length < pending.readInt32BE(0)) return;
        pending = pending.subarray(pending.readInt32BE(0));
        started = true;
        socket.write(AUTH_CLEARTEXT);
      }
      if (pending.length < 5 || pending.length < 1 + pending.readInt32BE(1)) return;
      if (pending.toString('latin1', 0, 1) === 'p') catcher.received.push(pending.toString('utf8', 5, pending.readInt32BE(1)).replace(/\0$/, ''));
      socket.end(WRONG_PASSWORD);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(catcher, {
    url: `postgres://subops@127.0.0.1:${port}/subops`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  });
}
