import { accountPath, apiKeysPath } from './mount-path.js';
import type { ProviderId } from './providers.js';

/**
 * One feature the CLI can write into a project: a runtime feature (`templates/runtime/features/<id>/`) listed in the
 * config's `features: [...]`. create's flag, the `add-<id>` and `remove-<id>` commands, the prompt, the checks and
 * the plans are built from its entry: adding a feature to the CLI is adding one of these and its runtime folder.
 */
export interface FeatureEntry {
  /** Catalog id: the runtime folder `features/<id>/`, the commands `add-<id>` and `remove-<id>`, the flag `--<id>`. */
  readonly id: string;
  /** Display name. */
  readonly name: string;
  /** How messages name it at the start of a sentence (`Two-factor is already in …`). */
  readonly label: string;
  /** How messages name it inside a sentence (`Remove two-factor first`). */
  readonly noun: string;
  /**
   * Its key in the answers and the manifest's answers (`"twoFactor": true`): what commander makes of the flag.
   * Absent means off.
   */
  readonly answersKey: string;
  /** create's flag (`--two-factor`) and its help line. */
  readonly flag: { readonly name: string; readonly description: string };
  /** The question create asks in a terminal when the flag is not given and the answers fit the feature. */
  readonly question: string;
  /** `add-<id>` and `remove-<id>`: each one's one-line description and the help after its options. */
  readonly commands: {
    readonly add: { readonly description: string; readonly help: string };
    readonly remove: { readonly description: string; readonly help: string };
  };
  /** The named export of the feature's module, imported by that name in `src/auth/config.ts`. */
  readonly importName: string;
  /** The feature's module, relative to `src/auth/config.ts`: the runtime folder follows by its imports. */
  readonly importPath: string;
  /** The element written into `features: [...]`. */
  readonly snippet: string;
  /**
   * Its page for signed-in users, linked from the starter server's home page (after "Your sessions"): its path below
   * the mount path, and the link's text.
   */
  readonly page?: { readonly path: (mount: string) => string; readonly linkText: string };
  /** npm dependencies it brings beyond the runtime's own. */
  readonly dependencies: Readonly<Record<string, string>>;
  /** What it needs of the project: refused (before anything is written) without it. */
  readonly needs: {
    /** It stores through the adapter: what, as the refusal without one names it. */
    readonly adapter?: { readonly stored: string };
    /** It works after one of these providers' sign-ins, and why, as the refusals say it. */
    readonly providers?: FeatureProviderNeed;
  };
  /** The providers that take part only when told, and how; create writes the option, add sets it, remove takes it out. */
  readonly optIns: readonly ProviderOptIn[];
  /** What `add-<id>` prints after the write: how users start using it, then what is left to run. */
  readonly nextSteps: { readonly use: (mount: string) => string; readonly run?: string };
  /** What `remove-<id>` prints after removing it (its tables keep their rows, …). */
  readonly afterRemove: readonly string[];
  /** What `doctor` says of a config that lists it: why it needs an adapter, what providers it lacks, and all is well. */
  readonly doctor: {
    readonly withoutAdapter: string;
    readonly withoutProviders: string;
    readonly configured: (providerNames: string, mount: string) => string;
  };
}

/** The providers a feature works after ({@link FeatureEntry.needs}). */
export interface FeatureProviderNeed {
  readonly ids: readonly ProviderId[];
  /** Why, after the feature's label or flag: `asks for a code after a password`. */
  readonly why: string;
  /** What such a provider does, after "a provider that": `signs in with one`. */
  readonly does: string;
  /** The provider suggested to add (`password`), and how create's hint names the choice (`password (or credentials)`). */
  readonly suggested: ProviderId;
  readonly suggestedText: string;
}

/**
 * An option a feature sets in a provider's options object so that the provider takes part: `twoFactor: true` in
 * `Credentials({ … })`. Without the feature, the runtime refuses to start with it.
 */
export interface ProviderOptIn {
  /** The provider's catalog id. */
  readonly provider: ProviderId;
  /** The provider factory's module, relative to `src/auth/config.ts`. */
  readonly importPath: string;
  /** The option's name and value (as code), and the comment written after it on its own line. */
  readonly name: string;
  readonly value: string;
  readonly comment: string;
}

const twoFactorAddHelp = `
Examples:
  $ npx framework-auth add-two-factor
  $ npx framework-auth add-two-factor --dry-run
  $ npx framework-auth add-two-factor --json

Adds TwoFactor() to the features of src/auth/config.ts (and its import), the feature's runtime files and its
dependency (uqr, the QR code of the setup page). Needs an adapter and the password (or credentials) provider.
Signed-in users then turn it on at <mount>/two-factor. Running it again changes nothing.
`;

const twoFactorRemoveHelp = `
Examples:
  $ npx framework-auth remove-two-factor
  $ npx framework-auth remove-two-factor --json

Removes TwoFactor() and its import from src/auth/config.ts, its runtime files when nothing imports them any more and
you did not change them, and the dependency add-two-factor added. Running it again changes nothing.
`;

