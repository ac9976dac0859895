/**
 * The same app on `@auth/express` 0.12.3, as its docs say: `ExpressAuth(config)` on the auth path, `getSession(req,
 * config)` in the middleware. Mounted with `app.use('/auth', …)`: it computes its base path from `req.params[0]`,
 * which Express 5's `app.use('/auth/*splat', …)` does not set, so on that mount every action answers 400
 * UnknownAction ("Cannot parse action at /auth/csrf"); its docs' `/auth/*` is Express 4 syntax.
 */
import { ExpressAuth, getSession } from '@auth/express';
import type { ExpressAuthConfig } from '@auth/express';
import Credentials from '@auth/express/providers/credentials';
import type { NextFunction, Request, Response } from 'express';
import express from 'express';
import { benchUser } from './bench-user.js';
import { serve } from './child.js';

const issuer = process.env['AUTH_OIDC_ISSUER'];
const authConfig: ExpressAuthConfig = {
  trustHost: true,
  providers: [
    ...(issuer
      ? [
          {
            id: 'oidc',
            name: 'OpenID Connect',
            type: 'oidc' as const,
            issuer,
            clientId: process.env['AUTH_OIDC_ID'] ?? '',
            clientSecret: process.env['AUTH_OIDC_SECRET'] ?? '',
            checks: ['pkce' as const],
            authorization: { params: { scope: 'openid profile email' } },
          },
        ]
      : []),
    Credentials({
      credentials: { username: { label: 'Username' }, password: { label: 'Password', type: 'password' } },
      authorize: async (credentials) => benchUser(credentials),
    }),
  ],
};

/** Their docs' `authenticatedUser` middleware. */
async function authenticatedUser(req: Request, res: Response, next: NextFunction): Promise<void> {
  const session = (res.locals['session'] as Awaited<ReturnType<typeof getSession>> | undefined) ?? (await getSession(req, authConfig));
  if (!session?.user) {
    res.redirect('/auth/signin');
  } else {
    res.locals['session'] = session;
    next();
  }
}

/** Their docs' `authSession` middleware, which makes the session available to every route. */
async function authSession(req: Request, res: Response, next: NextFunction): Promise<void> {
  res.locals['session'] = await getSession(req, authConfig);
  next();
}

const app = express();
app.set('trust proxy', true);
app.use('/auth', ExpressAuth(authConfig));

app.get('/protected', authenticatedUser, (_req, res) => {
  res.json({ user: (res.locals['session'] as { user: unknown }).user });
});

app.get('/public', authSession, (_req, res) => {
  res.json({ hello: 'world' });
});

serve(app);
