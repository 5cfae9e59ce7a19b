export { buildPrivacy, privacyTraceExtension, privacyModule, type Privacy, type PrivacyPorts } from './module.ts';
export { REDACTION_FAILED, type Redactor, type RedactionCounts } from './redaction.ts';
export type { Detector } from './detect.ts';
export { privacySettingsBody, privacySettingsResponse, PRIVACY_MODES } from './schemas.ts';
