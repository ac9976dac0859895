#!/usr/bin/env node
import { checkNodeVersion } from '../dist/cli/node-version.js';

// Checked before the CLI is loaded, so that an old Node gets one line instead of a stack trace.
checkNodeVersion('create-framework-auth');
const { main } = await import('../dist/cli/main.js');
await main('create-framework-auth');
