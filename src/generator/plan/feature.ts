import { featureCatalog, featureCommandName, featuresNeeding, missingNeededFeatures, optInSharedBy, whyNeeded } from '../../catalog/features.js';
import type { FeatureEntry, ProviderOptIn } from '../../catalog/features.js';
import { defaultMountPath } from '../../catalog/mount-path.js';
import { getProvider, providerCatalog } from '../../catalog/providers.js';
import type { ProviderId } from '../../catalog/providers.js';
import { addFeatureToConfig, normaliseModule, readAuthConfig, removeFeatureFromConfig, removeProviderOption, setProviderOption } from '../edit/provider-list.js';
import { Refusal, usageError } from '../errors.js';
import { authConfigIn } from '../project/snapshot.js';
import { envKeyChanges, planConfigEdit } from './plan.js';
import type { AddProviderPlanInput } from './add-provider.js';
import type { Plan } from './plan.js';

/** Inputs of {@link planFeature}: a scaffolded project, the catalog feature, and whether it is turned on or off. */
export type FeaturePlanInput = Omit<AddProviderPlanInput, 'entry'> & {
  feature: FeatureEntry;
  on: boolean;
  /** `remove-<id> --purge-env`: also remove the feature's env keys (and values) from `.env`. */
  purgeEnv?: boolean;
};

/** A provider's opt-in as the command set or took it out (`written`), or left for the user (`reason`). */
interface OptInEdit {
  optIn: ProviderOptIn;
  /** The provider's factory (`Credentials`). */
  factory: string;
  written: boolean;
  reason?: string;
}

/**
 * `framework-auth add-<feature>` and `remove-<feature>` (add-two-factor, remove-two-factor): the feature's element
 * in the config's `features` and its import (an AST edit), the opt-in of the providers that take part only when told
 * (`twoFactor: true` in Credentials({ … })), the feature's runtime files, what it adds to src/auth/index.ts and the
 * starter server (merged with the user's changes), its dependencies, and the manifest's answers. Adding is refused
 * without what the feature needs (an adapter, one of its providers); removing deletes the files only the feature used
 * (when unchanged) and the dependencies the CLI added for it. Running either again changes nothing.
 */
