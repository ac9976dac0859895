/**
 * App processes of test/support/postgres-app.ts (Express, the runtime, our PostgreSQL adapter, one OIDC client),
 * for the tests of several app instances sharing one database. Each is started with its own `tsx` and stopped by
 * `stopAll` (closing its stdin ends it; a kill makes sure).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { SECRET } from '../runtime/helpers.js';

/** What every process of one test shares: the database, the provider and the client registered there. */
export interface AppProcessSettings {
  databaseUrl: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
}

export class AppProcesses {
  private readonly children: ChildProcess[] = [];

  constructor(private readonly settings: AppProcessSettings) {}

  /** Starts one process; resolves with its URL once it listens. */
  async start(): Promise<string> {
    const { databaseUrl, issuer, clientId, clientSecret } = this.settings;
    const child = spawn(join(process.cwd(), 'node_modules/.bin/tsx'), ['test/support/postgres-app.ts'], {
      cwd: process.cwd(),
      env: { ...process.env, DATABASE_URL: databaseUrl, AUTH_SECRET: SECRET, TEST_ISSUER: issuer, TEST_CLIENT_ID: clientId, TEST_CLIENT_SECRET: clientSecret },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    this.children.push(child);
    const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
    return chunk.toString().trim();
  }

  stopAll(): void {
    for (const child of this.children.splice(0)) {
      child.stdin?.end();
      child.kill();
    }
  }
}
