import { Alert, Button } from 'antd';
import type { ReactNode } from 'react';
import { PageLoading } from './PageLoading';

/** What the load state needs of a query (or of several, `bothQueries`). */
export interface QueryState {
  isLoading: boolean;
  isError: boolean;
  refetch: () => unknown;
}

/** Two queries as one: loading while either is, failed when either failed; "Try again" refetches both. */
export function bothQueries(a: QueryState, b: QueryState): QueryState {
  return { isLoading: a.isLoading || b.isLoading, isError: a.isError || b.isError, refetch: () => Promise.all([a.refetch(), b.refetch()]) };
}

/**
 * The loading and error states of a page built on the user's ratings (Dashboard, Insights: the list's first page
 * and the summary, see `bothQueries`), under the page's header; null once the ratings are there.
 */
export function ratingsLoadState(ratings: QueryState, header: ReactNode): ReactNode | null {
  if (ratings.isLoading) {
    return (
      <>
        {header}
        <PageLoading />
      </>
    );
  }
  if (ratings.isError) {
    return (
      <>
        {header}
        <Alert
          type="error"
          showIcon
          title="We couldn't load your ratings."
          description="Check your connection and try again."
          action={<Button onClick={() => ratings.refetch()}>Try again</Button>}
        />
      </>
    );
  }
  return null;
}
