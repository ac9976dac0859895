/**
 * Our runtime as the CLI scaffolds it: the bench scaffolds a project with `create-framework-auth --providers
 * oidc,credentials --yes --no-install`, compiles it with its own tsconfig, and this server loads the project's
 * compiled `src/auth/index.ts` (BENCH_AUTH_MODULE) and mounts it as the scaffolded `src/server.ts` does. Routes
 * mirror authjs.ts one for one.
 */
import { pathToFileURL } from 'node:url';
import express from 'express';
import type { RequestHandler } from 'express';
import type { FrameworkAuthHandler, RequireAuthOptions } from '../../templates/runtime/index.js';
import { serve } from './child.js';

/** What the scaffolded `src/auth/index.ts` exports. */
interface ScaffoldedAuthModule {
  authHandler: FrameworkAuthHandler;
  sessionLocals: RequestHandler;
  requireAuth(options?: RequireAuthOptions): RequestHandler;
}

const modulePath = process.env['BENCH_AUTH_MODULE'];
if (!modulePath) throw new Error('BENCH_AUTH_MODULE must name the compiled auth module of the scaffolded project');
const { authHandler, requireAuth, sessionLocals } = (await import(pathToFileURL(modulePath).href)) as ScaffoldedAuthModule;

const app = express();
app.set('trust proxy', true);
app.use('/auth/*splat', authHandler);

// A protected route whose middleware calls getSession (requireAuth does, when sessionLocals has not run).
app.get('/protected', requireAuth(), (_req, res) => {
  res.json({ user: (res.locals['session'] as { user: unknown }).user });
});

// A public route behind sessionLocals: without a session cookie this must cost almost nothing (SPEC §8).
app.get('/public', sessionLocals, (_req, res) => {
  res.json({ hello: 'world' });
});

serve(app);
