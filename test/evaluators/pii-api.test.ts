import { describe, expect, it } from 'vitest';
import { ENTITY_TYPES } from '../../src/modules/evaluators/pii/index.ts';
import { appDatabaseKinds, useProjectApp, type ProjectApp } from '../support/harness.ts';

/** Issue 14's examples, through HTTP: what pii/pii_detection reports for each. */
describe.each(appDatabaseKinds)('pii/pii_detection over HTTP (%s)', (kind) => {
  let app: ProjectApp;
  useProjectApp(kind, (started) => (app = started));

  async function findings(input: string, settings: unknown = {}): Promise<Array<[string, string]>> {
    const res = await app.t.request('POST', '/api/evaluations/pii/pii_detection/evaluate', {
      authToken: app.key,
      body: { data: { input }, settings },
    });
    expect(res.status).toBe(200);
    expect(res.body[0].status).toBe('processed');
    return res.body[0].raw_response.findings.map((f: { entity_type: string; text: string }) => [f.entity_type, f.text]);
  }
  const all = { entities: Object.fromEntries(ENTITY_TYPES.map((t) => [t.toLowerCase(), true])) };
  const with_ = (...keys: string[]) => ({ entities: Object.fromEntries(keys.map((k) => [k, true])) });

  describe('phone numbers written unmistakably as phone numbers count without a context word', () => {
    it.each([
      ['+1-984-182-0190', 'Our new line: +1-984-182-0190', '+1-984-182-0190'],
      ['+46 (0)8 928 571 38', 'Stockholm office +46 (0)8 928 571 38', '+46 (0)8 928 571 38'],
      ['780-999-2181', "They're not answering at 780-999-2181", '780-999-2181'],
      ['+1 415 555 2509', 'Ask for Dana at +1 415 555 2509 tomorrow', '+1 415 555 2509'],
    ])('%s, at the default threshold', async (_name, input, number) => {
      expect(await findings(input)).toEqual([['PHONE_NUMBER', number]]);
    });

    it('a bare digit run still needs a context word', async () => {
      expect(await findings('Order 4155550132 shipped')).toEqual([]);
      expect(await findings('Call me on 4155550132')).toEqual([['PHONE_NUMBER', '4155550132']]);
    });

    it('a number valid for a country the text names counts too', async () => {
      // 012 34 56 78 is valid in Belgium (and Austria, Italy, ...), in no default region.
      expect(await findings('Our desk in Belgium: 012 34 56 78')).toEqual([['LOCATION', 'Belgium'], ['PHONE_NUMBER', '012 34 56 78']].filter(([t]) => t === 'PHONE_NUMBER'));
      expect(await findings('Our desk in Antwerp: 012 34 56 78')).toEqual([]);
    });
  });

  describe('overlapping recognizers: the most specific validated explanation wins', () => {
    it('+1 415 555 2509 with every entity enabled is a phone number, not an Italian VAT code or a Turkish number', async () => {
      expect(await findings('Ask at +1 415 555 2509 tomorrow', all)).toEqual([['PHONE_NUMBER', '+1 415 555 2509']]);
    });

    it('a +1 number is not Turkish even when only Turkish numbers are asked for', async () => {
      const turkishOnly = { entities: { phone_number: false, tr_phone_number: true } };
      expect(await findings('Ask for Dana at +1 415 555 2509 tomorrow', turkishOnly)).toEqual([]);
      expect(await findings('Beni +90 532 123 45 67 numarasından ara', turkishOnly)).toEqual([
        ['TR_PHONE_NUMBER', '+90 532 123 45 67'],
      ]);
    });

    it('a valid phone number of its own region is not a VAT code', async () => {
      expect(await findings('Reach the desk on +39 06 6982 1234', all)).toEqual([['PHONE_NUMBER', '+39 06 6982 1234']]);
    });

    it('a card number of a real issuer is not a phone or bank number', async () => {
      expect(await findings('Card number 630427373398 was declined', all)).toEqual([['CREDIT_CARD', '630427373398']]);
    });
  });

  describe('cards by issuer ranges and lengths, with Luhn', () => {
    it.each([
      ['19-digit Visa', '4131034282458809939'],
      ['15-digit JCB starting 2131', '213175197796454'],
      ['15-digit JCB starting 1800', '180001894718246'],
      ['12-digit Maestro', '630427373398'],
      ['12-digit Maestro (5018)', '501864667909'],
      ['Mastercard 2221', '2221000000000009'],
      ['Mastercard 2720', '2720000000000005'],
    ])('%s: %s', async (_name, number) => {
      expect(await findings(`Please block ${number} today`)).toEqual([['CREDIT_CARD', number]]);
    });

    it('not a card: Luhn fails, or the issuer range has no cards of that length', async () => {
      expect(await findings('Please block 4131034282458809930 today')).toEqual([]);
      expect(await findings('Please block 2721000000000004 today')).toEqual([]);
      // Luhn-valid, 12 digits, but Visa has no 12-digit cards.
      expect(await findings('Please block 400000000006 today')).toEqual([]);
    });
  });

  describe('US SSN: numbers the SSA never issues', () => {
    it.each([
      ['area 900-999', '900-10-4645'],
      ['area 999', '999-10-4645'],
      ['area 000', '000-10-4645'],
      ['area 666', '666-10-4645'],
      ['group 00', '536-00-4645'],
      ['serial 0000', '536-10-0000'],
    ])('%s: %s is no SSN', async (_name, ssn) => {
      expect(await findings(`My SSN is ${ssn}`, with_('us_ssn'))).toEqual([]);
    });

    it('an issued number still is', async () => {
      expect(await findings('My SSN is 536-10-4645', with_('us_ssn'))).toEqual([['US_SSN', '536-10-4645']]);
    });
  });

  describe('people and places', () => {
    const places = with_('location');
    it.each([
      ['The address of Persint is 6750 Koskikatu 25 Apt. 864', '6750 Koskikatu 25 Apt. 864'],
      ['Send it to 1737 Cheriton Dr, please', '1737 Cheriton Dr'],
      ['She lives at Via Roma 131, Torino', 'Via Roma 131, Torino'],
      ['The parcel went to ul. Miła 53 in the end', 'ul. Miła 53'],
      ['Deliver to Hammarvägen 15 before noon', 'Hammarvägen 15'],
      ['My address: 26 rue des Lilas, Lyon', '26 rue des Lilas, Lyon'],
      ['Our offices are located at PSC 2721, Box 8637\nAPO AA 06259.', 'PSC 2721, Box 8637\nAPO AA 06259'],
    ])('a street address: %j', async (input, address) => {
      expect(await findings(input, places)).toContainEqual(['LOCATION', address]);
    });

    it('places from the gazetteers: countries, regions, towns', async () => {
      expect(await findings('We moved from Uruguay to Bavaria last year', places)).toEqual([
        ['LOCATION', 'Uruguay'],
        ['LOCATION', 'Bavaria'],
      ]);
      expect(await findings('She grew up in Lappeenranta', places)).toEqual([['LOCATION', 'Lappeenranta']]);
    });

    it.each([
      ['Wisława Szczepańska said the parcel was late.', 'Wisława Szczepańska'],
      ['Name: Sieda Batukayev', 'Sieda Batukayev'],
      ['I asked Jarmila Fiedlerová about the invoice.', 'Jarmila Fiedlerová'],
      ['Please change it to Dr. Cettina Fanucci.', 'Cettina Fanucci'],
    ])('a person: %j', async (input, name) => {
      expect(await findings(input, with_('person'))).toContainEqual(['PERSON', name]);
    });

    it('not people: firms, titles and words', async () => {
      expect(await findings('He spent a year at Jones, Mitchell and Williams.', with_('person'))).toEqual([]);
      expect(await findings('Russell Investments is a design agency.', with_('person'))).toEqual([]);
      expect(await findings('Can I request you to block it?', with_('person'))).toEqual([]);
    });
  });

  it('the defaults stay langevals\': no names or places unless asked for', async () => {
    expect(await findings('Maria Garcia lives at Via Roma 131')).toEqual([]);
  });
});
