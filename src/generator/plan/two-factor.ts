import { defaultMountPath } from '../../catalog/mount-path.js';
import { getProvider, providerCatalog } from '../../catalog/providers.js';
import type { ProviderId } from '../../catalog/providers.js';
import { twoFactorEntry } from '../../catalog/two-factor.js';
import type { ProviderOptIn } from '../../catalog/two-factor.js';
import { addFeatureToConfig, normaliseModule, readAuthConfig, removeFeatureFromConfig, removeProviderOption, setProviderOption } from '../edit/provider-list.js';
import { Refusal, usageError } from '../errors.js';
import { authConfigIn } from '../project/snapshot.js';
import { planConfigEdit } from './plan.js';
import type { AddProviderPlanInput } from './add-provider.js';
import type { Plan } from './plan.js';

/** Inputs of {@link planTwoFactor}: a scaffolded project, and whether two-factor is turned on or off. */
export type TwoFactorPlanInput = Omit<AddProviderPlanInput, 'entry'> & { on: boolean };

/** A provider's opt-in as the command set or took it out (`written`), or left for the user (`reason`). */
interface OptInEdit {
  optIn: ProviderOptIn;
  /** The provider's factory (`Credentials`). */
  factory: string;
  written: boolean;
  reason?: string;
}

/**
 * `framework-auth add-two-factor` and `remove-two-factor`: `TwoFactor()` in the config's `features` and its import
 * (an AST edit), the feature's runtime files, its dependency (the QR code library), and the manifest's answers. Adding
 * is refused without an adapter or a provider that signs in with a password; removing deletes the files only the
 * feature used (when unchanged) and the dependency the CLI added for it. Running either again changes nothing.
 */
export function planTwoFactor(input: TwoFactorPlanInput): Plan {
  const { project, api, on } = input;
  const { root } = project;
  const { path: configPath, text: configText } = authConfigIn(project);
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
  let edit = on ? addFeatureToConfig(api, configText, twoFactorEntry, configPath) : removeFeatureFromConfig(api, configText, twoFactorEntry.importPath, configPath);
  const changes = [on ? `adds ${twoFactorEntry.importName}() to the features` : `removes ${twoFactorEntry.importName}() from the features`];
  // The providers that ask for a code only when told (credentials) are told with the feature and untold without it,
  // as create writes them; one the editor cannot change safely is left as it is, and the user told what to write.
  const optIns: OptInEdit[] = [];
  if (edit.changed) {
    for (const optIn of twoFactorEntry.optIns.filter((candidate) => asking.includes(candidate.provider as ProviderId))) {
      const factory = getProvider(optIn.provider as ProviderId).importName;
      const call = `${factory}({ … })`;
      const result = on ? setProviderOption(api, edit.content, optIn, configPath) : removeProviderOption(api, edit.content, optIn, configPath);
      if (result instanceof Refusal) {
        optIns.push({ optIn, factory, written: false, reason: result.message });
      } else if (result.changed) {
        edit = { content: result.content, changed: true };
        changes.push(on ? `sets ${optIn.name}: ${optIn.value} in ${call}` : `removes ${optIn.name}: ${optIn.value} from ${call}`);
        optIns.push({ optIn, factory, written: true });
      }
    }
  }
  const { files, notes, added, removed } = planConfigEdit(input, edit, changes.join('; '), { mount: info.basePath ?? defaultMountPath });
  // Without a provider that asks on its own (password), a provider left without its opt-in stops the app at startup.
  const othersAsk = asking.some((id) => !twoFactorEntry.optIns.some((optIn) => optIn.provider === id));
  const optInSteps = optIns.map(({ optIn, factory, written, reason }) => {
    const option = `\`${optIn.name}: ${optIn.value}\``;
    const call = `${factory}({ … })`;
    if (on && written) return `${factory} users are asked too: add-two-factor set ${option} in ${call} in ${configPath}.`;
    if (on) return `${factory} users are asked only when you add ${option} to ${call} in ${configPath}; it was left as it is (${reason}).${othersAsk ? '' : ' Until then the app does not start: TwoFactor() needs a provider that asks for a code.'}`;
    return written ? undefined : `Remove ${option} from ${call} in ${configPath}: the app does not start with it and without TwoFactor(); it was left as it is (${reason}).`;
  }).filter((step): step is string => step !== undefined);

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
        ...(!on ? optInSteps : []),
      ],
      nextSteps: on
        ? [
            `Signed-in users turn it on at ${info.basePath ?? defaultMountPath}/two-factor; after that, signing in with their password asks for a code.`,
            ...optInSteps,
            'With sqlite or postgres, create its tables now or let the first start do it: npx framework-auth migrate',
          ].join('\n')
        : '',
      outro: { changed: on ? 'Two-factor added.' : 'Two-factor removed.', unchanged: on ? 'Already configured.' : 'Nothing to remove.' },
    },
    details: { twoFactor: on },
  };
}
