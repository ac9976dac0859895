import { oauthEnvVars } from './env-names.js';

/**
 * One provider the CLI can write into a project. Adding a provider to the CLI is adding one of these (and its runtime
 * file): what is particular to a provider is said here, never by testing its id elsewhere.
 */
export type ProviderEntry = ProviderFields & AdapterNeed;

/** The fields of a {@link ProviderEntry} every provider has or may have. */
interface ProviderFields {
  /** Catalog id: the runtime file `templates/runtime/providers/<id>.ts`, the URL segment and the env prefix. */
  readonly id: string;
  /** Display name, as on the default sign-in page. */
  readonly name: string;
  /** One line shown beside the name in the multiselect. */
  readonly hint: string;
  /** Other names accepted by `--providers` and `add-provider`; they resolve to `id`. */
  readonly aliases: readonly string[];
  /** Whether the user must register a callback URL with the provider (printed in the next steps). */
  readonly oauth: boolean;
  /** Env vars the provider reads; written empty to `.env` and `.env.example`. */
  readonly env: readonly string[];
  /** Local name of the default import of the factory in `src/auth/config.ts`. */
  readonly importName: string;
  /** The factory's module, relative to `src/auth/config.ts`. */
  readonly importPath: string;
  /** The element written into `providers: [...]`; may span lines (indented by the writer). */
  readonly snippet: string;
  /** npm dependencies the provider needs beyond the runtime's own. */
  readonly dependencies: Readonly<Record<string, string>>;
  /**
   * A step `add-provider` prints after adding the provider, given the auth config's path (`src/auth/config.ts`): what
   * is left to write before it signs anyone in.
   */
  readonly nextStep?: (configPath: string) => string;
  /**
   * A local stand-in for the provider to develop against, suggested in the next steps of `create-framework-auth` and
   * in `doctor`'s fixes for the provider's empty env vars or unreachable issuer.
   */
  readonly localDevelopment?: LocalDevelopment;
  /**
   * The provider sends sign-in links built on the app's origin (email): without AUTH_URL (or an AUTH_TRUST_HOST host
   * list) the runtime refuses to start rather than build one on a Host header, and `doctor` reports that as an error.
   */
  readonly sendsLinks?: boolean;
  /**
   * Env vars the runtime does without outside production (the password provider prints its messages on the console
   * while AUTH_EMAIL_SERVER is empty), and what it does instead: `doctor` warns rather than fails for them, unless
   * NODE_ENV is production, where the runtime refuses to start without them.
   */
  readonly developmentFallback?: { readonly env: readonly string[]; readonly instead: string };
  /**
   * The element written instead of `snippet` when features opt the provider in (`twoFactor: true, // …` for
   * two-factor, catalog/features.ts): the same call with those option lines first, as add-<feature> sets them.
   */
  readonly snippetWith?: (optionLines: readonly string[]) => string;
}

/** Whether a {@link ProviderEntry} needs a database adapter, and for what. */
type AdapterNeed =
  | {
      /**
       * The provider stores what it signs in with (email links, passkeys) through an adapter: the CLI refuses it with
       * `--adapter none`, and the runtime refuses to start without an adapter.
       */
      readonly requiresAdapter: true;
      /** What it stores through the adapter, as the refusal without one names it: `email sign-in links`, `passkeys`. */
      readonly storedThroughAdapter: string;
    }
  | {
      /** The provider works without an adapter (JWT sessions). */
      readonly requiresAdapter?: false;
      /** Nothing: the provider stores nothing through an adapter. */
      readonly storedThroughAdapter?: undefined;
    };

/** A local stand-in for a provider to develop against ({@link ProviderEntry.localDevelopment}). */
export interface LocalDevelopment {
  /** What the stand-in is, as in "No OpenID provider to register with yet?": `OpenID provider`. */
  readonly kind: string;
  /** The bin command that starts it, without the package manager's runner: `framework-auth dev-idp`. */
  readonly command: string;
  /** The command's flag that also writes the provider's env vars into `.env`. */
  readonly writeEnvFlag: string;
  /** The user to sign in as through it. */
  readonly signInAs: string;
}

