import { Link } from 'react-router-dom';
import { ProsePage, ProseSection } from '../components/Prose';
import { LEGAL_LAST_UPDATED, PREMIUM_PRICE, PRIVACY_EMAIL } from '../lib/site';

const SECTIONS = [
  { id: 'collect', title: 'Information we collect' },
  { id: 'use', title: 'How we use your information' },
  { id: 'sharing', title: 'What we share, and with whom' },
  { id: 'security', title: 'How we protect your data' },
  { id: 'rights', title: 'Your rights and choices' },
  { id: 'children', title: "Children's privacy" },
  { id: 'subscription', title: 'Subscriptions and payments' },
  { id: 'care', title: 'Care actions' },
  { id: 'reminders', title: 'Settings and reminders' },
  { id: 'medical', title: 'Not medical advice' },
  { id: 'changes', title: 'Changes and contact' },
];

export default function Privacy() {
  return (
    <ProsePage title="Privacy Policy" subtitle={`Last updated ${LEGAL_LAST_UPDATED}`} sections={SECTIONS}>
      <p>
        Joy helps you understand and share your happiness. That only works if you can trust us with personal
        information, so this policy explains plainly what we collect, why, who can see it and the choices you
        have. It applies to the Joy website and app.
      </p>

      <ProseSection id="collect" title="Information we collect">
        <ul>
          <li>
            <strong>Account information</strong>: your name, e-mail address and profile picture, and an identifier
            for your account. With Joy's own sign-in, your password is checked when you sign in and kept only as a
            one-way hash (it cannot be turned back into the password), with the public keys of any passkeys you add;
            where Joy is set up to sign in through another identity provider, that provider checks your password and
            we never see it.
          </li>
          <li>
            <strong>Joy ratings</strong>: the five factor scores you enter (relationships, health, purpose, growth
            and joy), the overall score calculated from them, when you rated and the day you rated for (a missed
            day can be rated later).
          </li>
          <li>
            <strong>Notes</strong>, only if you write one: a line of up to 1,000 characters with a rating. A note is
            yours alone: it is shown only to you (in your rating list and History), never to your groups or anyone
            else, is stored encrypted with a key of your own, is included in your export, and becomes unreadable for
            good when you delete your account.
          </li>
          <li>
            <strong>Groups</strong>: the groups you create or join, their names and descriptions, and invite codes.
          </li>
          <li>
            <strong>Care actions</strong> you send or receive, including the kind of gift, the recipient and any
            message you write, and when the recipient said thanks.
          </li>
          <li>
            <strong>Imported ratings</strong>, only if you import a file: the ratings of a Joy export you choose on
            your Account page (their five factor scores, when they were made, their days and notes). Only the ratings are kept; the
            file's other contents (your profile, groups and care actions on the other install) are read past and not
            stored.
          </li>
          <li>
            <strong>Settings</strong>: the first name you choose, your time zone (so that your days are counted
            where you live) and, if you want a daily reminder, its time.
          </li>
          <li>
            <strong>Push subscriptions</strong>, only on devices where you enable reminders: the address your
            browser's push service gives that browser, and the keys that encrypt what we send to it.
          </li>
          <li>
            <strong>Subscription information</strong>: your plan, its status and renewal dates. Card details are
            handled by our payment provider and never reach our servers.
          </li>
          <li>
            <strong>Technical information</strong> needed to run the service securely: a session cookie that keeps
            you signed in, and server logs (such as IP address, browser type and the time of a request) kept for a
            limited time for security and troubleshooting.
          </li>
        </ul>
        <p>We do not use advertising cookies and we do not track you across other websites.</p>
      </ProseSection>

      <ProseSection id="use" title="How we use your information">
        <ul>
          <li>To provide Joy: record your ratings, show your trends, insights and dashboard, and run your groups.</li>
          <li>To show the members of your groups your overall joy scores, as described below.</li>
          <li>To process your Joy Premium subscription and deliver the care actions you send.</li>
          <li>To keep the service secure, prevent abuse and fix problems.</li>
          <li>To answer your questions and send essential messages about your account or subscription.</li>
        </ul>
        <p>We never sell your personal information and we never use your ratings for advertising.</p>
      </ProseSection>

      <ProseSection id="sharing" title="What we share, and with whom">
        <p>
          <strong>With your groups.</strong> Members of a group you belong to can see your name, your{' '}
          <strong>e-mail address</strong> (in the group's member list, so that members know who is who), profile picture,
          your <strong>latest overall joy score</strong>, and the overall score and time of each rating you make
          while you are a member (a member who joins later sees them only from the day they joined). Your five individual factor
          scores are <strong>private</strong>: they are visible only to you and are never shown to group members or
          to anyone else.
        </p>
        <p>
          <strong>With service providers</strong> who work for us under contract and only on our instructions: our
          hosting provider, our payment provider (for Joy Premium) and the partners who fulfil care actions (who
          receive only what is needed to fulfil the order: the kind of gift, your message and an identifier of the
          recipient).
        </p>
        <p>
          <strong>When the law requires it</strong>, for example to respond to a valid legal request, or to
          protect the safety of our users or the public.
        </p>
        <p>
          If Joy is ever merged or acquired, your information would be transferred only under a policy at least as
          protective as this one, and we would tell you beforehand.
        </p>
      </ProseSection>

      <ProseSection id="security" title="How we protect your data">
        <p>
          All traffic is encrypted in transit with HTTPS. Your session is kept in a secure, HttpOnly cookie; signing
          in and paying use a few short-lived cookies of their own. Access to production systems is limited to the few
          people who need it. Group data is visible only to that group's members. No system is perfectly secure,
          but we work hard to protect your information and will tell you promptly if a breach affects you.
        </p>
      </ProseSection>

      <ProseSection id="rights" title="Your rights and choices">
        <ul>
          <li>
            <strong>Access and export</strong>: download your data, your profile and settings, every rating with
            its factors and note, your groups and your care actions, as JSON or CSV from the Account page.
          </li>
          <li>
            <strong>Taking your ratings with you</strong>: the JSON file can be imported into another Joy, and a
            JSON export of another Joy can be imported here (Import ratings on your Account page). Imported ratings
            are yours like any other: kept at the times they were made, shown to your groups only as the overall
            score (like every rating), included in your export, and deleted with your account.
          </li>
          <li>
            <strong>Correction</strong>: correct or delete any of your ratings from its history list on the
            Dashboard; change your first name and time zone on the Settings page; if other information we hold about
            you is wrong, tell us and we will correct it.
          </li>
          <li>
            <strong>Leaving groups</strong>: leave a group at any time; its members then no longer see your scores.
            A group's owner can also remove a member, or delete the group for everyone.
          </li>
          <li>
            <strong>Deletion</strong>: delete your account from the Account page. Your name, e-mail address
            and picture, and your notes, are then made permanently unreadable in our systems (in our backups, once
            those backups expire), you leave every group, and your ratings are no longer shown to anyone: what
            remains of them are numbers that nothing links to you. Care you sent stays with the people who received
            it, with your message but without your name.
          </li>
          <li>
            Depending on where you live, you may have further rights, such as objecting to processing or
            complaining to a data protection authority. Contact us and we will help.
          </li>
        </ul>
      </ProseSection>

      <ProseSection id="children" title="Children's privacy">
        <p>
          Joy is not intended for children under 13, and we do not knowingly collect information from them. If you
          believe a child under 13 has created an account, please contact us and we will delete it.
        </p>
      </ProseSection>

      <ProseSection id="subscription" title="Subscriptions and payments">
        <p>
          Joy Premium costs {PREMIUM_PRICE} per month. Payments are processed by our payment provider, which
          receives your card details directly. We keep only your subscription status, plan and billing dates. You
          can cancel at any time; cancellation takes effect at the end of the period you have already paid for.
        </p>
      </ProseSection>

      <ProseSection id="care" title="Care actions">
        <p>
          When you send a care action, we share with our fulfilment partner only what is needed to deliver it. The
          recipient sees that the care action came from you, along with your message.
        </p>
        <p>
          If the recipient presses "Say thanks", the sender sees that they did and when, on the sender's list of care
          sent; thanks carry no message, and nobody else sees them. You can turn care actions off in Settings: then
          nobody can send you any, and care suggestions never name you.
        </p>
      </ProseSection>

      <ProseSection id="reminders" title="Settings and reminders">
        <p>
          Your first name is stored encrypted with a key of your own, like your e-mail address, and becomes
          unreadable when you delete your account. Your time zone and reminder time are used only to count your
          days and to send your reminder.
        </p>
        <p>
          <strong>In the app</strong>, with the daily reminder on, Home reminds you from your reminder time on days you
          have not rated yet. <strong>As a
          notification</strong>, only on devices where you press "Enable reminders on this device" and allow
          notifications: your browser then gives us an address at its push service (run by your browser's maker,
          such as Google, Mozilla or Apple) and keys to encrypt what we send. We store them encrypted with your key.
          At your reminder time, on days you have not rated, we send that address one encrypted reminder ("How was
          your day?"), at most once a day; the push service sees when a message is sent, not what it says, and
          nothing about your ratings. We only send to push services on the public internet over HTTPS.
        </p>
        <p>
          Turn reminders off in Settings, on one device or entirely; when a push service tells us a device no
          longer exists, we forget it. Deleting your account forgets every device.
        </p>
      </ProseSection>

      <ProseSection id="medical" title="Not medical advice">
        <p>
          Joy is a wellbeing tool, not a medical app. Your scores and insights are not a diagnosis and are not
          reviewed by health professionals. If you are worried about your health or mood, please speak to a
          qualified professional.
        </p>
      </ProseSection>

      <ProseSection id="changes" title="Changes and contact">
        <p>
          If we change this policy in a meaningful way, we will tell you in the app before the change takes effect.
          Questions or requests about your privacy: <a href={`mailto:${PRIVACY_EMAIL}`}>{PRIVACY_EMAIL}</a>. See
          also our <Link to="/terms">Terms of Service</Link>.
        </p>
      </ProseSection>
    </ProsePage>
  );
}
