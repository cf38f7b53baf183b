#!/usr/bin/env node
/** `npm run events -- tail --from <position> [--type T] [--follow] [--checkpoint FILE]` (see events-command.ts). */
import { main } from './bin-io';
import { runEvents } from './events-command';

main(runEvents);
