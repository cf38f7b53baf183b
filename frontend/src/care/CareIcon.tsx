import type { CareKind } from '@joy/domain';
import { CreditCardOutlined, GiftOutlined, HeartOutlined, MailOutlined } from '@ant-design/icons';

/** A decorative icon per kind (the text always names the kind). */
export function CareIcon({ kind }: { kind: CareKind }) {
  const props = { 'aria-hidden': true } as const;
  switch (kind) {
    case 'flowers':
      return <HeartOutlined {...props} />;
    case 'handwritten_card':
      return <MailOutlined {...props} />;
    case 'digital_gift_card':
      return <CreditCardOutlined {...props} />;
    default:
      return <GiftOutlined {...props} />;
  }
}
