#!/usr/bin/env node
/** `npm run keys -- export --to FILE | import FILE` (see keys-command.ts). */
import { main } from './bin-io';
import { runKeys } from './keys-command';

main(runKeys);
