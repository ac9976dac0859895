/**
 * What every bench server shares: it listens on 127.0.0.1 (port 0), tells the bench its port over the IPC channel,
 * answers questions about its memory and CPU time, and exits when asked (so that `--cpu-prof` writes its profile) or when the bench is gone.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Messages the bench sends to a server. */
export type ToChild = { type: 'usage'; gc: boolean } | { type: 'exit' } | { type: 'call'; id: number; name: string; args: unknown[] };

/** Messages a server sends to the bench. */
export type FromChild =
  | { type: 'listening'; port: number; info?: Record<string, unknown> }
  | { type: 'usage'; rss: number; heapUsed: number; heapTotal: number; external: number; cpuMicros: number }
  | { type: 'result'; id: number; value?: unknown; error?: string };

function send(message: FromChild): void {
  process.send?.(message);
}

/** Extra requests a server answers over IPC (e.g. the OIDC provider registering a client). */
export type Calls = Record<string, (...args: never[]) => unknown>;

/** Starts `app` on 127.0.0.1 (port BENCH_PORT, which the bench may have chosen first; else any) and wires the IPC channel. */
export function serve(
  app: { listen(port: number, host: string, callback: () => void): Server },
  info: Record<string, unknown> = {},
  calls: Calls = {},
): Server {
  const server = app.listen(Number(process.env['BENCH_PORT'] ?? 0), '127.0.0.1', () => {
    send({ type: 'listening', port: (server.address() as AddressInfo).port, info });
  });
  // Keep-alive connections from the load generator outlive the default 5 s between runs.
  server.keepAliveTimeout = 60_000;
  handleMessages(calls);
  return server;
}

/** The IPC side alone, for servers that listen by themselves (oidc-provider). */
export function handleMessages(calls: Calls = {}): void {
  process.on('message', (message: ToChild) => {
    if (message.type === 'exit') process.exit(0);
    if (message.type === 'usage') {
      const gc = (globalThis as { gc?: () => void }).gc;
      if (message.gc && gc) gc();
      const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
      const { user, system } = process.cpuUsage();
      send({ type: 'usage', rss, heapUsed, heapTotal, external, cpuMicros: user + system });
      return;
    }
    if (message.type === 'call') {
      const call = calls[message.name] as ((...args: unknown[]) => unknown) | undefined;
      Promise.resolve()
        .then(() => {
          if (!call) throw new Error(`no call named ${message.name}`);
          return call(...message.args);
        })
        .then(
          (value: unknown) => send({ type: 'result', id: message.id, value }),
          (error: unknown) => send({ type: 'result', id: message.id, error: error instanceof Error ? error.message : String(error) }),
        );
    }
  });
  // The bench died or closed the channel: never outlive it.
  process.on('disconnect', () => process.exit(0));
}
