/** Whether a script module was run directly (`tsx scripts/<name>.ts`) rather than imported by a test. */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Pass the module's `import.meta.url`. */
export function isRunDirectly(moduleUrl: string): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(moduleUrl));
  } catch {
    return false;
  }
}