// The options features opt it in with come first, each on its own line, as add-<feature> sets them in the user's call.
const credentialsSnippet = (optionLines: readonly string[] = []) => `Credentials({${optionLines.map((line) => `\n  ${line}`).join('')}
  credentials: {
    username: { label: 'Username' },
    password: { label: 'Password', type: 'password' },
  },
  // Look the user up and check the password here; return null to refuse (the sign-in page shows an error).
  authorize: async () => null,
})`;

/**
 * The providers whose runtime factory exists in templates/runtime/providers/. One list feeds the prompt, the flag
 * check, `--help` and error messages.
 */
export const providerCatalog = [
  {
    id: 'oidc',
    name: 'OpenID Connect',
    hint: 'any OpenID provider, found by its issuer URL',
    aliases: [],
    oauth: true,
    env: oauthEnvVars('oidc', { issuer: true }),
    importName: 'OIDC',
    importPath: './core/providers/oidc.js',
    snippet: 'OIDC()',
    dependencies: {},
    localDevelopment: { kind: 'OpenID provider', command: 'framework-auth dev-idp', writeEnvFlag: '--write-env', signInAs: 'alice' },
  },
  {
    id: 'github',
    name: 'GitHub',
    hint: 'OAuth 2; uses the primary verified email when the profile hides it',
    aliases: [],
    oauth: true,
    env: oauthEnvVars('github', { issuer: false }),
    importName: 'GitHub',
    importPath: './core/providers/github.js',
    snippet: 'GitHub()',
    dependencies: {},
  },
  {
    id: 'google',
    name: 'Google',
    hint: 'OpenID Connect, found by discovery',
    aliases: [],
    oauth: true,
    env: oauthEnvVars('google', { issuer: false }),
    importName: 'Google',
    importPath: './core/providers/google.js',
    snippet: 'Google()',
    dependencies: {},
  },
  {
    id: 'microblog',
    name: 'Microblog (X, formerly Twitter)',
    hint: 'OAuth 2 with PKCE; aliases twitter, x',
    aliases: ['twitter', 'x'],
    oauth: true,
    env: oauthEnvVars('microblog', { issuer: false }),
    importName: 'Microblog',
    importPath: './core/providers/microblog.js',
    snippet: 'Microblog()',
    dependencies: {},
  },
  {
    id: 'discord',
    name: 'Discord',
    hint: 'OAuth 2 with PKCE and state',
    aliases: [],
    oauth: true,
    env: oauthEnvVars('discord', { issuer: false }),
    importName: 'Discord',
    importPath: './core/providers/discord.js',
    snippet: 'Discord()',
    dependencies: {},
  },
  {
    id: 'gitlab',
    name: 'GitLab',
    hint: 'OAuth 2 with PKCE and state (gitlab.com, or your instance)',
    aliases: [],
    oauth: true,
    env: oauthEnvVars('gitlab', { issuer: false }),
    importName: 'GitLab',
    importPath: './core/providers/gitlab.js',
    snippet: 'GitLab()',
    dependencies: {},
  },
  {
    id: 'microsoft-entra-id',
    name: 'Microsoft Entra ID',
    hint: 'OpenID Connect; AUTH_MICROSOFT_ENTRA_ID_ISSUER names your tenant',
    aliases: [],
    oauth: true,
    env: oauthEnvVars('microsoft-entra-id', { issuer: true }),
    importName: 'MicrosoftEntraID',
    importPath: './core/providers/microsoft-entra-id.js',
    snippet: 'MicrosoftEntraID()',
    dependencies: {},
  },
  {
    id: 'auth0',
    name: 'Auth0',
    hint: 'OpenID Connect; AUTH_AUTH0_ISSUER is your Auth0 domain',
    aliases: [],
    oauth: true,
    env: oauthEnvVars('auth0', { issuer: true }),
    importName: 'Auth0',
    importPath: './core/providers/auth0.js',
    snippet: 'Auth0()',
    dependencies: {},
  },
  {
    id: 'keycloak',
    name: 'Keycloak',
    hint: 'OpenID Connect; AUTH_KEYCLOAK_ISSUER is https://host/realms/<realm>',
    aliases: [],
    oauth: true,
    env: oauthEnvVars('keycloak', { issuer: true }),
    importName: 'Keycloak',
    importPath: './core/providers/keycloak.js',
    snippet: 'Keycloak()',
    dependencies: {},
  },
  {
    id: 'credentials',
    name: 'Credentials',
    hint: 'username and password checked by your own authorize()',
    aliases: [],
    oauth: false,
    env: [],
    importName: 'Credentials',
    importPath: './core/providers/credentials.js',
    snippet: credentialsSnippet(),
    snippetWith: credentialsSnippet,
    dependencies: {},
    nextStep: (configPath: string) => `Write the user lookup in the authorize() of ${configPath}.`,
  },
  {
    id: 'email',
    name: 'Email',
    hint: 'a sign-in link by email over SMTP (nodemailer); needs an adapter',
    aliases: [],
    oauth: false,
    env: ['AUTH_EMAIL_SERVER', 'AUTH_EMAIL_FROM'],
    importName: 'Email',
    importPath: './core/providers/email.js',
    snippet: 'Email()',
    dependencies: { nodemailer: '^10.6.0' },
    requiresAdapter: true,
    storedThroughAdapter: 'email sign-in links',
    sendsLinks: true,
  },
  {
    id: 'passkey',
    name: 'Passkey',
    hint: 'WebAuthn passkeys (@simplewebauthn/server); needs an adapter',
    aliases: ['webauthn'],
    oauth: false,
    env: [],
    importName: 'Passkey',
    importPath: './core/providers/passkey.js',
    snippet: 'Passkey()',
    dependencies: { '@simplewebauthn/server': '^14.0.3' },
    requiresAdapter: true,
    storedThroughAdapter: 'passkeys',
  },
  {
    id: 'password',
    name: 'Email and password',
    hint: 'accounts with a confirmed address, reset and change (NIST 800-63B-4); needs an adapter',
    aliases: [],
    oauth: false,
    env: ['AUTH_EMAIL_SERVER', 'AUTH_EMAIL_FROM'],
    importName: 'Password',
    importPath: './core/providers/password.js',
    snippet: 'Password()',
    dependencies: { nodemailer: '^10.6.0', '@node-rs/argon2': '^2.2.1' },
    requiresAdapter: true,
    storedThroughAdapter: 'users, password hashes and single-use links',
    sendsLinks: true,
    developmentFallback: { env: ['AUTH_EMAIL_SERVER', 'AUTH_EMAIL_FROM'], instead: 'its messages (address confirmation, password reset) are printed on the server console instead of sent' },
  },
] as const satisfies readonly ProviderEntry[];

