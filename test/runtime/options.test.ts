import { describe, expect, it } from 'vitest';
import { createJar, formBody } from '../support/cookie-jar.js';
import { credentialsConfig, recordingLogger, setCookieNames, signIn, startApp } from './helpers.js';

describe('callbacks', () => {
  it('refuses the sign-in with AccessDenied when signIn returns false', async () => {
    const app = await startApp(credentialsConfig({ callbacks: { signIn: () => false } }));
    try {
      const { response } = await signIn(app.url);
      const location = new URL(response.headers.get('location')!);
      expect(location.pathname).toBe('/auth/error');
      expect(location.searchParams.get('error')).toBe('AccessDenied');
      expect(setCookieNames(response)).not.toContain('authjs.session-token');
      expect((await fetch(location)).status).toBe(403);
    } finally {
      await app.close();
    }
  });

  it('redirects without a session when signIn returns a same-origin URL', async () => {
    const app = await startApp(credentialsConfig({ callbacks: { signIn: () => '/onboarding' } }));
    try {
      const { response } = await signIn(app.url);
      expect(response.headers.get('location')).toBe(`${app.url}/onboarding`);
      expect(setCookieNames(response)).not.toContain('authjs.session-token');
    } finally {
      await app.close();
    }
  });

  it('passes user and account to the jwt callback at sign-in, and the token to the session callback', async () => {
    const app = await startApp(
      credentialsConfig({
        callbacks: {
          jwt: ({ token, user, account, trigger }) => (trigger === 'signIn' ? { ...token, role: 'admin', via: account?.provider, uid: user?.id } : token),
          session: ({ session, token }) => ({ ...session, role: token.role, via: token.via, uid: token.uid }) as never,
        },
      }),
    );
    try {
      const { jar } = await signIn(app.url);
      expect(await (await jar.fetch(`${app.url}/auth/session`)).json()).toMatchObject({ role: 'admin', via: 'credentials', uid: 'id-ada' });
    } finally {
      await app.close();
    }
  });

  it('ends the session when the jwt callback returns null', async () => {
    let allow = true;
    const app = await startApp(credentialsConfig({ callbacks: { jwt: ({ token }) => (allow ? token : null) } }));
    try {
      const { jar } = await signIn(app.url);
      allow = false;
      const response = await jar.fetch(`${app.url}/auth/session`);
      expect(await response.text()).toBe('null');
      expect(response.headers.getSetCookie()[0]).toMatch(/^authjs\.session-token=; .*Max-Age=0/);
    } finally {
      await app.close();
    }
  });
});

