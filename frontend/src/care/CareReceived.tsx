import { HeartOutlined } from '@ant-design/icons';
import type { ReceivedCareActionView } from '@joy/domain';
import { Avatar, Button, Card, Tag } from 'antd';
import { useEffect, useRef } from 'react';
import { CareIcon } from './CareIcon';
import { receivedTitle, receivedWhen, senderName, statusText } from './logic';
import { useReceivedCare, useThankCare } from './queries';
import './care.css';
import { formatDateTime } from '../lib/dates';
import { useOneAtATime } from '../lib/requestKey';
import { usePersonTimeZone } from '../settings/api';

/** "Say thanks" until the recipient has, then "Thanked" (the sender sees it on their Sent page). */
function Thanks({ care }: { care: ReceivedCareActionView }) {
  const thank = useThankCare();
  const oneAtATime = useOneAtATime();
  // The button a person pressed goes away when the thanks is saved: the focus moves to what replaces it, not to the page's top.
  const pressed = useRef(false);
  const thanked = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    if (care.thankedAt && pressed.current) thanked.current?.focus();
  }, [care.thankedAt]);
  if (care.thankedAt) {
    return (
      <span ref={thanked} tabIndex={-1} className="care-received__thanked-focus">
        <Tag className="care-received__thanked" icon={<HeartOutlined aria-hidden="true" />}>
          Thanked
        </Tag>
      </span>
    );
  }
  return (
    <Button
      size="small"
      className="care-received__thank"
      icon={<HeartOutlined aria-hidden="true" />}
      loading={thank.isPending && thank.variables?.id === care.id}
      onClick={() => {
        pressed.current = true;
        // One thanks per press (a double click sent two; the second was refused as already thanked).
        oneAtATime((settled) => thank.mutate(care, { onSettled: settled }));
      }}
      aria-label={`Say thanks to ${senderName(care)}`}
    >
      Say thanks
    </Button>
  );
}

/** One care action in a list (received on Home, sent on /care/sent): kind, title, message, when, status, and `children`. */
export function CareListItem({
  care,
  title,
  children,
}: {
  care: { kind: Parameters<typeof CareIcon>[0]['kind']; message: string | null; sentAt: string; status: Parameters<typeof statusText>[0] };
  title: string;
  children?: React.ReactNode;
}) {
  // Today, Yesterday and the time in the person's zone (their setting), as every other time in the app.
  const zone = usePersonTimeZone();
  return (
    <li className="care-received__item">
      <Avatar size={40} className="care-received__icon" icon={<CareIcon kind={care.kind} />} />
      <div className="care-received__text">
        <span className="care-received__title">{title}</span>
        {care.message && <blockquote className="care-received__message" dir="auto">{care.message}</blockquote>}
        <span className="care-received__meta">
          <time dateTime={care.sentAt} title={formatDateTime(care.sentAt, { timeZone: zone })}>
            {receivedWhen(care.sentAt, new Date(), zone)}
          </time>
          <Tag className={`care-received__status care-received__status--${care.status}`}>{statusText(care.status)}</Tag>
          {children}
        </span>
      </div>
    </li>
  );
}

/** Home: "Care You Received", newest first; shown only when there is some. */
export function CareReceived() {
  const received = useReceivedCare();
  const list = received.data ?? [];
  if (list.length === 0) return null;
  return (
    <Card title={<h2 className="card-title">Care You Received</h2>} className="home-card care-received">
      <ul className="care-received__list" data-testid="care-received">
        {list.map((care) => (
          <CareListItem key={care.id} care={care} title={receivedTitle(care)}>
            <Thanks care={care} />
          </CareListItem>
        ))}
      </ul>
    </Card>
  );
}
