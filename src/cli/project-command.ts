import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { usageError } from '../generator/errors.js';
import { releaseFrom } from '../generator/release.js';
import type { Release } from '../generator/release.js';
import type { ProjectSnapshot } from '../generator/project/snapshot.js';
import type { ApplyOptions } from './apply-plan.js';
import type { CliIo } from './io.js';
import { messageIo } from './json-output.js';
import { openScaffoldedProject } from './project.js';
import type { ScaffoldedProject } from './project.js';
import type { Ui } from './ui.js';

/** The flags every command that plans changes to a scaffolded project has: `--cwd`, `--dry-run`, `--json`. */
export interface ProjectCommandFlags {
  cwd?: string;
  dryRun?: boolean;
  json?: boolean;
}

/**
 * A `framework-auth` subcommand that plans changes to a project: `--cwd` first, then the command's own options
 * (`options`), then `--dry-run` and `--json`, as every such command lists them.
 */
export function projectCommand(name: string, description: string, options: (command: Command) => Command = (command) => command): Command {
  const command = new Command(name).description(description).option('--cwd <dir>', 'project directory (default: the current directory)');
  return options(command).option('--dry-run', 'print the plan and write nothing').option('--json', 'print one JSON document on stdout (messages go to stderr)');
}

/** A project command's project, opened and read once, and what it plans and applies with. */
export interface ProjectCommandContext<Project extends ScaffoldedProject = ScaffoldedProject> {
  /** The project directory (`--cwd`, resolved). */
  root: string;
  /** What the command opened beside the snapshot (the compiler). */
  opened: Project;
  /** The project as `readProject` read it, once (its manifest, auth module and config included): the planners read nothing else. */
  project: ProjectSnapshot;
  release: Release;
  ui: Ui;
  /** `--dry-run` and `--json`, for `applyPlan`. */
  apply: ApplyOptions;
}

/** How a project command opens its project and introduces itself (see {@link openProjectCommand}). */
export interface ProjectCommandStart<Project extends ScaffoldedProject> {
  /** Opens the project read (default: a scaffolded project, its manifest optional); refusals here are bad input. */
  open?: (project: ProjectSnapshot, io: CliIo) => Promise<Project>;
  /** The first line printed (`framework-auth add-provider github`). */
  intro: (opened: Project, project: ProjectSnapshot) => string;
}

/**
 * The glue every project command shares, up to its plan: resolves `--cwd`, reads the project once (a manifest that
 * cannot be read is bad input), opens it, and prints the intro (on stderr under `--json`). The command then plans
 * and hands the plan to `applyPlan` with `apply`.
 */
export async function openProjectCommand<Project extends ScaffoldedProject = ScaffoldedProject>(flags: ProjectCommandFlags, io: CliIo, start: ProjectCommandStart<Project>): Promise<ProjectCommandContext<Project>> {
  const root = resolve(io.cwd, flags.cwd ?? '.');
  const json = flags.json === true;
  if (!existsSync(root) || !statSync(root).isDirectory()) throw usageError(`--cwd ${root} is not a directory`);
  // Loaded on use: clack and the generator cost start-up time that `--version` and `--help` do without (issue 8).
  const [{ createUi }, { readProject }] = await Promise.all([import('./ui.js'), import('../generator/project/snapshot.js')]);
  let project = readProject(root);
  const opened = start.open ? await start.open(project, io) : ((await openScaffoldedProject(project, io)) as Project);
  // The shape of a project with a tsconfig is read with the compiler: read again when opening had to fetch it.
  if (project.typescript() === undefined) project = readProject(root);
  const ui = createUi(messageIo(io, json));
  ui.intro(start.intro(opened, project));
  return { root, opened, project, release: releaseFrom(io.env), ui, apply: { dryRun: flags.dryRun === true, json } };
}
