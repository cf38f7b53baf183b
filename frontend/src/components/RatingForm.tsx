import { Button, Typography } from 'antd';
import { useState } from 'react';
import { DEFAULT_FACTOR_SCORE, defaultFactorScores, formatScore, scoreBand } from '../lib/score';
import { useSubmitRating } from '../queries';
import { type FactorName, FACTORS, type FactorScores, overallScore, type RatingView } from '@joy/domain';
import { StarRating } from './StarRating';

interface RatingFormProps {
  /** Called after a rating was stored and the ratings lists were refreshed. */
  onSaved?: (rating: RatingView) => void;
  /** Show the one-line help under each factor label (default true). */
  showHints?: boolean;
}

/**
 * The rating form: five factors (Relationships, Health, Purpose, Growth, Joy), each 1–5 and starting at 3,
 * the overall score updating live, and a save button. Used on Home and the Dashboard; the caller supplies
 * the surrounding card and title.
 */
export function RatingForm({ onSaved, showHints = true }: RatingFormProps) {
  const [scores, setScores] = useState<FactorScores>(defaultFactorScores);
  const submit = useSubmitRating({ onSaved });
  const overall = overallScore(scores);
  const band = scoreBand(overall);

  const setFactor = (name: FactorName, value: number) => setScores((prev) => ({ ...prev, [name]: value }));

  return (
    <form
      className="rating-form"
      aria-label="Rate your joy"
      onSubmit={(event) => {
        event.preventDefault();
        if (!submit.isPending) submit.mutate(scores);
      }}
    >
      <div className="rating-form__factors">
        {FACTORS.map((factor) => (
          <StarRating
            key={factor.name}
            name={factor.name}
            label={factor.label}
            hint={showHints ? factor.hint : undefined}
            value={scores[factor.name] ?? DEFAULT_FACTOR_SCORE}
            onChange={(value) => setFactor(factor.name, value)}
            disabled={submit.isPending}
          />
        ))}
      </div>
      <div className="rating-form__footer">
        <div className="rating-form__overall" aria-live="polite">
          <Typography.Text type="secondary">Overall score</Typography.Text>
          <span className="rating-form__overall-value" data-testid="overall-score">
            {formatScore(overall)}
          </span>
          <span className="rating-form__overall-band" style={{ color: band.color }}>
            {band.message}
          </span>
        </div>
        <Button type="primary" htmlType="submit" size="large" disabled={submit.isPending}>
          {submit.isPending ? 'Saving...' : 'Save Rating'}
        </Button>
      </div>
    </form>
  );
}
