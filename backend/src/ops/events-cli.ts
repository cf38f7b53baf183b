#!/usr/bin/env node
/** `npm run events -- tail | export | import` (see events-command.ts). */
import { main } from './bin-io';
import { runEvents } from './events-command';

main(runEvents);
