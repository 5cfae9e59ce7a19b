export { buildPrivacy, privacyTraceExtension, privacyModule, type Privacy, type PrivacyPorts } from './module.ts';
export { REDACTION_FAILED, type Detector, type Redactor, type RedactionCounts } from './redaction.ts';
export { privacySettingsBody, privacySettingsResponse, PRIVACY_MODES } from './schemas.ts';
