import { defaultMountPath } from '../../catalog/mount-path.js';
import { providerCatalog } from '../../catalog/providers.js';
import { twoFactorEntry } from '../../catalog/two-factor.js';
import { addFeatureToConfig, normaliseModule, readAuthConfig, removeFeatureFromConfig } from '../edit/provider-list.js';
import { usageError } from '../errors.js';
import { planConfigEdit } from './plan.js';
import type { AddProviderPlanInput } from './add-provider.js';
import type { Plan } from './plan.js';

/** Inputs of {@link planTwoFactor}: a scaffolded project, and whether two-factor is turned on or off. */
export type TwoFactorPlanInput = Omit<AddProviderPlanInput, 'entry'> & { on: boolean };

/**
 * `framework-auth add-two-factor` and `remove-two-factor`: `TwoFactor()` in the config's `features` and its import
 * (an AST edit), the feature's runtime files, its dependency (the QR code library), and the manifest's answers. Adding
 * is refused without an adapter or a provider that signs in with a password; removing deletes the files only the
 * feature used (when unchanged) and the dependency the CLI added for it. Running either again changes nothing.
 */
export function planTwoFactor(input: TwoFactorPlanInput): Plan {
  const { project, authDir, configText, api, on } = input;
  const { root } = project;
  const configPath = `${authDir}/config.ts`;
  const command = on ? 'add-two-factor' : 'remove-two-factor';
  const info = readAuthConfig(api, configText, configPath);
  const providers = info.providerModules;
  const asking = providerCatalog.filter((entry) => twoFactorEntry.providers.includes(entry.id) && providers.includes(normaliseModule(entry.importPath))).map((entry) => entry.id);
  if (on && !info.hasAdapter) {
    throw usageError(
      `Two-factor needs a database adapter, and ${configPath} sets none: TOTP secrets, recovery codes and pending sign-ins are stored through the adapter.`,
      `Re-run "npx create-framework-auth" with --adapter memory, sqlite or postgres first, or set \`adapter:\` in ${configPath}.`,
    );
  }
  if (on && asking.length === 0) {
    throw usageError(
      `Two-factor asks for a code after a password, and ${configPath} has no provider that signs in with one.`,
      'Add one first: npx framework-auth add-provider password',
    );
  }
  const edit = on ? addFeatureToConfig(api, configText, twoFactorEntry, configPath) : removeFeatureFromConfig(api, configText, twoFactorEntry.importPath, configPath);
  const change = on ? `adds ${twoFactorEntry.importName}() to the features` : `removes ${twoFactorEntry.importName}() from the features`;
  const { files, notes, added, removed } = planConfigEdit(input, edit, change, { mount: info.basePath ?? defaultMountPath });

  const optIn = on && asking.includes('credentials') && edit.changed;
  const addedNames = Object.keys(added);
  return {
    command,
    root,
    files,
    mergeFiles: new Map(),
    dependencies: { added, removed },
    env: { added: [], removed: [], fill: [], kept: [] },
    callbackUrls: [],
    notes,
    install: on && input.install && addedNames.length > 0 ? { ...input.install, dependencies: addedNames } : undefined,
    messages: {
      written: (paths) => `Updated ${paths.join(', ')}`,
      nothingToWrite: on ? `Two-factor is already in ${configPath}; nothing changed.` : `Two-factor is not in ${configPath}; nothing to remove.`,
      after: [
        ...(!on && removed.length > 0 ? [`Run your package manager's install (e.g. npm install) to drop ${removed.join(', ')} from the lockfile and node_modules.`] : []),
        ...(!on && edit.changed ? ['The two_factor and recovery_codes tables keep their rows; nothing reads them any more.'] : []),
      ],
      nextSteps: on
        ? [
            `Signed-in users turn it on at ${info.basePath ?? defaultMountPath}/two-factor; after that, signing in with their password asks for a code.`,
            ...(optIn ? [`Credentials users are asked only when you add \`twoFactor: true\` to Credentials({ … }) in ${configPath}.`] : []),
            'With sqlite or postgres, create its tables now or let the first start do it: npx framework-auth migrate',
          ].join('\n')
        : '',
      outro: { changed: on ? 'Two-factor added.' : 'Two-factor removed.', unchanged: on ? 'Already configured.' : 'Nothing to remove.' },
    },
    details: { twoFactor: on },
  };
}
