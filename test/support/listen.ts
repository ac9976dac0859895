import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Something with Express's `listen(port, host, callback)`. */
interface Listenable {
  listen(port: number, host: string, callback: () => void): Server;
}

/** A running app on 127.0.0.1 with a free port. */
export interface RunningApp {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Starts an Express app (4 or 5) on 127.0.0.1, port 0. */
export function listen(app: Listenable): Promise<RunningApp> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        server,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
