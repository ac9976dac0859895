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

/** A TCP port on 127.0.0.1 that nothing listened on a moment ago (bound to port 0, then released). */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The environment a generated app is started with in tests: a free port on 127.0.0.1 and AUTH_URL naming it, as a
 * user's .env names the app's public URL (the scaffold's `AUTH_URL=http://localhost:3000` would not be reached).
 * Values in `env` win.
 */
export async function generatedAppEnv(env: NodeJS.ProcessEnv = {}): Promise<NodeJS.ProcessEnv> {
  const requested = env['PORT'];
  const port = requested && requested !== '0' ? requested : String(await freePort());
  return { PATH: process.env['PATH'], HOST: '127.0.0.1', AUTH_URL: `http://127.0.0.1:${port}`, ...env, PORT: port };
}
