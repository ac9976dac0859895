import { base32Decode, totpCode, totpStep } from '../../../templates/runtime/features/two-factor/totp.js';

/** Codes of an authenticator app, each of a later time step than the one before (a step is accepted once). */
export function authenticator(secret: string): { next(): string } {
  let last = Number.NEGATIVE_INFINITY;
  return {
    next() {
      const step = Math.max(totpStep(Date.now()), last + 1);
      if (step > totpStep(Date.now()) + 1) throw new Error('no unused step left in the window');
      last = step;
      return totpCode(base32Decode(secret), step);
    },
  };
}
