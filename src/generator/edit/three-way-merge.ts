import { diffComm, mergeDiff3 } from 'node-diff3';

/** The result of a merge: the text, and whether it holds conflict markers. */
export interface MergeResult {
  clean: boolean;
  content: string;
}

/** How the sides are named in conflict markers. */
export interface MergeLabels {
  ours: string;
  base: string;
  theirs: string;
}

/**
 * A 3-way merge by lines (diff3, node-diff3): `ours` (the user's file), `base` (what the CLI wrote, before the
 * user's edits) and `theirs` (what this version renders). Changes on one side only are taken; the same change on
 * both sides is taken once; different changes to the same lines are a conflict, written git's diff3 way
 * (`<<<<<<<`, `|||||||`, `=======`, `>>>>>>>`).
 */
export function mergeThreeWay(ours: string, base: string, theirs: string, labels: MergeLabels): MergeResult {
  const result = mergeDiff3(ours.split('\n'), base.split('\n'), theirs.split('\n'), {
    excludeFalseConflicts: true,
    label: { a: labels.ours, o: labels.base, b: labels.theirs },
  });
  return { clean: !result.conflict, content: result.result.join('\n') };
}

/**
 * Two texts with conflict markers around every difference, for a file whose base is unknown (no manifest entry):
 * nothing can be decided, so the user sees both sides.
 */
export function markDifferences(ours: string, theirs: string, labels: Pick<MergeLabels, 'ours' | 'theirs'>): string {
  const lines: string[] = [];
  for (const part of diffComm(ours.split('\n'), theirs.split('\n'))) {
    if (part.common) lines.push(...part.common);
    else lines.push(`<<<<<<< ${labels.ours}`, ...part.buffer1, '=======', ...part.buffer2, `>>>>>>> ${labels.theirs}`);
  }
  return lines.join('\n');
}
