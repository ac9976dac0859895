import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import { adapterIds } from '../catalog/adapters.js';
import { defaultMountPath } from '../catalog/mount-path.js';
import { isPackageManager, packageManagers } from '../catalog/package-managers.js';
import type { PackageManager } from '../catalog/package-managers.js';
import { describeProviderIds } from '../catalog/providers.js';
import { featureAnswers, featureCatalog, featuresOn } from '../catalog/features.js';
import type { FeatureAnswers } from '../catalog/features.js';
import { releaseFrom } from '../generator/release.js';
import { readProjectAdapter } from '../generator/project/adapter.js';
import { checkFeaturesFit, checkProvidersFitAdapter, parseAdapter, parseMountPath, parseProviderList } from '../generator/answers.js';
import type { Answers } from '../generator/answers.js';
import { usageError } from '../generator/errors.js';
import { generateSecret } from '../generator/edit/secret.js';
import type { CliIo } from './io.js';
import { applyPlan } from './apply-plan.js';
import { requireTypeScript } from './project.js';
import { projectHasCode } from '../generator/project/files.js';
import { messageIo } from './json-output.js';
import { countFiles, summariseFiles } from './plan-report.js';
import { cliVersion } from '../generator/version.js';
import { requireEsmNodeProblem } from './node-version.js';

/** Flags of `create-framework-auth`, as commander parses them; each catalog feature's flag by its answers key (`twoFactor`). */
export type CreateFlags = FeatureAnswers & {
  providers?: string;
  mount?: string;
  adapter?: string;
  yes?: boolean;
  install: boolean;
  packageManager?: string;
  dryRun?: boolean;
  force?: boolean;
  convertEsm?: boolean;
  json?: boolean;
}

const examples = `
Examples:
  $ npx create-framework-auth                      ask, then scaffold into the current project
  $ npx create-framework-auth my-app --yes         new project with the defaults (oidc, /auth, no database)
  $ npx create-framework-auth . --providers oidc,microblog --mount /api/auth --adapter none
  $ npx create-framework-auth my-app --yes --dry-run     show the files it would write, write nothing
  $ npx create-framework-auth . --yes --adapter sqlite   database sessions in ./data/auth.db (then: npx framework-auth migrate)
  $ npx create-framework-auth . --yes --providers password --adapter sqlite --two-factor   email and password accounts with TOTP
  $ npx create-framework-auth my-app --yes --no-install --package-manager pnpm
  $ npx create-framework-auth . --yes --convert-esm   a CommonJS app: switch it to ESM (lists the files you change)
  $ npx create-framework-auth my-app --yes --json   one JSON document on stdout (files, dependencies, env keys, callback URLs)
`;

/** Parses `--package-manager`. */
export function parsePackageManager(value: string): PackageManager {
  if (!isPackageManager(value)) {
    throw usageError(`Unknown package manager "${value}" in --package-manager. Valid: ${packageManagers.join(', ')}`);
  }
  return value;
}

