import { Card, Switch, Typography } from 'antd';
import { useChangeSettings, useSettings } from './api';

/**
 * "Care actions": whether the members of your groups may send you care actions. Off, nobody can send you one
 * and care suggestions never name you. On the Settings page, and on the Account page where people looked for it first.
 */
export function CareSettingCard() {
  const settings = useSettings();
  const change = useChangeSettings();
  const accepting = change.isPending ? (change.variables.acceptCareActions ?? true) : (settings.data?.acceptCareActions ?? true);

  return (
    <Card title={<h2 className="card-title">Care Actions</h2>}>
      {settings.isError ? (
        <Typography.Text type="danger">Your settings could not be loaded. Please reload the page.</Typography.Text>
      ) : (
        <label className="account-setting" htmlFor="accept-care-actions">
          <Switch
            id="accept-care-actions"
            checked={accepting}
            // Not `loading` while saving: it disables the switch, and the browser drops the focus of a disabled
            // one (the new state went unsaid). A press while saving is ignored, so requests never cross.
            loading={settings.isLoading}
            disabled={settings.isLoading}
            aria-busy={change.isPending}
            onChange={(checked) => {
              if (!change.isPending) change.mutate({ acceptCareActions: checked });
            }}
          />
          <span>
            <span className="account-setting__label">Accept care actions from my groups</span>
            <Typography.Paragraph type="secondary" className="account-setting__help">
              {accepting
                ? 'Members of your groups with Joy Premium can send you flowers, cards and gifts.'
                : 'Nobody can send you care actions, and care suggestions do not name you.'}
            </Typography.Paragraph>
          </span>
        </label>
      )}
    </Card>
  );
}
