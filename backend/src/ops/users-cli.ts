#!/usr/bin/env node
/** `npm run users -- reset-password <email> | grant-premium <email>` (see users-command.ts). */
import { main } from './bin-io';
import { runUsers } from './users-command';

main(runUsers);
