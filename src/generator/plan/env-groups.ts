import { callbackPath } from '../../catalog/mount-path.js';
import { findAdapter } from '../../catalog/adapters.js';
import type { AdapterEntry } from '../../catalog/adapters.js';
import type { FeatureEntry } from '../../catalog/features.js';
import type { ProviderEntry } from '../../catalog/providers.js';
import type { EnvGroup } from '../edit/env-file.js';
import { findEnvLine } from '../edit/env-file.js';

/** The origin the app is reached at: `AUTH_URL`'s origin from .env, else `http://localhost:<PORT or 3000>`. */
export function appOrigin(envText: string | undefined): string {
  const authUrl = envText === undefined ? undefined : findEnvLine(envText, 'AUTH_URL')?.value;
  if (authUrl) {
    try {
      return new URL(authUrl).origin;
    } catch {
      // An invalid AUTH_URL is reported by the runtime at startup; the default origin is still a useful hint here.
    }
  }
  const port = envText === undefined ? undefined : findEnvLine(envText, 'PORT')?.value;
  return `http://localhost:${port && /^\d+$/.test(port) ? port : '3000'}`;
}

/** The callback URL to register with an OAuth provider (seed §5 rule 3: it moves with the mount path). */
export function callbackUrl(origin: string, mount: string, providerId: string): string {
  return `${origin}${callbackPath(mount, providerId)}`;
}

/** The `AUTH_SECRET` group of .env (with the secret) or .env.example (with an empty value). */
export function secretEnvGroup(secret: string): EnvGroup {
  return {
    comment: [
      'Encrypts sessions and signs CSRF tokens: 32+ random characters, never committed.',
      'Replace it with `npx framework-auth secret --force` (signs everyone out).',
    ],
    entries: [{ key: 'AUTH_SECRET', value: secret }],
  };
}

/** The `AUTH_URL` group: the app's public origin, which every URL the runtime builds starts with. */
export function originEnvGroup(origin: string): EnvGroup {
  return {
    comment: [
      "The app's public URL: sign-in links, callback URLs and redirects are built on it, never on a request's Host header.",
      'In production, the https URL users reach the app at.',
    ],
    entries: [{ key: 'AUTH_URL', value: origin }],
  };
}

/** The placeholders of one provider, or undefined when it reads no env vars. */
export function providerEnvGroup(entry: ProviderEntry, origin: string, mount: string): EnvGroup | undefined {
  if (entry.env.length === 0) return undefined;
  const comment = entry.oauth
    ? [`${entry.name}: register ${callbackUrl(origin, mount, entry.id)} as the callback URL.`]
    : [`${entry.name}.`];
  return { comment, entries: entry.env.map((key) => ({ key, value: '' })) };
}

/** The first env var of an adapter's group (`DATABASE_URL`), or undefined for `none` and `memory`. */
export function adapterEnvKey(adapterId: string): string | undefined {
  const adapter = findAdapter(adapterId);
  return adapter ? adapterEnvGroup(adapter)?.entries[0]?.key : undefined;
}

/** The env vars of an adapter (a database URL), or undefined. */
export function adapterEnvGroup(entry: AdapterEntry): EnvGroup | undefined {
  const entries = Object.entries(entry.env).map(([key, value]) => ({ key, value }));
  if (entries.length === 0) return undefined;
  return { comment: entry.envComment.length > 0 ? entry.envComment : [`${entry.name} adapter.`], entries };
}

/**
 * The env keys of a feature but those `written` under another name already, or undefined when none is left: each
 * empty, under the feature's name and two comment lines per key (what it is for and whether it is optional; an
 * example value).
 */
export function featureEnvGroup(entry: FeatureEntry, written: ReadonlySet<string> = new Set()): EnvGroup | undefined {
  const keys = entry.env.filter((key) => !written.has(key.name));
  if (keys.length === 0) return undefined;
  return {
    comment: [`${entry.name}.`, ...keys.flatMap((key) => [`${key.name}${key.required ? '' : ' (optional)'}: ${key.comment}.`, `  e.g. ${key.example}`])],
    entries: keys.map((key) => ({ key: key.name, value: '' })),
  };
}
