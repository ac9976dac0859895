/**
 * The app users get: the project `create-framework-auth app --yes` writes, built with its own build script, its
 * compiled server (BENCH_APP_ENTRY, its start script's `dist/server.js`) run as it is, from the project folder (so
 * that it reads its own `.env`; the bench's environment, as a deployment's, overrides it). The server listens where
 * PORT and HOST say; this wrapper only tells the bench its port once it accepts connections, and answers the bench's
 * questions about memory and CPU time (child.ts).
 */
import { connect } from 'node:net';
import { pathToFileURL } from 'node:url';
import { handleMessages } from './child.js';

const entry = process.env['BENCH_APP_ENTRY'];
const port = Number(process.env['BENCH_PORT']);
if (!entry || !port) throw new Error('set BENCH_APP_ENTRY (the compiled server) and BENCH_PORT (the port the bench chose)');
process.env['PORT'] = String(port);
process.env['HOST'] = '127.0.0.1';

handleMessages();
await import(pathToFileURL(entry).href);

const accepts = (): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
while (!(await accepts())) await new Promise((resolve) => setTimeout(resolve, 20));
process.send?.({ type: 'listening', port });
