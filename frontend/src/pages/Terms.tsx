import { Link } from 'react-router-dom';
import { ProsePage, ProseSection } from '../components/Prose';
import { LEGAL_LAST_UPDATED, PREMIUM_PRICE, SUPPORT_EMAIL } from '../lib/site';

const SECTIONS = [
  { id: 'acceptance', title: 'Accepting these terms' },
  { id: 'eligibility', title: 'Who can use Joy' },
  { id: 'account', title: 'Your account' },
  { id: 'data', title: 'Your data and privacy' },
  { id: 'groups', title: 'Groups' },
  { id: 'subscription', title: 'Joy Premium subscription' },
  { id: 'conduct', title: 'Acceptable use' },
  { id: 'care', title: 'Care actions' },
  { id: 'medical', title: 'Medical disclaimer' },
  { id: 'liability', title: 'Warranties and liability' },
  { id: 'ending', title: 'Ending your use' },
  { id: 'changes', title: 'Changes and contact' },
];

export default function Terms() {
  return (
    <ProsePage title="Terms of Service" subtitle={`Last updated ${LEGAL_LAST_UPDATED}`} sections={SECTIONS}>
      <ProseSection id="acceptance" title="Accepting these terms">
        <p>
          These terms are an agreement between you and Joy about your use of the Joy website and app. By creating
          an account or using Joy you accept them. Please read them together with our{' '}
          <Link to="/privacy">Privacy Policy</Link>.
        </p>
      </ProseSection>

      <ProseSection id="eligibility" title="Who can use Joy">
        <p>
          You must be at least 13 years old to use Joy. Joy is not intended for or offered to children under 13. If
          you are under the age of majority where you live, you may use Joy only with the permission of a parent or
          guardian, who must agree to these terms, including for any purchase.
        </p>
      </ProseSection>

      <ProseSection id="account" title="Your account">
        <p>
          You sign in with a Joy account (your e-mail and password, or a passkey) or, where offered, through another identity provider. Keep your password and devices secure: you are
          responsible for what happens under your Joy account. Tell us straight away if you think someone else is
          using it.
        </p>
      </ProseSection>

      <ProseSection id="data" title="Your data and privacy">
        <p>
          Your ratings and other content belong to you. You give us permission to store and process them only to
          provide Joy to you and to the groups you join. Your five factor scores are private to you; members of your
          groups see only your overall joy scores, never the five factors. You can export your data or delete your account at
          any time from the Account page.
        </p>
      </ProseSection>

      <ProseSection id="groups" title="Groups">
        <p>
          Anyone with a group's invite code can join it, so share codes only with people you trust. The free plan
          lets you belong to up to 3 groups in total, created or joined; Joy Premium removes this limit. Be kind:
          what you see about other members is shared with you in confidence and must not be passed on.
        </p>
      </ProseSection>

      <ProseSection id="subscription" title="Joy Premium subscription">
        <ul>
          <li>
            Joy Premium costs {PREMIUM_PRICE} per month, charged in advance to your
            payment card each month until you cancel.
          </li>
          <li>
            You can cancel at any time from your account page. Cancellation takes effect at the end of the current
            paid period, and you keep Premium features until then. We do not refund partial months, except where
            the law requires it.
          </li>
          <li>
            If we change the price, we will tell you at least 30 days beforehand, and the new price applies only from
            your next billing period after that notice. You may cancel before it applies.
          </li>
          <li>Payments are processed by our payment provider under its own terms.</li>
        </ul>
      </ProseSection>

      <ProseSection id="conduct" title="Acceptable use">
        <p>When using Joy, you agree not to:</p>
        <ul>
          <li>harass, threaten, shame or pressure other members, including about their scores;</li>
          <li>post unlawful, hateful, sexually explicit or misleading content in group names, descriptions or messages;</li>
          <li>impersonate anyone or create accounts for others without their permission;</li>
          <li>try to access other people's data or groups you have not been invited to;</li>
          <li>disrupt, overload, scrape or reverse-engineer the service, or get around its limits.</li>
        </ul>
        <p>We may remove content or suspend accounts that break these rules.</p>
      </ProseSection>

      <ProseSection id="care" title="Care actions">
        <p>
          Joy Premium members can send care actions (flowers, handwritten cards, digital gift cards and care
          packages) to members of their groups. Joy places the order, and gifts are fulfilled by partners. We pass your order on
          carefully and will never send the same order twice, but we are not responsible for delays, substitutions,
          availability or the quality of goods supplied by those partners, nor for how a recipient responds to a
          gift. You are responsible for the content of your messages. Suggestions to send a care action are gentle
          prompts based on overall scores, not an assessment of anyone's health or circumstances.
        </p>
      </ProseSection>

      <ProseSection id="medical" title="Medical disclaimer">
        <p>
          Joy is not a medical app. It does not provide medical, psychological or other professional advice,
          diagnosis or treatment, and its scores and insights are not a substitute for them. Always seek the advice
          of a qualified professional about your health. If you are in crisis or in danger, contact your local
          emergency number immediately.
        </p>
      </ProseSection>

      <ProseSection id="liability" title="Warranties and liability">
        <p>
          We work hard to keep Joy available and accurate, but we provide it "as is" and cannot promise it will
          always be uninterrupted or error-free. To the extent the law allows, Joy is not liable for indirect or
          consequential losses, and our total liability to you is limited to the amount you paid us in the twelve
          months before the claim. Nothing in these terms limits rights you have as a consumer that cannot be
          limited by law.
        </p>
      </ProseSection>

      <ProseSection id="ending" title="Ending your use">
        <p>
          You can stop using Joy and delete your account at any time. We may suspend or close accounts that
          seriously or repeatedly break these terms, and will tell you why unless the law prevents us.
        </p>
      </ProseSection>

      <ProseSection id="changes" title="Changes and contact">
        <p>
          We may update these terms as Joy evolves. If a change matters, we will tell you in the app before it takes
          effect; continuing to use Joy afterwards means you accept the new terms. Questions:{' '}
          <a href={`mailto:${SUPPORT_EMAIL}`}>{SUPPORT_EMAIL}</a>.
        </p>
      </ProseSection>
    </ProsePage>
  );
}
