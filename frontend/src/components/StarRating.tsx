import { MAX_SCORE, MIN_SCORE } from '@joy/domain';
import { StarFilled } from '@ant-design/icons';
import { Tooltip } from 'antd';
import { useEffect, useId, useRef, useState, type PointerEvent } from 'react';
import { BAND_WORDS } from '../lib/score';

interface StarRatingProps {
  /** Field name, e.g. "relationships". */
  name: string;
  /** Visible and accessible label, e.g. "Relationships". */
  label: string;
  hint?: string;
  value: number;
  onChange: (value: number) => void;
  disabled?: boolean;
}

const STARS = Array.from({ length: MAX_SCORE - MIN_SCORE + 1 }, (_, i) => MIN_SCORE + i);

/** How long a mouse rests on a star before its band word shows (none while it passes over the stars). */
const TIP_DELAY_MS = 200;

/**
 * The star whose tooltip shows: only under a mouse. A tap "hovers" what it touches too, and nothing leaves it after,
 * so on a phone a star's tooltip stayed up after the tap, over the dialog the next tap opened; a phone shows the
 * band word beside the factor's name anyway.
 */
function useMouseTip() {
  const [tip, setTip] = useState<number | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const enter = (star: number) => (event: PointerEvent) => {
    clearTimeout(timer.current);
    if (event.pointerType === 'mouse') timer.current = setTimeout(() => setTip(star), TIP_DELAY_MS);
    else setTip(null);
  };
  const leave = () => {
    clearTimeout(timer.current);
    setTip(null);
  };
  return { tip, enter, leave };
}

/**
 * A 1–5 star picker built on native radio buttons: one tab stop, arrow keys change the value, and each
 * star is announced as "3 stars, Moderate". The band word also shows as a tooltip.
 */
export function StarRating({ name, label, hint, value, onChange, disabled }: StarRatingProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const { tip, enter, leave } = useMouseTip();
  return (
    <fieldset className="star-rating" disabled={disabled} aria-describedby={hintId}>
      <legend className="star-rating__head">
        <span className="star-rating__label">{label}</span>
        <span className="star-rating__value" aria-hidden="true">
          {value}/5 · {BAND_WORDS[value]}
        </span>
      </legend>
      {hint && (
        <p id={hintId} className="star-rating__hint">
          {hint}
        </p>
      )}
      <div className="star-rating__stars">
        {STARS.map((star) => {
          const inputId = `${id}-${star}`;
          return (
            <Tooltip key={star} title={`${star} – ${BAND_WORDS[star]}`} open={tip === star}>
              <label
                htmlFor={inputId}
                className={`star-rating__star${star <= value ? ' is-on' : ''}`}
                data-testid={`${name}-star-${star}`}
                onPointerEnter={enter(star)}
                onPointerLeave={leave}
                // A tap (touch, pen) ends any tooltip, as a mouse leaving would.
                onPointerDown={(event) => {
                  if (event.pointerType !== 'mouse') leave();
                }}
              >
                <input
                  id={inputId}
                  type="radio"
                  className="visually-hidden"
                  name={name}
                  value={star}
                  checked={value === star}
                  onChange={() => onChange(star)}
                  aria-label={`${label}: ${star} ${star === 1 ? 'star' : 'stars'}, ${BAND_WORDS[star]}`}
                />
                <StarFilled aria-hidden="true" />
              </label>
            </Tooltip>
          );
        })}
      </div>
    </fieldset>
  );
}
