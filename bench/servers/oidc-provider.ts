/**
 * The loopback OpenID provider of the tests (oidc-provider, a certified implementation) in its own process, so
 * that neither app nor load generator shares its event loop. Clients are registered over IPC once the apps' ports
 * (hence their redirect URIs) are known.
 */
import { startOidcProvider } from '../../test/support/oidc-provider.js';
import type { OidcTestClient } from '../../test/support/oidc-provider.js';
import { handleMessages } from './child.js';

const provider = await startOidcProvider();
handleMessages({
  setClient: async (client: OidcTestClient) => {
    await provider.setClient(client);
    return true;
  },
});
process.send?.({ type: 'listening', port: provider.port, info: { issuer: provider.issuer } });