export function planFeature(input: FeaturePlanInput): Plan {
  const { project, api, feature, on } = input;
  const { root } = project;
  const { path: configPath, text: configText } = authConfigIn(project);
  const { label, needs } = feature;
  const info = readAuthConfig(api, configText, configPath);
  const neededIds: readonly ProviderId[] = needs.providers?.ids ?? [];
  const present = providerCatalog.filter((entry) => neededIds.includes(entry.id) && info.providerModules.includes(normaliseModule(entry.importPath))).map((entry) => entry.id);
  if (on && needs.adapter && !info.hasAdapter) {
    throw usageError(
      `${label} needs a database adapter, and ${configPath} sets none: ${needs.adapter.stored} are stored through the adapter.`,
      `Re-run "npx create-framework-auth" with --adapter memory, sqlite or postgres first, or set \`adapter:\` in ${configPath}.`,
    );
  }
  if (on && needs.providers && present.length === 0) {
    throw usageError(`${label} ${needs.providers.why}, and ${configPath} has no provider that ${needs.providers.does}.`, `Add one first: npx framework-auth add-provider ${needs.providers.suggested}`);
  }
  const catalog: readonly FeatureEntry[] = featureCatalog;
  // The features it works beside come first; one that another feature works beside stays while that one is there.
  const configured = catalog.filter((entry) => info.featureModules.includes(normaliseModule(entry.importPath)));
  const [missing] = on ? missingNeededFeatures(feature, configured) : [];
  if (missing) throw usageError(`${label} ${whyNeeded(feature, missing)}, and ${configPath} does not have ${missing.noun}.`, `Add it first: npx framework-auth ${featureCommandName(missing, true)}`);
  const [needing] = on ? [] : featuresNeeding(feature, configured);
  if (needing) throw usageError(`${needing.label} ${whyNeeded(needing, feature)}, and stays in ${configPath}.`, `Remove ${needing.noun} first: npx framework-auth ${featureCommandName(needing, false)}`);
  // Added where create writes it among the catalog's features, so that the order they are added in does not matter.
  const followers = catalog.slice(catalog.indexOf(feature) + 1).map((entry) => entry.importPath);
  let edit = on ? addFeatureToConfig(api, configText, feature, configPath, followers) : removeFeatureFromConfig(api, configText, feature.importPath, configPath);
  const changes = [on ? `adds ${feature.importName}() to the features` : `removes ${feature.importName}() from the features`];
  // The providers that take part only when told (credentials under two-factor) are told with the feature and untold
  // without it, as create writes them, unless another feature there tells them too (administration brings
  // two-factor); one the editor cannot change safely is left as it is, and the user told what to write.
  const optIns: OptInEdit[] = [];
  if (edit.changed) {
    for (const optIn of feature.optIns.filter((candidate) => present.includes(candidate.provider) && (on || !optInSharedBy(candidate, feature, configured)))) {
      const factory = getProvider(optIn.provider).importName;
      const result = on ? setProviderOption(api, edit.content, optIn, configPath) : removeProviderOption(api, edit.content, optIn, configPath);
      if (result instanceof Refusal) {
        optIns.push({ optIn, factory, written: false, reason: result.message });
      } else if (result.changed) {
        edit = { content: result.content, changed: true };
        changes.push(on ? `sets ${optIn.name}: ${optIn.value} in ${factory}({ … })` : `removes ${optIn.name}: ${optIn.value} from ${factory}({ … })`);
        optIns.push({ optIn, factory, written: true });
      }
    }
  }
  const { files, mergeFiles, notes, added, removed, envKept } = planConfigEdit(input, edit, changes.join('; '), { mount: info.basePath ?? defaultMountPath, purgeEnv: input.purgeEnv === true });
  const envFile = (path: string) => envKeyChanges(files.find((file) => file.path === path));
  // Without a provider that takes part on its own (password), a provider left without its opt-in stops the app.
  const othersTakePart = present.some((id) => !feature.optIns.some((optIn) => optIn.provider === id));
  const optInSteps = optIns.flatMap(({ optIn, factory, written, reason }) => {
    const option = `\`${optIn.name}: ${optIn.value}\``;
    const call = `${factory}({ … })`;
    if (on && written) return [`${factory} users are asked too: ${featureCommandName(feature, true)} set ${option} in ${call} in ${configPath}.`];
    if (on) return [`${factory} users are asked only when you add ${option} to ${call} in ${configPath}; it was left as it is (${reason}).${othersTakePart ? '' : ' Until then the app does not start.'}`];
    return written ? [] : [`Remove ${option} from ${call} in ${configPath}: the app does not start with it and without ${feature.importName}(); it was left as it is (${reason}).`];
  });

  const addedNames = Object.keys(added);
  return {
    command: featureCommandName(feature, on),
    root,
    files,
    mergeFiles,
    dependencies: { added, removed },
    env: {
      added: envFile('.env').added,
      removed: [...new Set([...envFile('.env.example').removed, ...envFile('.env').removed])],
      fill: on ? feature.env.filter((key) => key.required).map((key) => key.name) : [],
      kept: envKept,
    },
    callbackUrls: [],
    notes,
    install: on && input.install && addedNames.length > 0 ? { ...input.install, dependencies: addedNames } : undefined,
    messages: {
      written: (paths) => `Updated ${paths.join(', ')}`,
      nothingToWrite: on ? `${label} is already in ${configPath}; nothing changed.` : `${label} is not in ${configPath}; nothing to remove.`,
      after: [
        ...(!on && removed.length > 0 ? [`Run your package manager's install (e.g. npm install) to drop ${removed.join(', ')} from the lockfile and node_modules.`] : []),
        ...(!on && edit.changed ? feature.afterRemove : []),
        ...(!on ? optInSteps : []),
      ],
      nextSteps: on ? [feature.nextSteps.use(info.basePath ?? defaultMountPath), ...optInSteps, ...(feature.nextSteps.run === undefined ? [] : [feature.nextSteps.run])].join('\n') : '',
      outro: { changed: on ? `${label} added.` : `${label} removed.`, unchanged: on ? 'Already configured.' : 'Nothing to remove.' },
    },
    details: { [feature.answersKey]: on },
  };
}