describe('events', () => {
  it('fires signOut with the token and session on reads, and logs a failing handler without breaking the flow', async () => {
    const { errors, logger } = recordingLogger();
    const seen: string[] = [];
    const app = await startApp(
      credentialsConfig({
        logger,
        events: {
          signOut: (message) => void seen.push(`signOut:${(message as { token: { sub: string } }).token.sub}`),
          session: () => {
            seen.push('session');
            throw new Error('analytics down');
          },
        },
      }),
    );
    try {
      const { jar } = await signIn(app.url);
      expect(await (await jar.fetch(`${app.url}/auth/session`)).json()).toMatchObject({ user: { name: 'ada' } });
      const { csrfToken } = (await (await jar.fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string };
      await jar.fetch(`${app.url}/auth/signout`, { method: 'POST', ...formBody({ csrfToken }) });
      expect(seen).toEqual(['session', 'signOut:id-ada']);
      expect(errors.map((error) => (error as { type?: string }).type)).toContain('EventError');
    } finally {
      await app.close();
    }
  });
});

describe('pages, cookies and secure cookies options', () => {
  it('redirects the sign-in, sign-out and error pages to pages.* with error and callbackUrl', async () => {
    const app = await startApp(credentialsConfig({ pages: { signIn: '/login', signOut: '/bye', error: '/oops' } }));
    try {
      const signin = await fetch(`${app.url}/auth/signin?callbackUrl=%2Fme`, { redirect: 'manual' });
      expect(signin.headers.get('location')).toBe(`${app.url}/login?callbackUrl=${encodeURIComponent(`${app.url}/me`)}`);
      expect((await fetch(`${app.url}/auth/signout`, { redirect: 'manual' })).headers.get('location')).toBe(`${app.url}/bye`);
      expect((await fetch(`${app.url}/auth/error?error=AccessDenied`, { redirect: 'manual' })).headers.get('location')).toBe(`${app.url}/oops?error=AccessDenied`);
      const { response } = await signIn(app.url, '/auth', { password: 'wrong' });
      expect(response.headers.get('location')).toBe(`${app.url}/login?error=CredentialsSignin&code=credentials`);
      const guarded = await fetch(`${app.url}/me`, { redirect: 'manual' });
      expect(guarded.headers.get('location')).toBe('/login?callbackUrl=%2Fme');
    } finally {
      await app.close();
    }
  });

  it('uses cookie name overrides', async () => {
    const app = await startApp(credentialsConfig({ cookies: { sessionToken: { name: 'my-app.session' } } }));
    try {
      const { jar, response } = await signIn(app.url);
      expect(setCookieNames(response)).toContain('my-app.session');
      expect(await (await jar.fetch(`${app.url}/auth/session`)).json()).toMatchObject({ user: { name: 'ada' } });
    } finally {
      await app.close();
    }
  });

  it('forces secure cookies with useSecureCookies: true', async () => {
    const app = await startApp(credentialsConfig({ useSecureCookies: true }));
    try {
      const response = await createJar().fetch(`${app.url}/auth/csrf`);
      expect(response.headers.getSetCookie()[0]).toMatch(/^__Host-authjs\.csrf-token=.*; Secure;/);
    } finally {
      await app.close();
    }
  });

  it('applies the theme to the built-in pages', async () => {
    const app = await startApp(credentialsConfig({ theme: { colorScheme: 'dark', brandColor: '#ff0066', logo: 'https://cdn.example.test/logo.svg' } }));
    try {
      const page = await (await fetch(`${app.url}/auth/signin`)).text();
      expect(page).toContain('data-theme="dark"');
      expect(page).toContain('--brand:#ff0066');
      expect(page).toContain('src="https://cdn.example.test/logo.svg"');
    } finally {
      await app.close();
    }
  });

  it('drops a theme colour that could break out of the style sheet', async () => {
    const app = await startApp(credentialsConfig({ theme: { brandColor: 'red;}</style><script>alert(1)</script>' } }));
    try {
      const page = await (await fetch(`${app.url}/auth/signin`)).text();
      expect(page).not.toContain('<script>');
      expect(page).not.toContain('--brand:red');
    } finally {
      await app.close();
    }
  });
});

describe('logging', () => {
  it('never writes the secret, a session token or a password into a log line, even with debug on', async () => {
    const lines: string[] = [];
    const capture = (...parts: unknown[]) => void lines.push(parts.map((part) => (part instanceof Error ? `${part.message} ${String((part as { cause?: { err?: Error } }).cause?.err?.message ?? '')}` : JSON.stringify(part))).join(' '));
    const app = await startApp(credentialsConfig({ debug: true, logger: { error: capture, warn: capture, debug: capture } }));
    try {
      const { jar } = await signIn(app.url);
      const sessionCookie = jar.get('authjs.session-token', app.url)!;
      await jar.fetch(`${app.url}/auth/session`);
      await signIn(app.url, '/auth', { password: 'wrong' });
      await fetch(`${app.url}/auth/session`, { headers: { cookie: 'authjs.session-token=tampered-value' } });
      const all = lines.join('\n');
      expect(lines.length).toBeGreaterThan(0);
      expect(all).not.toContain(credentialsConfig().secret as string);
      expect(sessionCookie.length).toBeGreaterThan(100);
      expect(all).not.toContain(sessionCookie);
      expect(all).not.toContain('correct horse');
      expect(all).not.toContain('tampered-value');
    } finally {
      await app.close();
    }
  });
});
