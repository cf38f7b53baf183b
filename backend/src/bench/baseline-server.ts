import Database from 'better-sqlite3';
import express from 'express';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';

/**
 * The bare-minimum baselines the benchmark compares Joy with, on the same stack (Node, Express,
 * better-sqlite3 with the event store's durability settings):
 * - POST /insert: one SQLite insert of a JSON row, then 201;
 * - GET /doc: returns one in-memory document;
 * - GET /doc0, /doc1...: return in memory the documents the parent sends (`{ documents }`, JSON texts): the very
 *   answers of Joy's reads, so that each read is compared with the least work that gives the same answer.
 * Started by run.ts as `node dist/bench/baseline-server.js <port> <dir>`.
 */
const [port, dir] = process.argv.slice(2);
const db = new Database(join(dir, 'baseline.sqlite'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec('CREATE TABLE IF NOT EXISTS rows (position INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, data TEXT NOT NULL)');
const insert = db.prepare('INSERT INTO rows (id, data) VALUES (?, ?)');
const doc = { id: randomUUID(), createdAt: new Date().toISOString(), overallScore: 3.6, relationships: 4, health: 3, purpose: 5, growth: 2, joy: 4 };

const app = express();
app.use(express.json());
app.post('/insert', (req, res) => {
  const id = randomUUID();
  insert.run(id, JSON.stringify(req.body));
  res.status(201).json({ id, ...req.body });
});
app.get('/doc', (_req, res) => {
  res.json(doc);
});
process.on('message', (message: { documents?: string[] }) => {
  if (!message.documents) return;
  message.documents.forEach((json, i) => {
    const document = JSON.parse(json) as unknown;
    app.get(`/doc${i}`, (_req, res) => {
      res.json(document);
    });
  });
  process.send?.('documents');
});
app.listen(Number(port), '127.0.0.1', () => process.send?.('ready'));
