// The declarations of oidc-provider moved beside the dev IdP that ships in the CLI (src/dev-idp/); this reference
// keeps configs that list this file (bench/tsconfig.build.json) working.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- an ambient module file has no import form
/// <reference path="../../src/dev-idp/oidc-provider-module.d.ts" />
