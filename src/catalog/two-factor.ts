/**
 * Two-factor authentication as the CLI writes it (`--two-factor`, `framework-auth add-two-factor`): the runtime
 * feature `TwoFactor()` in the config's `features`, what it needs and what it brings. Said here once; the planners
 * read it.
 */
export const twoFactorEntry = {
  name: 'Two-factor authentication (TOTP)',
  /** The named export of the feature's module, imported by that name in `src/auth/config.ts`. */
  importName: 'TwoFactor',
  /** The feature's module, relative to `src/auth/config.ts`. */
  importPath: './core/features/two-factor/index.js',
  /** The element written into `features: [...]`. */
  snippet: 'TwoFactor()',
  /** The runtime file the config imports (below `templates/runtime/`): the feature's folder follows by its imports. */
  runtimeEntry: 'features/two-factor/index.ts',
  /** npm dependencies it brings: the QR code of the enrollment page. */
  dependencies: { uqr: '^0.1.3' } as Readonly<Record<string, string>>,
  /** The providers whose sign-in it follows with a code: a password is the first factor. */
  providers: ['password', 'credentials'] as readonly string[],
  /**
   * The providers that ask for a code only when told, and how: `twoFactor: true` in `Credentials({ … })`, as its
   * `authorize()` may check a second factor of its own. create writes it in the provider's snippet, add-two-factor
   * sets it in the user's call and remove-two-factor takes it out (the runtime refuses to start with it and without
   * `TwoFactor()`).
   */
  optIns: [{ provider: 'credentials', importPath: './core/providers/credentials.js', name: 'twoFactor', value: 'true', comment: 'users who turned two-factor on enter a code after authorize()' }] as readonly ProviderOptIn[],
} as const;

/** An option a feature sets in a provider's options object so that the provider takes part (see `optIns`). */
export interface ProviderOptIn {
  /** The provider's catalog id. */
  readonly provider: string;
  /** The provider factory's module, relative to `src/auth/config.ts`. */
  readonly importPath: string;
  /** The option's name and value (as code), and the comment after it. */
  readonly name: string;
  readonly value: string;
  readonly comment: string;
}
