import { DeleteOutlined, KeyOutlined } from '@ant-design/icons';
import { startRegistration, type PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/browser';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Typography } from 'antd';
import { apiJson, isUnauthorizedError } from '../api';
import { Confirm } from '../components/Confirm';
import { toast } from '../lib/toast';
import { formatDateTime } from '../lib/dates';
import { usePersonTimeZone } from '../settings/api';

/** GET /api/account/passkeys */
interface PasskeysView {
  available: boolean;
  passkeys: { id: string; createdAt: string }[];
}

const PASSKEYS_KEY = ['/api/account/passkeys'] as const;


/**
 * Passkeys (Account page): sign in with the device's screen lock instead of the password. Adding one asks the
 * server for a challenge, lets the browser create the passkey (@simplewebauthn/browser) and sends it back to be
 * verified and kept. Only accounts of this install's own sign-in have them (with another provider the card says so).
 */
export function PasskeysCard() {
  const client = useQueryClient();
  const zone = usePersonTimeZone();
  const list = useQuery<PasskeysView>({ queryKey: PASSKEYS_KEY });
  const refresh = () => client.invalidateQueries({ queryKey: PASSKEYS_KEY });
  const failed = (error: Error, what: string) => {
    if (isUnauthorizedError(error)) return;
    toast({ title: 'Error', description: `${what} ${error.message.replace(/^\d+: /, '')}`.trim(), variant: 'destructive' });
  };

  const add = useMutation<void, Error, void>({
    mutationFn: async () => {
      const optionsJSON = await apiJson<PublicKeyCredentialCreationOptionsJSON>('POST', '/api/account/passkeys/options');
      const response = await startRegistration({ optionsJSON });
      await apiJson('POST', '/api/account/passkeys', { response });
    },
    onSuccess: () => {
      toast({ title: 'Passkey added', description: 'Next time, sign in with it: no password needed.', variant: 'success' });
      void refresh();
    },
    onError: (error) => failed(error, error.name === 'NotAllowedError' ? 'No passkey was created.' : 'The passkey could not be added.'),
  });
  const remove = useMutation<void, Error, string>({
    mutationFn: async (id) => {
      await apiJson('DELETE', `/api/account/passkeys/${encodeURIComponent(id)}`);
    },
    onSuccess: () => {
      toast({ title: 'Passkey removed', description: 'It no longer signs you in to Joy.', variant: 'success' });
      void refresh();
    },
    onError: (error) => failed(error, 'The passkey could not be removed.'),
  });

  if (!list.data) return null;
  return (
    <Card title={<h2 className="card-title">Passkeys</h2>}>
      {list.data.available ? (
        <>
          <Typography.Paragraph className="account-data__text">
            Sign in with your fingerprint, face or device PIN instead of your password. A passkey stays on your
            device; Joy keeps only its public key.
          </Typography.Paragraph>
          {list.data.passkeys.length > 0 && (
            // Keyed by id: the row of a removed passkey leaves the page, and Confirm then puts the focus on this list
            // (or, when it was the last one, on the card) instead of letting it fall to the page.
            <ul className="account-passkeys" aria-label="Your passkeys">
              {list.data.passkeys.map((p) => {
                // Named by when it was added, to the minute: a number would change when another is removed.
                const name = `Passkey added on ${formatDateTime(p.createdAt, { timeZone: zone })}`;
                return (
                  <li key={p.id} className="account-passkeys__item">
                    <span>
                      <KeyOutlined aria-hidden="true" /> {name}
                    </span>
                    <Confirm
                      title={`Remove ${name}?`}
                      description="You will no longer be able to sign in with it. Your password still works."
                      okText="Remove passkey"
                      cancelText="Keep it"
                      okButtonProps={{ danger: true, loading: remove.isPending && remove.variables === p.id }}
                      onConfirm={() => remove.mutateAsync(p.id).catch(() => undefined)}
                    >
                      <Button type="text" danger icon={<DeleteOutlined aria-hidden="true" />} disabled={remove.isPending} aria-label={`Remove ${name}`}>
                        Remove
                      </Button>
                    </Confirm>
                  </li>
                );
              })}
            </ul>
          )}
          <div className="account-data__actions">
            <Button icon={<KeyOutlined aria-hidden="true" />} onClick={() => add.mutate()} loading={add.isPending}>
              Add a passkey
            </Button>
          </div>
        </>
      ) : (
        <Typography.Paragraph className="account-data__text">
          Passkeys are for accounts with a password on this install's own sign-in; yours signs in another way.
        </Typography.Paragraph>
      )}
    </Card>
  );
}
