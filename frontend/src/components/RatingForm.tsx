import { useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Checkbox, Input, Typography } from 'antd';
import { useEffect, useId, useRef, useState } from 'react';
import { DEFAULT_FACTOR_SCORE, defaultFactorScores, formatScore, scoreBand } from '../lib/score';
import { characterLimit } from '../lib/textCount';
import { useCorrectRating, useSubmitRating } from '../queries';
import { focusWhenEnabled } from '../lib/focus';
import { SETTINGS_KEY } from '../settings/api';
import { isUnauthorizedError } from '../api';
import { AUTH_USER_KEY } from '../auth';
import { useLeaveGuard } from './LeaveGuard';
import { newRequestKey, useOneAtATime } from '../lib/requestKey';
import { dropUnsavedRating, keepUnsavedRating, type UnsavedRating, unsavedRatingOf } from '../lib/unsavedRating';
import {
  addDays,
  dayOf,
  earliestRateableDay,
  type FactorName,
  FACTORS,
  type FactorScores,
  NOTE_MAX,
  overallScore,
  type RatingView,
  type UserSettingsView,
  type UserView,
} from '@joy/domain';
import { StarRating } from './StarRating';
import { BusyLabel } from './BusyLabel';

interface RatingFormProps {
  /** Called after a rating was stored and the ratings lists were refreshed. */
  onSaved?: (rating: RatingView) => void;
  /** Show the one-line help under each factor label (default true). */
  showHints?: boolean;
  /** Edit this rating instead of making a new one: the form starts at its scores and saves them with PUT. */
  rating?: RatingView;
  /** With `rating`, or `forDay`: a Cancel button beside Save that calls this. */
  onCancel?: () => void;
  /** A new rating of this day (`YYYY-MM-DD`, a day History opened), instead of today or a day picked here. */
  forDay?: string;
  /** Told the earlier day picked here (`YYYY-MM-DD`), or null for today: the caller's title names it. */
  onDayChange?: (day: string | null) => void;
}

const scoresOf = (r: RatingView): FactorScores => ({ relationships: r.relationships, health: r.health, purpose: r.purpose, growth: r.growth, joy: r.joy });

/**
 * The rating form: five factors (Relationships, Health, Purpose, Growth, Joy), each 1–5 and starting at 3,
 * the overall score updating live, and a save button. Used on Home and the Dashboard; the caller supplies
 * the surrounding card and title.
 */
