/**
 * Every entity type the PII evaluator knows, with its settings key and default.
 *
 * The first block is langevals' `PresidioEntities` (same keys, same defaults), so a
 * langevals settings object means the same thing here. The second block is the rest of
 * Presidio's recognizers that this evaluator implements; they are off unless asked for,
 * like Presidio's country-specific recognizers, which are not in its default registry.
 */
export const ENTITY_DEFAULTS = {
  // langevals (evaluators/presidio/langevals_presidio/pii_detection.py)
  CREDIT_CARD: true,
  CRYPTO: true,
  EMAIL_ADDRESS: true,
  IBAN_CODE: true,
  IP_ADDRESS: true,
  LOCATION: false,
  PERSON: false,
  PHONE_NUMBER: true,
  MEDICAL_LICENSE: true,
  US_BANK_NUMBER: false,
  US_DRIVER_LICENSE: false,
  US_ITIN: false,
  US_PASSPORT: false,
  US_SSN: false,
  UK_NHS: false,
  SG_NRIC_FIN: false,
  SG_UEN: false,
  AU_ABN: false,
  AU_ACN: false,
  AU_TFN: false,
  AU_MEDICARE: false,
  IN_PAN: false,
  IN_AADHAAR: false,
  IN_VEHICLE_REGISTRATION: false,
  IN_VOTER: false,
  IN_PASSPORT: false,
  FI_PERSONAL_IDENTITY_CODE: false,
  // further Presidio recognizers
  NRP: false,
  DATE_TIME: false,
  URL: false,
  MAC_ADDRESS: false,
  ABA_ROUTING_NUMBER: false,
  US_MBI: false,
  US_NPI: false,
  UK_NINO: false,
  UK_PASSPORT: false,
  UK_DRIVING_LICENCE: false,
  UK_POSTCODE: false,
  UK_VEHICLE_REGISTRATION: false,
  CA_SIN: false,
  ES_NIF: false,
  ES_NIE: false,
  ES_PASSPORT: false,
  IT_FISCAL_CODE: false,
  IT_DRIVER_LICENSE: false,
  IT_VAT_CODE: false,
  IT_PASSPORT: false,
  IT_IDENTITY_CARD: false,
  PL_PESEL: false,
  SE_PERSONNUMMER: false,
  SE_ORGANISATIONSNUMMER: false,
  DE_TAX_ID: false,
  DE_TAX_NUMBER: false,
  DE_VAT_ID: false,
  DE_PASSPORT: false,
  DE_ID_CARD: false,
  DE_HEALTH_INSURANCE: false,
  DE_SOCIAL_SECURITY: false,
  DE_LANR: false,
  DE_BSNR: false,
  DE_FUEHRERSCHEIN: false,
  DE_HANDELSREGISTER: false,
  DE_KFZ: false,
  DE_PLZ: false,
  IN_GSTIN: false,
  KR_RRN: false,
  KR_FRN: false,
  KR_BRN: false,
  KR_PASSPORT: false,
  KR_DRIVER_LICENSE: false,
  TH_TNIN: false,
  TR_NATIONAL_ID: false,
  TR_LICENSE_PLATE: false,
  TR_PHONE_NUMBER: false,
  NG_NIN: false,
  NG_VEHICLE_REGISTRATION: false,
  PH_TIN: false,
  PH_MOBILE_NUMBER: false,
  ZA_ID_NUMBER: false,
} as const;

export type EntityType = keyof typeof ENTITY_DEFAULTS;

export const ENTITY_TYPES = Object.keys(ENTITY_DEFAULTS) as EntityType[];

/** Settings use langevals' lowercase keys: `credit_card`, `us_ssn`, ... */
export type EntityKey = Lowercase<EntityType>;

export function entityKey(type: EntityType): EntityKey {
  return type.toLowerCase() as EntityKey;
}
