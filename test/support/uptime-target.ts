import { createServer, Server } from 'node:net';

/** A TCP server that accepts and closes every connection: the "up" port uptime checks connect to. */
export async function listeningUpTarget(host: string, port: number): Promise<Server> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen({ host, port }, resolve));
  return server;
}