export function RatingForm({ onSaved, showHints = true, rating, onCancel, forDay, onDayChange }: RatingFormProps) {
  const client = useQueryClient();
  // A new rating whose save found the session over comes back once its writer is signed in again (lib/unsavedRating.ts).
  const newRating = !rating && !forDay;
  const userId = client.getQueryData<UserView>(AUTH_USER_KEY)?.id;
  const [restored, setRestored] = useState(() => (newRating ? unsavedRatingOf(userId) : null));
  useEffect(() => {
    // Not this person's (another signed in on the tab): never shown, and not kept. Theirs stays until saved or discarded.
    if (newRating && userId && !restored) dropUnsavedRating();
  }, [newRating, userId, restored]);
  const [scores, setScores] = useState<FactorScores>(() => restored?.scores ?? (rating ? scoresOf(rating) : defaultFactorScores()));
  const [note, setNote] = useState(() => restored?.note ?? rating?.note ?? '');
  // "Rate an earlier day": a missed day, up to 365 days back, never ahead, in the person's zone (their setting, else the browser's).
  const timeZone = client.getQueryData<UserSettingsView>(SETTINGS_KEY)?.timeZone ?? undefined;
  const today = dayOf(new Date(), timeZone ?? undefined)!;
  const [earlier, setEarlier] = useState(!!restored?.day);
  const [day, setDay] = useState(restored?.day ?? '');
  // Changed since it was opened or last saved (a given-back rating is unsaved too): leaving asks first (LeaveGuard).
  const [touched, setTouched] = useState(!!restored);
  const pickedDay = earlier && day && day !== today ? day : null;
  useEffect(() => onDayChange?.(pickedDay), [onDayChange, pickedDay]);
  const noteId = useId();
  const dayId = useId();
  // One save, one rating: a click while a save is in flight does nothing (useOneAtATime, unlike the pending state,
  // knows before a second click in the same frame is handled), and the save keeps its Idempotency-Key until
  // it succeeds, so that saving again after a lost answer stores nothing twice. Other scores: a new save.
  const oneAtATime = useOneAtATime();
  // A given-back rating keeps the key of the save it was: if that save reached the server after all, this one finds it.
  const saveKey = useRef<string | null>(restored?.idempotencyKey ?? null);
  /** The new rating being saved, as it would be kept if it has to wait offline (null when none is). */
  const waiting = useRef<UnsavedRating | null>(null);
  const saveButton = useRef<HTMLButtonElement>(null);
  const create = useSubmitRating({
    onSaved: (saved) => {
      saveKey.current = null;
      setTouched(false);
      if (restored || waiting.current) dropUnsavedRating();
      waiting.current = null;
      setRestored(null);
      // The note and the day belonged to that rating; the next one starts without them.
      setNote('');
      setEarlier(false);
      setDay('');
      onSaved?.(saved);
    },
  });
  // Editing: PUT is idempotent by itself (the same values again change nothing), so no key is needed.
  const correct = useCorrectRating({
    onSaved: (saved) => {
      setTouched(false);
      onSaved?.(saved);
    },
    onGone: () => {
      setTouched(false);
      onCancel?.();
    },
  });
  const submit = rating ? correct : create;
  // Offline, the save waits for the connection in this page only: kept in the tab too, it survives a reload.
  useEffect(() => {
    if (create.isPaused && waiting.current) keepUnsavedRating(waiting.current);
  }, [create.isPaused]);
  // A save under way (or waiting offline) goes on without the page: only an unsent rating is asked about.
  useLeaveGuard(touched && !submit.isPending, rating ? 'Your changes to this rating are not saved yet.' : 'Your rating is not saved yet.');
  const overall = overallScore(scores);
  const band = scoreBand(overall);

  const changed = () => {
    saveKey.current = null;
    setTouched(true);
  };
  /** The given-back rating is not wanted: forgotten, and the form starts afresh. */
  const discardRestored = () => {
    dropUnsavedRating();
    setRestored(null);
    setScores(defaultFactorScores());
    setNote('');
    setEarlier(false);
    setDay('');
    saveKey.current = null;
    setTouched(false);
  };
  const setFactor = (name: FactorName, value: number) => {
    changed();
    setScores((prev) => ({ ...prev, [name]: value }));
  };
  const save = () =>
    oneAtATime((onSettled) => {
      // Saving disables the form's fields and buttons, and the browser drops the focus of a disabled one: a keyboard
      // user gets it back where it was once they are enabled.
      const focused = document.activeElement;
      if (focused instanceof HTMLElement && saveButton.current?.form?.contains(focused)) focusWhenEnabled(focused);
      if (rating) {
        // The note goes along only when it was changed (null: removed); left out, it stays as it is.
        const noteChange = note.trim() === (rating.note ?? '') ? {} : { note: note.trim() === '' ? null : note };
        correct.mutate({ id: rating.id, scores: { ...scores, ...noteChange } }, { onSettled });
        return;
      }
      saveKey.current ??= newRequestKey();
      const chosenDay = forDay ?? (earlier && day ? day : null);
      const body = { ...scores, ...(note.trim() !== '' ? { note } : {}), ...(chosenDay ? { day: chosenDay } : {}) };
      const renewKey = () => (saveKey.current = newRequestKey());
      // Signed out meanwhile: the app goes to sign-in, and this rating waits for its writer in this tab.
      const keepIfSignedOut = (error: Error) => {
        if (!newRating || !userId || !isUnauthorizedError(error)) return;
        keepUnsavedRating({ userId, scores, note, day: chosenDay });
        // Kept in the tab: going on to sign-in loses nothing, so leaving is not asked about (it held up that move).
        setTouched(false);
      };
      waiting.current = newRating && userId ? { userId, scores, note, day: chosenDay, reason: 'offline', idempotencyKey: saveKey.current } : null;
      create.mutate({ scores: body, idempotencyKey: saveKey.current, renewKey }, { onSettled, onError: keepIfSignedOut });
    });

  return (
    <form
      className="rating-form"
      aria-label={rating ? 'Edit your rating' : 'Rate your joy'}
      onSubmit={(event) => {
        event.preventDefault();
        save();
      }}
    >
      {restored && (
        <Alert
          className="rating-form__restored"
          type="info"
          showIcon
          title="Your rating is back"
          description={
            restored.reason === 'offline'
              ? "You were offline when you saved it, and the page was reloaded before it could be sent. Check it and save it when you're ready."
              : "You were signed out before it was saved. Check it and save it when you're ready."
          }
          action={
            <Button size="small" onClick={discardRestored}>
              Discard
            </Button>
          }
        />
      )}
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
      <div className="rating-form__extras">
        <label className="rating-form__label" htmlFor={noteId}>
          Note <Typography.Text type="secondary">(optional, only you see it)</Typography.Text>
        </label>
        <Input.TextArea
          id={noteId}
          // Right-to-left writing (Persian, Hebrew, Arabic) shows in its own direction.
          dir="auto"
          name="note"
          value={note}
          count={characterLimit(NOTE_MAX)}
          rows={2}
          placeholder="A line about your day"
          disabled={submit.isPending}
          onChange={(event) => {
            changed();
            setNote(event.target.value);
          }}
        />
        {!rating && !forDay && (
          <div className="rating-form__day">
            <Checkbox
              checked={earlier}
              disabled={submit.isPending}
              onChange={(event) => {
                changed();
                setEarlier(event.target.checked);
                // The calendar day before today in the person's zone (not 24 hours ago: around a clock change that is
                // today or two days back).
                if (event.target.checked && !day) setDay(addDays(dayOf(new Date(), timeZone)!, -1));
              }}
            >
              Rate an earlier day
            </Checkbox>
            {earlier && (
              <span className="rating-form__day-picker">
                <label htmlFor={dayId}>Day</label>
                <input
                  id={dayId}
                  type="date"
                  name="day"
                  className="ant-input"
                  value={day}
                  min={earliestRateableDay(today)}
                  max={today}
                  required
                  disabled={submit.isPending}
                  onChange={(event) => {
                    changed();
                    setDay(event.target.value);
                  }}
                />
              </span>
            )}
          </div>
        )}
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
        <div className="rating-form__actions">
          {(rating || forDay) && onCancel && (
            <Button size="large" onClick={onCancel} disabled={submit.isPending}>
              Cancel
            </Button>
          )}
          <Button ref={saveButton} type="primary" htmlType="submit" size="large" disabled={submit.isPending}>
            <BusyLabel busy={submit.isPending} label={rating ? 'Save Changes' : 'Save Rating'} busyLabel="Saving..." />
          </Button>
        </div>
      </div>
      {/* Offline, the save waits for the connection: said here, where the person is looking. */}
      <p className="rating-form__waiting" role="status">
        {submit.isPaused ? "You're offline. Your rating will be saved as soon as you're back online." : ''}
      </p>
    </form>
  );
}
