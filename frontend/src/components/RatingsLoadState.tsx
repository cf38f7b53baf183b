import type { UseQueryResult } from '@tanstack/react-query';
import { Alert, Button } from 'antd';
import type { ReactNode } from 'react';
import { PageLoading } from './PageLoading';

/**
 * The loading and error states of a page built on the user's ratings (Dashboard, Insights), under the page's
 * header; null once the ratings are there.
 */
export function ratingsLoadState(ratings: UseQueryResult<unknown>, header: ReactNode): ReactNode | null {
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
