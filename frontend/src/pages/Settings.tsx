import { Card, Col, Row, Typography } from 'antd';
import '../account/account.css';
import '../settings/settings.css';
import { PageHeader } from '../components/PageHeader';
import { PageLoading } from '../components/PageLoading';
import { useSettings } from '../settings/api';
import { CareSettingCard } from '../settings/CareSettingCard';
import { DeviceRemindersCard } from '../settings/DeviceRemindersCard';
import { SettingsForm } from '../settings/SettingsForm';

/** /settings: name, time zone, daily reminder (and this device's notifications), care actions. */
export default function Settings() {
  const settings = useSettings();
  return (
    <div className="settings-page">
      <PageHeader title="Settings" subtitle="Your name, your time zone and your daily reminder." />
      {settings.isLoading ? (
        <PageLoading />
      ) : settings.isError || !settings.data ? (
        <Card>
          <Typography.Text type="danger">Your settings could not be loaded. Please reload the page.</Typography.Text>
        </Card>
      ) : (
        <Row gutter={[24, 24]}>
          <Col xs={24} lg={14}>
            <SettingsForm settings={settings.data} />
          </Col>
          <Col xs={24} lg={10}>
            <div className="stack">
              <DeviceRemindersCard reminderSet={settings.data.reminderTime !== null} />
              <CareSettingCard />
            </div>
          </Col>
        </Row>
      )}
    </div>
  );
}
