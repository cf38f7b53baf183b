import { DeleteOutlined, EditOutlined } from '@ant-design/icons';
import { Button, Card, Modal } from 'antd';
import { Confirm } from './Confirm';
import { useEffect, useId, useState } from 'react';
import { forDayOf, fullLabel, ratingLabel } from '../dashboard/summary';
import { formatScore, scoreBand } from '../lib/score';
import { useDeleteRating } from '../queries';
import { usePersonTimeZone } from '../settings/api';
import { FACTORS, type RatingView } from '@joy/domain';
import { RatingForm } from './RatingForm';

/** Ratings shown at first, and added by each "Show more". */
export const HISTORY_PAGE = 10;

interface RatingHistoryProps {
  /** Newest first, as GET /api/joy-ratings answers: the pages loaded so far. */
  ratings: readonly RatingView[];
  title?: string;
  /** How many ratings there are in all (the summary's count); the ratings given when left out. */
  total?: number;
  /** The list's next page, when there is one: asked for once "Show more" goes past the ratings loaded. */
  more?: { hasMore: boolean; loading: boolean; load: () => unknown };
}

/**
 * The user's ratings, newest first, each with its date, overall score and five factors, and Edit (the rating
 * form in a dialog, prefilled; saved with PUT) and Delete (after a confirmation; DELETE). Every tile and chart
 * follows, because both refresh the rating queries (queries.ts, invalidateRatingViews).
 */
export function RatingHistory({ ratings, title = 'Your Ratings', total = ratings.length, more }: RatingHistoryProps) {
  const [shown, setShown] = useState(HISTORY_PAGE);
  const [editing, setEditing] = useState<RatingView | null>(null);
  const remove = useDeleteRating();
  const headingId = useId();
  const zone = usePersonTimeZone();
  // More are to be shown than are loaded: the next page of the list.
  const wantsPage = more !== undefined && shown > ratings.length && more.hasMore && !more.loading;
  useEffect(() => {
    if (wantsPage) more.load();
  }, [wantsPage, more]);

  return (
    <Card className="rating-history-card" title={<h2 className="card-title" id={headingId}>{title}</h2>}>
      <ul className="rating-history" aria-labelledby={headingId}>
        {ratings.slice(0, shown).map((rating) => {
          // In the zone the person's days are counted in (their setting), as the days themselves are.
          const when = fullLabel(rating.createdAt, zone);
          const forDay = forDayOf(rating, zone);
          return (
            <li key={rating.id} className="rating-history__item" data-testid="rating-history-item">
              <span className="rating-history__when">
                {/* A missed day rated later leads with the day it rates (what the person thinks in), then when it was saved. */}
                <span className="rating-history__date">{forDay ? `For ${forDay}` : when}</span>
                {forDay && <span className="rating-history__for">Saved {when}</span>}
                <span className="rating-history__factors">{FACTORS.map((f) => `${f.label} ${rating[f.name]}`).join(' · ')}</span>
                {rating.note && (
                  <span className="rating-history__note" data-testid="rating-note" dir="auto">
                    {rating.note}
                  </span>
                )}
              </span>
              <span className="rating-history__score" style={{ color: scoreBand(rating.overallScore).color }} aria-label={`Overall ${formatScore(rating.overallScore)} out of 5`}>
                {formatScore(rating.overallScore)}
              </span>
              <span className="rating-history__actions">
                <Button icon={<EditOutlined aria-hidden="true" />} aria-label={`Edit rating of ${ratingLabel(rating, zone)}`} onClick={() => setEditing(rating)}>
                  Edit
                </Button>
                <Confirm
                  title="Delete this rating?"
                  description="It will no longer count in your scores, charts or groups."
                  okText="Delete"
                  cancelText="Keep it"
                  okButtonProps={{ danger: true, loading: remove.isPending && remove.variables?.id === rating.id }}
                  onConfirm={() => remove.mutateAsync({ id: rating.id }).catch(() => undefined)}
                >
                  <Button danger icon={<DeleteOutlined aria-hidden="true" />} aria-label={`Delete rating of ${ratingLabel(rating, zone)}`}>
                    Delete
                  </Button>
                </Confirm>
              </span>
            </li>
          );
        })}
      </ul>
      {total > shown && (
        <Button className="rating-history__more" loading={more?.loading && shown > ratings.length} onClick={() => setShown((n) => n + HISTORY_PAGE)}>
          Show more ({total - shown} older)
        </Button>
      )}
      <Modal
        open={editing !== null}
        // Short enough for a phone's title bar: the day a missed day's rating is for, else when it was made.
        title={editing ? `Edit rating of ${forDayOf(editing, zone) ?? fullLabel(editing.createdAt, zone)}` : undefined}
        footer={null}
        onCancel={() => setEditing(null)}
        destroyOnHidden
        width={640}
      >
        {editing && <RatingForm key={editing.id} rating={editing} showHints={false} onSaved={() => setEditing(null)} onCancel={() => setEditing(null)} />}
      </Modal>
    </Card>
  );
}