const apiKeysAddHelp = `
Examples:
  $ npx framework-auth add-api-keys
  $ npx framework-auth add-api-keys --dry-run
  $ npx framework-auth add-api-keys --json

Adds ApiKeys({ scopes: ['read', 'write'] }) to the features of src/auth/config.ts (and its import), the feature's
runtime files, createApiKey() to src/auth/index.ts and a link to the starter server's home page. Needs an adapter.
Signed-in users then create keys at <mount>/api-keys; requests with Authorization: Bearer <key> pass requireAuth()
and getSession() as the key's user, and requireAuth({ scopes: ['read'] }) checks a key's scopes. Running it again
changes nothing.
`;

const apiKeysRemoveHelp = `
Examples:
  $ npx framework-auth remove-api-keys
  $ npx framework-auth remove-api-keys --json

Removes ApiKeys(…) and its import from src/auth/config.ts, createApiKey() from src/auth/index.ts, the link from the
starter server, and its runtime files when nothing imports them any more and you did not change them. Keys stop
working at once. Running it again changes nothing.
`;

const accountAddHelp = `
Examples:
  $ npx framework-auth add-account
  $ npx framework-auth add-account --dry-run
  $ npx framework-auth add-account --json

Adds Account() to the features of src/auth/config.ts (and its import), the feature's runtime files (with the security
events it records and shows) and a link to the starter server's home page. Needs an adapter. Signed-in users then see
their account at <mount>/account: their address (changed through a link sent to the new one), linked accounts, recent
security events, a JSON export of what is stored about them, and deleting the account. Sensitive changes ask them to
sign in again when their last sign-in is older than reauthMaxAge. Running it again changes nothing.
`;

const accountRemoveHelp = `
Examples:
  $ npx framework-auth remove-account
  $ npx framework-auth remove-account --json

Removes Account() and its import from src/auth/config.ts, the link from the starter server, and its runtime files when
nothing imports them any more and you did not change them. The security_events and email_changes tables keep their
rows. Running it again changes nothing.
`;

