import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { EventStore, RecordedEvent } from '../event-store/event-store.port';

/** The published event contract: docs/events/schemas/<Type>.v<version>.json and metadata.json. */
export const CONTRACT_DIR = resolve(__dirname, '..', '..', '..', 'docs', 'events', 'schemas');

let validators: { metadata: ValidateFunction; data: Map<string, ValidateFunction> } | null = null;

function load() {
  if (validators) return validators;
  const ajv = new Ajv2020({ allErrors: true, strict: true, multipleOfPrecision: 9 });
  addFormats(ajv);
  const read = (file: string) => JSON.parse(readFileSync(join(CONTRACT_DIR, file), 'utf8'));
  const data = new Map<string, ValidateFunction>();
  for (const file of readdirSync(CONTRACT_DIR)) {
    const match = /^(\w+)\.v(\d+)\.json$/.exec(file);
    if (match) data.set(`${match[1]}.v${match[2]}`, ajv.compile(read(file)));
  }
  validators = { metadata: ajv.compile(read('metadata.json')), data };
  return validators;
}

/** Problems of one event against the contract ([] when it conforms). */
export function contractViolations(event: Pick<RecordedEvent, 'type' | 'data' | 'metadata' | 'position'>): string[] {
  const { metadata, data } = load();
  const problems: string[] = [];
  const where = `${event.type} at position ${event.position}`;
  if (!metadata(event.metadata)) problems.push(`${where}: metadata ${JSON.stringify(metadata.errors)}`);
  const key = `${event.type}.v${event.metadata?.schemaVersion}`;
  const validate = data.get(key);
  if (!validate) problems.push(`${where}: no schema ${key}.json in docs/events/schemas`);
  else if (!validate(event.data)) problems.push(`${where}: data ${JSON.stringify(validate.errors)}`);
  return problems;
}

/** Reads every event of a store and throws when one does not match the published contract. */
export async function assertEventsMatchContract(store: EventStore): Promise<number> {
  const problems: string[] = [];
  let from = 0;
  let count = 0;
  for (;;) {
    const page = await store.readAll({ from, limit: 1000 });
    if (page.length === 0) break;
    for (const event of page) problems.push(...contractViolations(event));
    count += page.length;
    from = page[page.length - 1].position;
  }
  if (problems.length) throw new Error(`Events break the contract in docs/events:\n${problems.slice(0, 20).join('\n')}`);
  return count;
}
