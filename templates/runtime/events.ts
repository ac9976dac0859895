/** Events: side effects after something happened. A failing handler is logged, never shown to the user. */
import type { ResolvedConfig } from './contracts.js';
import { EventError } from './errors.js';

/** Runs an event handler; its failure is logged, never raised. */
export async function emitEvent<Name extends keyof NonNullable<ResolvedConfig['events']>>(
  options: ResolvedConfig,
  name: Name,
  message: Parameters<NonNullable<ResolvedConfig['events'][Name]>>[0],
): Promise<void> {
  const handler = options.events[name] as ((message: unknown) => unknown) | undefined;
  if (!handler) return;
  try {
    await handler(message);
  } catch (error) {
    options.logger.error(new EventError(`events.${String(name)} failed`, { cause: error instanceof Error ? error : undefined }));
  }
}
