#!/usr/bin/env node
// The package's `bin`: the launcher is the repository's scripts/cli.mjs (the resolve hook and Node's io),
// which the root package's `bin` and `npm run cli` run too.
import "../../../scripts/cli.mjs";