/** Scaffolds the auth module into `dir`: flags and questions, plan, atomic write, install, next steps. */
export async function runCreate(dir: string, flags: CreateFlags, io: CliIo): Promise<void> {
  // Every flag is checked before anything else, so bad input leaves the directory untouched (exit 2).
  const known: Partial<Answers> = {};
  if (flags.providers !== undefined) known.providers = parseProviderList(flags.providers);
  if (flags.mount !== undefined) known.mount = parseMountPath(flags.mount);
  if (flags.adapter !== undefined) known.adapter = parseAdapter(flags.adapter);
  for (const entry of featureCatalog) if (flags[entry.answersKey] === true) known[entry.answersKey] = true;
  const pmFlag = flags.packageManager === undefined ? undefined : parsePackageManager(flags.packageManager);
  if (known.providers && known.adapter) checkProvidersFitAdapter({ providers: known.providers, adapter: known.adapter });
  if (known.providers && known.adapter) checkFeaturesFit({ ...known, providers: known.providers, adapter: known.adapter });
  const root = resolve(io.cwd, dir);
  const json = flags.json === true;
  const release = releaseFrom(io.env);

  // Loaded on use: clack, execa, handlebars and jsonc-parser cost more start-up time than the rest of the CLI, and
  // `--version`, `--help` and `secret --raw` need none of them (issue 8).
  const [{ createUi, confirmWrite }, { askAnswers }, { planCreate }, { detectPackageManager }, { readProject }, { compilesToCommonJs }] = await Promise.all([
    import('./ui.js'),
    import('../prompts/ask-answers.js'),
    import('../generator/plan/create.js'),
    import('../generator/io/install.js'),
    import('../generator/project/snapshot.js'),
    import('../generator/project/shape.js'),
  ]);
  // Read once, before anything is asked: a manifest that cannot be read is bad input, reported before any question.
  let project = readProject(root);
  // TypeScript compiled to CommonJS loads jose and oauth4webapi through require(esm): an older Node is told which
  // one to install before any question or write (issue 36).
  if (flags.convertEsm !== true && compilesToCommonJs(project.shape)) {
    const problem = requireEsmNodeProblem(io.nodeVersion ?? process.versions.node);
    if (problem) throw usageError(`${problem.message} Nothing was written.`, problem.fix);
  }
  const previousManifest = project.manifest;
  const ui = createUi(messageIo(io, json));
  ui.intro(`create-framework-auth ${cliVersion}`);
  // A re-run keeps the project's database unless --adapter says otherwise.
  const currentAdapter = existsSync(root) ? readProjectAdapter(root)?.entry?.id : undefined;
  const currentFeatures = previousManifest ? featureAnswers(featuresOn(previousManifest.answers)) : undefined;
  const answers = await askAnswers(known, {
    input: io.stdin,
    output: json ? io.stderr : io.stdout,
    interactive: io.interactive,
    yes: flags.yes === true,
    currentAdapter,
    currentFeatures,
  });
  checkProvidersFitAdapter(answers);
  checkFeaturesFit(answers);
  const { pm, source } = detectPackageManager(root, pmFlag, io.env);
  // An existing project's code is read with the TypeScript parser (its own compiler, else one fetched once); a new
  // project is planned without it.
  if (existsSync(root) && projectHasCode(root)) {
    await requireTypeScript(root, io);
    // The shape of a project with a tsconfig is read with the compiler: read again when it had to be fetched.
    if (project.typescript() === undefined) project = readProject(root);
  }
  const plan = await ui.step(
    'Planning the auth module',
    async () =>
      planCreate({
        project,
        cwd: io.cwd,
        answers,
        force: flags.force === true,
        release,
        packageManager: pm,
        packageManagerSource: source,
        install: flags.install,
        convertEsm: flags.convertEsm === true,
        secret: generateSecret(),
      }),
    (result) => `Planned ${countFiles(result.files)} files: ${summariseFiles(result.files)}`,
  );
  // Interactive without --yes: the plan is shown and confirmed before the first write.
  const confirm = io.interactive && flags.yes !== true && !flags.dryRun ? (question: string) => confirmWrite(question, io, json) : undefined;
  await applyPlan(plan, ui, io, { dryRun: flags.dryRun === true, json, ...(confirm ? { confirm } : {}) });
}

/** The `create-framework-auth` program. */
export function createCreateCommand(io: CliIo, run: (action: () => Promise<void>) => Promise<void>): Command {
  const command = new Command('create-framework-auth')
    .description('Scaffold a complete authentication module (OAuth 2 / OpenID Connect, credentials, sessions) into an Express project.')
    .argument('[dir]', 'project directory; created when missing, extended when it exists', '.')
    .option('--providers <ids>', `comma list of providers: ${describeProviderIds()}`)
    .option('--mount <path>', `mount path of the auth routes (default ${defaultMountPath}; starts with "/", no trailing "/" or wildcard)`)
    .addOption(new Option('--adapter <name>', `session storage: ${adapterIds.join(', ')} (default none: JWT sessions)`));
  // Each catalog feature's flag, after --adapter (its answers key is what commander makes of it: --two-factor, twoFactor).
  for (const entry of featureCatalog) command.option(entry.flag.name, entry.flag.description);
  return command
    .option('-y, --yes', 'accept the default of every unanswered question; never prompt')
    .option('--no-install', 'write the files only; print the install command')
    .option('--package-manager <pm>', `${packageManagers.join(', ')} (default: detected from packageManager, lockfile, user agent)`)
    .option('--dry-run', 'print the plan (files created/changed, dependencies) and write nothing')
    .option('--force', 'overwrite generated files that differ from what this version writes')
    .option('--convert-esm', 'switch a CommonJS project to ESM (package.json "type", tsconfig module); lists the files to change, never rewrites them')
    .option('--json', 'print one JSON document on stdout (messages go to stderr)')
    .addHelpText('after', examples)
    .action((dir: string, flags: CreateFlags) => run(() => runCreate(dir, flags, io)));
}
