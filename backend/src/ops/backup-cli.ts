#!/usr/bin/env node
/** `npm run backup -- --to DIR` (see backup-command.ts). */
import { main } from './bin-io';
import { runBackup } from './backup-command';

main(runBackup);