/** A catalog provider id. */
export type ProviderId = (typeof providerCatalog)[number]['id'];

/** Every catalog id, in catalog order. */
export const providerIds: readonly ProviderId[] = providerCatalog.map((entry) => entry.id);

/** The provider selected when the user accepts the defaults. */
export const defaultProviderIds: readonly ProviderId[] = ['oidc'];

/** The catalog entry of an id or alias (case-insensitive), or undefined. */
export function findProvider(idOrAlias: string): (typeof providerCatalog)[number] | undefined {
  const wanted = idOrAlias.trim().toLowerCase();
  return providerCatalog.find(
    (entry) => entry.id === wanted || (entry.aliases as readonly string[]).includes(wanted),
  );
}

/** The catalog entry of a known id. */
export function getProvider(id: ProviderId): ProviderEntry {
  const entry = findProvider(id);
  if (!entry) throw new Error(`No catalog entry for provider "${id}"`);
  return entry;
}

/** The providers of `ids` that need an adapter (email, passkey), in the given order. */
export function providersRequiringAdapter(ids: readonly ProviderId[]): ProviderId[] {
  return ids.filter((id) => getProvider(id).requiresAdapter === true);
}

/** `oidc, microblog (twitter, x), credentials`: the valid values for error messages and help. */
export function describeProviderIds(): string {
  return providerCatalog
    .map((entry) => (entry.aliases.length > 0 ? `${entry.id} (${entry.aliases.join(', ')})` : entry.id))
    .join(', ');
}
