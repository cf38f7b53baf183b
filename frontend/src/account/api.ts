import type { ImportResultView } from '@joy/domain';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiJson, apiRequest, isUnauthorizedError } from '../api';
import { fieldErrorsOf, parseApiError } from '../lib/apiError';
import { browser } from '../lib/session';
import { toast } from '../lib/toast';

/** The export downloads (the server answers the file with Content-Disposition: attachment). */
export const EXPORT_URLS = {
  json: '/api/account/export?format=json',
  csv: '/api/account/export?format=csv',
} as const;

/** The word the person types to confirm; the server checks it too. */
export const CONFIRMATION_WORD = 'DELETE';

/**
 * What the dialog says once the account is deleted. It stays until the person leaves for the landing page (a
 * button, or closing the dialog): a toast that left after a second or so was gone before it could be read.
 */
export const ACCOUNT_DELETED = {
  title: 'Account deleted',
  text: 'Your personal data has been erased. Goodbye, and take care.',
  leave: 'Go to the home page',
} as const;

export const ACCOUNT_TOASTS = {
  deleteFailed: { title: 'Error', description: 'Failed to delete your account. Please try again.', variant: 'destructive' },
} as const;

export function isConfirmation(text: string): boolean {
  return text.trim() === CONFIRMATION_WORD;
}

/**
 * DELETE /api/account { confirm: 'DELETE' }. On success the session is gone: nothing is read again (the cached
 * reads stay until the person leaves, or a page behind the dialog would ask again, get 401 and send them to sign
 * in), and `leaveAfterDeletion` goes to the landing page with a full load, which forgets them.
 */
export function useDeleteAccount() {
  return useMutation<void, Error, void>({
    mutationFn: async () => {
      await apiRequest('DELETE', '/api/account', { confirm: CONFIRMATION_WORD });
    },
    onError: (error) => {
      if (isUnauthorizedError(error)) return;
      toast(ACCOUNT_TOASTS.deleteFailed);
    },
  });
}

/** To the landing page, signed out, with nothing of the deleted account left in memory. */
export function leaveAfterDeletion(): void {
  browser.navigate('/');
}

// ---- import ---------------------------------------------------------------------------------------------

/** The server takes an import body up to 5 MB (backend http/edge.ts IMPORT_LIMIT); larger files are refused here first. */
export const IMPORT_MAX_BYTES = 5 * 1024 * 1024;

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "12 ratings imported, 3 already here" (and "1 rating imported, 1 already here"). */
export function importResultText({ imported, skipped }: ImportResultView): string {
  return `${count(imported, 'rating', 'ratings')} imported, ${skipped} already here`;
}

export const IMPORT_MESSAGES = {
  notJson: 'The file is not a Joy export: choose the JSON file that "Download JSON" in Account saves.',
  csv: 'This is the CSV export, which is for spreadsheets: import the JSON file that "Download JSON" in Account saves.',
  tooLarge: 'This file is larger than 5 MB, more than an export of ratings holds.',
  unreadable: 'The file could not be read. Please try again.',
  failed: 'Part of the file may have been imported. Please try again: a rating imported before is skipped, so nothing is added twice.',
} as const;

/** The titles of a failed import: what is stored after it. */
export const IMPORT_TITLES = {
  nothing: 'Nothing was imported',
  part: 'Part of the file was imported',
  unknown: 'The import did not finish',
} as const;

/** Codes of answers given before anything of the file was stored, with words for people. */
const REFUSED_BEFORE_STORING = new Set(['request.invalid', 'rating.day_full', 'store.unavailable', 'store.conflict', 'server.busy', 'server.starting', 'request.rate_limited']);

/** The file's text (FileReader: every browser, and jsdom). */
export function readFileText(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result ?? ''));
    reader.onerror = () => reject(new Error(IMPORT_MESSAGES.unreadable));
    reader.readAsText(file);
  });
}

/** What the card shows after a failed import: what is stored (the title), the words under it, and the kind of alert. */
export interface ImportFailure {
  title: string;
  text: string;
  /** The file's other problems the server named (a person fixes them all at once, not one import at a time). */
  more?: string[];
  alert: 'error' | 'warning';
}

/** The messages this page throws itself, before anything is sent. */
const THROWN_HERE: readonly string[] = [IMPORT_MESSAGES.tooLarge, IMPORT_MESSAGES.unreadable, IMPORT_MESSAGES.csv];

/** The first line of Joy's own CSV export (its columns begin so, after the byte-order mark). */
const CSV_EXPORT_START = /^\uFEFF?section,id,/;

/**
 * The server names a problem by its path in the file (`ratings[3].health must be …`), for programs; a person counts
 * ratings from 1: "Rating 4 in the file: health must be …".
 */
export function readableProblem(message: string): string {
  return message.replace(/^ratings\[(\d+)\](?:\.(\w+))? /, (_, index: string, field: string | undefined) =>
    field ? `Rating ${Number(index) + 1} in the file: ${field} ` : `Rating ${Number(index) + 1} in the file `,
  );
}

/**
 * What to tell about a failed import: whether anything was stored (the title), then the server's words (they name
 * the field, the full day, or how many were stored before it stopped), else what to do.
 */
export function importFailureOf(error: unknown): ImportFailure {
  const nothing = (text: string): ImportFailure => ({ title: IMPORT_TITLES.nothing, text, alert: 'error' });
  if (error instanceof SyntaxError) return nothing(IMPORT_MESSAGES.notJson);
  if (error instanceof Error && THROWN_HERE.includes(error.message)) return nothing(error.message);
  const { code, message } = parseApiError(error);
  if (code === 'request.too_large') return nothing(IMPORT_MESSAGES.tooLarge);
  if (code === 'request.malformed_json') return nothing(IMPORT_MESSAGES.notJson);
  if (code === 'request.invalid' && message) {
    const more = fieldErrorsOf(error).filter((m) => m !== message);
    return { ...nothing(readableProblem(message)), ...(more.length > 0 ? { more: more.map(readableProblem) } : {}) };
  }
  if (code && REFUSED_BEFORE_STORING.has(code) && message) return nothing(message);
  // A warning, not an error: part of it is stored, and the same file adds the rest.
  if (code === 'account.import_incomplete' && message) return { title: IMPORT_TITLES.part, text: message, alert: 'warning' };
  // No answer, or an unexpected one: the server may have stored some of it before it failed.
  return { title: IMPORT_TITLES.unknown, text: IMPORT_MESSAGES.failed, alert: 'error' };
}

/**
 * Reads the chosen file in the browser, parses it, and posts it to /api/account/import. Every cached read is
 * refreshed afterwards: the ratings, the dashboard and the insights all count the imported ratings.
 */
export function useImportRatings() {
  const client = useQueryClient();
  return useMutation<ImportResultView, Error, Blob>({
    mutationFn: async (file) => {
      if (file.size > IMPORT_MAX_BYTES) throw new Error(IMPORT_MESSAGES.tooLarge);
      const text = await readFileText(file);
      // Joy's CSV export is not "a file that is not a Joy export": it is the other one.
      if (CSV_EXPORT_START.test(text)) throw new Error(IMPORT_MESSAGES.csv);
      const data: unknown = JSON.parse(text);
      return apiJson<ImportResultView>('POST', '/api/account/import', data);
    },
    onSuccess: async () => {
      await client.invalidateQueries();
    },
  });
}
