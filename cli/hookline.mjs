#!/usr/bin/env node
// `npx hookline`: the operator CLI. It runs from the TypeScript sources through tsx, the same
// way `npm start` runs the local runtime, so the CLI and the handlers never drift apart.
import { register } from 'tsx/esm/api';

if (Number(process.versions.node.split('.')[0]) < 22) {
  console.error(`hookline needs Node.js 22 or later (this is ${process.version}); run it with npx from the project, which uses the project's Node.`);
  process.exit(1);
}
register();
const { main } = await import('./main.ts');
process.exitCode = await main(process.argv);
