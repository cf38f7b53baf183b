import { CARE_KIND_LABELS, CARE_LIMITS, type CareSuggestionView, dayOf } from '@joy/domain';
import { CrownOutlined, HeartOutlined } from '@ant-design/icons';
import { Avatar, Button, Card, Typography } from 'antd';
import { useRef, useState } from 'react';
import { dropped, focusContainerOf } from '../lib/focus';
import { LinkButton } from '../components/LinkButton';
import { formatScore } from '../lib/score';
import { suggestionText } from './logic';
import { usePersonTimeZone } from '../settings/api';
import { useCareSuggestions, useIsPremium, useSentCare } from './queries';
import { SendCareDialog } from './SendCareDialog';
import './care.css';

/**
 * On a group's page: a card per other member whose latest overall score is below 3, "{name} could use some
 * support", with Send care (Joy Premium) or Upgrade (free plan). Care this person sent them today (in the person's
 * zone, from any group) is named on the card, and the button then reads "Send more care": without it the card
 * looked as if nothing had been sent. Nothing while loading, on error, or when nobody needs support.
 */
export function CareSuggestions({ groupId, nameOf }: { groupId: string; nameOf: (userId: string, fallback: string | null) => string }) {
  const suggestions = useCareSuggestions(groupId);
  const { isPremium, isLoading } = useIsPremium();
  const sent = useSentCare({ enabled: isPremium });
  const zone = usePersonTimeZone();
  const today = dayOf(new Date(), zone);
  const now = Date.now();
  const sentTo = (userId: string) => (sent.data ?? []).filter((c) => c.recipientId === userId);
  // What was sent today, each kind once ("Flowers, Handwritten card").
  const sentTodayTo = (userId: string) => [...new Set(sentTo(userId).filter((c) => dayOf(c.sentAt, zone) === today).map((c) => CARE_KIND_LABELS[c.kind]))];
  // The server's limit for one person (3 in 24 hours): past it, no button that can only fail.
  const atLimitFor = (userId: string) => sentTo(userId).filter((c) => now - Date.parse(c.sentAt) < CARE_LIMITS.windowMs).length >= CARE_LIMITS.perPair;
  // The dialog stays mounted while it closes (`open` false, the recipient kept for its title): antd then gives
  // the focus back to the Send care button that opened it, which an unmounted dialog cannot.
  const [recipient, setRecipient] = useState<{ id: string; name: string } | null>(null);
  const [dialogOpen, setDialogOpen] = useState(false);
  // The care that reaches the day's limit takes its button away: the focus goes to the member's card instead.
  const opener = useRef<{ button: HTMLElement; focusCard: () => void } | null>(null);
  const afterClose = () => {
    if (opener.current && !opener.current.button.isConnected && dropped()) opener.current.focusCard();
  };
  const list: CareSuggestionView[] = suggestions.data ?? [];
  if (list.length === 0) return null;

  return (
    <section className="care-suggestions" aria-labelledby={`care-suggestions-${groupId}`}>
      <h2 id={`care-suggestions-${groupId}`} className="visually-hidden">
        Care suggestions
      </h2>
      <ul className="care-suggestions__list">
        {list.map((s) => {
          const name = nameOf(s.userId, s.firstName);
          const sentToday = isPremium ? sentTodayTo(s.userId) : [];
          const atLimit = isPremium && atLimitFor(s.userId);
          return (
            <li key={s.userId}>
              <Card className="home-card care-suggestion" data-testid="care-suggestion">
                <div className="care-suggestion__body">
                  <Avatar size={44} className="care-suggestion__avatar" icon={<HeartOutlined aria-hidden="true" />} />
                  <div className="care-suggestion__text">
                    <p className="care-suggestion__title">{suggestionText(name)}</p>
                    <Typography.Text type="secondary" className="care-suggestion__hint">
                      Latest joy score {formatScore(s.latestScore)} of 5.{' '}
                      {isPremium ? 'A small gesture can brighten their day.' : 'Sending care is a Joy Premium feature.'}
                    </Typography.Text>
                    {sentToday.length > 0 && (
                      <Typography.Text className="care-suggestion__sent" data-testid="care-sent-today">
                        You sent care today: {sentToday.join(', ')}.
                      </Typography.Text>
                    )}
                    {atLimit && (
                      <Typography.Text type="secondary" className="care-suggestion__sent" data-testid="care-limit">
                        You have sent {name} as much care as one day allows ({CARE_LIMITS.perPair} in 24 hours).
                      </Typography.Text>
                    )}
                  </div>
                  <div className="care-suggestion__action">
                    {isLoading || atLimit ? null : isPremium ? (
                      <Button
                        type={sentToday.length > 0 ? 'default' : 'primary'}
                        icon={<HeartOutlined aria-hidden="true" />}
                        onClick={(event) => {
                          opener.current = { button: event.currentTarget, focusCard: focusContainerOf(event.currentTarget) };
                          setRecipient({ id: s.userId, name });
                          setDialogOpen(true);
                        }}
                        aria-label={`Send ${sentToday.length > 0 ? 'more ' : ''}care to ${name}`}
                      >
                        {sentToday.length > 0 ? 'Send more care' : 'Send care'}
                      </Button>
                    ) : (
                      <LinkButton to="/subscribe" icon={<CrownOutlined aria-hidden="true" />} aria-label={`Upgrade to send care to ${name}`}>
                        Upgrade
                      </LinkButton>
                    )}
                  </div>
                </div>
              </Card>
            </li>
          );
        })}
      </ul>
      {recipient && (
        <SendCareDialog
          key={recipient.id}
          open={dialogOpen}
          groupId={groupId}
          recipientId={recipient.id}
          recipientName={recipient.name}
          onClose={() => setDialogOpen(false)}
          afterClose={afterClose}
        />
      )}
    </section>
  );
}
