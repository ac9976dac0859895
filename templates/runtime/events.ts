import type { Request } from 'express';
import type { EventCallbacks, ResolvedConfig, SecurityEventInput } from './contracts.js';
import { EventError } from './errors.js';

/** Runs an event handler; its failure is logged, never raised. */
export async function emitEvent<Name extends keyof EventCallbacks>(options: ResolvedConfig, name: Name, message: Parameters<EventCallbacks[Name]>[0]): Promise<void> {
  const handler = options.events[name] as ((message: unknown) => unknown) | undefined;
  if (!handler) return;
  try {
    await handler(message);
  } catch (error) {
    options.logger.error(new EventError(`events.${String(name)} failed`, { cause: error instanceof Error ? error : undefined }));
  }
}

/** Records a security event of a user when the app keeps them (features/security-events/); never fails. */
export async function recordSecurityEvent(context: { req?: Request | undefined; options: ResolvedConfig }, input: SecurityEventInput): Promise<void> {
  for (const recorder of context.options.securityEvents) await recorder.record(context, input);
}
