#!/usr/bin/env node
/** `npm run projections -- status | rebuild <name>` (see projections-command.ts). */
import { main } from './bin-io';
import { runProjections } from './projections-command';

main((argv, io) => runProjections(argv, io));
