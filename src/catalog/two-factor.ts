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
} as const;