/** The features whose runtime folder exists in templates/runtime/features/, in the order the config lists them. */
export const featureCatalog = [
  {
    id: 'two-factor',
    name: 'Two-factor authentication (TOTP)',
    label: 'Two-factor',
    noun: 'two-factor',
    answersKey: 'twoFactor',
    flag: { name: '--two-factor', description: 'TOTP two-factor after the password (needs password or credentials, and an adapter)' },
    question: 'Ask for a code from an authenticator app after the password (two-factor)?',
    commands: {
      add: { description: 'add TOTP two-factor sign-in (after the password) to a project scaffolded by create-framework-auth', help: twoFactorAddHelp },
      remove: { description: 'remove the two-factor sign-in that add-two-factor (or create --two-factor) added', help: twoFactorRemoveHelp },
    },
    importName: 'TwoFactor',
    importPath: './core/features/two-factor/index.js',
    snippet: 'TwoFactor()',
    // The QR code of the enrollment page.
    dependencies: { uqr: '^0.1.3' },
    needs: {
      adapter: { stored: 'TOTP secrets, recovery codes and pending sign-ins' },
      // A password is the first factor.
      providers: { ids: ['password', 'credentials'], why: 'asks for a code after a password', does: 'signs in with one', suggested: 'password', suggestedText: 'password (or credentials)' },
    },
    // Credentials' authorize() may check a second factor of its own: it is asked only when told.
    optIns: [{ provider: 'credentials', importPath: './core/providers/credentials.js', name: 'twoFactor', value: 'true', comment: 'users who turned two-factor on enter a code after authorize()' }],
    nextSteps: {
      use: (mount: string) => `Signed-in users turn it on at ${mount}/two-factor; after that, signing in with their password asks for a code.`,
      run: 'With sqlite or postgres, create its tables now or let the first start do it: npx framework-auth migrate',
    },
    afterRemove: ['The two_factor and recovery_codes tables keep their rows; nothing reads them any more.'],
    doctor: {
      withoutAdapter: 'its secrets live in the database',
      withoutProviders: 'no password or credentials provider',
      configured: (providerNames: string, mount: string) => `Two-factor is configured (after ${providerNames}); users turn it on at ${mount}/two-factor.`,
    },
  },
  {
    id: 'api-keys',
    name: 'API keys',
    label: 'The API-keys feature',
    noun: 'API keys',
    answersKey: 'apiKeys',
    flag: { name: '--api-keys', description: 'API keys: Authorization: Bearer on the same guard as sessions (needs an adapter)' },
    question: 'Let users create API keys for scripts and apps (Authorization: Bearer)?',
    commands: {
      add: { description: 'add API keys (Authorization: Bearer on requireAuth and getSession) to a project scaffolded by create-framework-auth', help: apiKeysAddHelp },
      remove: { description: 'remove the API keys that add-api-keys (or create --api-keys) added', help: apiKeysRemoveHelp },
    },
    importName: 'ApiKeys',
    importPath: './core/features/api-keys/index.js',
    // The scopes a key may hold, which requireAuth({ scopes }) checks: written out so that users see where they go.
    snippet: "ApiKeys({ scopes: ['read', 'write'] })",
    page: { path: apiKeysPath, linkText: 'API keys' },
    dependencies: {},
    needs: { adapter: { stored: 'API keys (their digests)' } },
    optIns: [],
    nextSteps: {
      use: (mount: string) => `Signed-in users create keys at ${apiKeysPath(mount)}; send one as Authorization: Bearer <key>. Guard a route by scope with requireAuth({ scopes: ['read'] }); a key may hold the scopes that ApiKeys({ scopes: […] }) lists in the config.`,
      run: 'With sqlite or postgres, create its table now or let the first start do it: npx framework-auth migrate',
    },
    afterRemove: ['The api_keys table keeps its rows; no key works any more.'],
    doctor: {
      withoutAdapter: 'its keys live in the database',
      withoutProviders: 'no provider',
      configured: (_providerNames: string, mount: string) => `API keys are configured; users create them at ${apiKeysPath(mount)}.`,
    },
  },
  {
    id: 'account',
    name: 'Account page',
    label: 'The account feature',
    noun: 'the account feature',
    answersKey: 'account',
    flag: { name: '--account', description: 'the account page: address change, linked accounts, export, delete, security events (needs an adapter)' },
    question: 'Add an account page (address change, export, delete, security events)?',
    commands: {
      add: { description: 'add the account page (address change, linked accounts, export, delete, security events) to a project scaffolded by create-framework-auth', help: accountAddHelp },
      remove: { description: 'remove the account page that add-account (or create --account) added', help: accountRemoveHelp },
    },
    importName: 'Account',
    importPath: './core/features/account/index.js',
    snippet: 'Account()',
    page: { path: accountPath, linkText: 'Your account' },
    // Its messages (the address change, the notifications) go over SMTP when AUTH_EMAIL_SERVER is set.
    dependencies: { nodemailer: '^10.6.0' },
    needs: { adapter: { stored: 'security events and address changes' } },
    optIns: [],
    nextSteps: {
      use: (mount: string) => `Signed-in users see their account at ${accountPath(mount)}: their address, linked accounts, security events, an export of their data, and deleting the account. Changes ask for a recent sign-in (reauthMaxAge). Its messages go over SMTP once AUTH_EMAIL_SERVER and AUTH_EMAIL_FROM are set (printed on the console until then, outside production).`,
      run: 'With sqlite or postgres, create its tables now or let the first start do it: npx framework-auth migrate',
    },
    afterRemove: ['The security_events and email_changes tables keep their rows; nothing reads them any more.'],
    doctor: {
      withoutAdapter: 'its security events and address changes live in the database',
      withoutProviders: 'no provider',
      configured: (_providerNames: string, mount: string) => `The account page is configured; users manage their account at ${accountPath(mount)}.`,
    },
  },
] as const satisfies readonly FeatureEntry[];

/** A catalog feature id. */
export type FeatureId = (typeof featureCatalog)[number]['id'];

/** A feature's key in the answers (`twoFactor`). */
export type FeatureKey = (typeof featureCatalog)[number]['answersKey'];

/** The features a project has, by their answers key: `{ twoFactor: true }`; absent means off. */
export type FeatureAnswers = { [Key in FeatureKey]?: boolean };

/** The commands of the features: `add-two-factor`, `remove-two-factor`. */
export type FeatureCommandName = `add-${FeatureId}` | `remove-${FeatureId}`;

/** The catalog entry of a known id. */
export function getFeature(id: FeatureId): FeatureEntry {
  const entry = featureCatalog.find((candidate) => candidate.id === id);
  if (!entry) throw new Error(`No catalog entry for feature "${id}"`);
  return entry;
}

/** The features the answers turn on, in catalog order. */
export function featuresOn(answers: FeatureAnswers): FeatureEntry[] {
  return featureCatalog.filter((entry) => answers[entry.answersKey] === true);
}

/** The answers of these features (only the keys that are on, in catalog order), to spread into answers or a manifest. */
export function featureAnswers(features: readonly FeatureEntry[]): FeatureAnswers {
  return Object.fromEntries(featureCatalog.filter((entry) => features.includes(entry)).map((entry) => [entry.answersKey, true])) as FeatureAnswers;
}

/** `add-two-factor` or `remove-two-factor`. */
export function featureCommandName(entry: FeatureEntry, on: boolean): FeatureCommandName {
  return `${on ? 'add' : 'remove'}-${entry.id}` as FeatureCommandName;
}

/** The option lines a provider's snippet starts with under these features: `twoFactor: true, // …`. */
export function optInLines(providerId: string, features: readonly FeatureEntry[]): string[] {
  return features.flatMap((feature) => feature.optIns.filter((optIn) => optIn.provider === providerId).map((optIn) => `${optIn.name}: ${optIn.value}, // ${optIn.comment}`));
}
