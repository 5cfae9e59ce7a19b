export { buildPrivacy, registerPrivacy, type Privacy, type PrivacyPorts } from './module.ts';
export { portableRedactor, REDACTION_FAILED, type Detector, type MeterEvent, type PortableRedaction, type Redactor, type RedactionCounts } from './redaction.ts';
export { privacySettingsBody, privacySettingsResponse, PRIVACY_MODES } from './schemas.ts';
