import { randomBytes, randomInt } from 'node:crypto';

/** A card number of the given prefix with a valid Luhn check digit, the rest random. */
function luhnCard(prefix: string, length = 16): string {
  const digits = [...prefix].map(Number);
  while (digits.length < length - 1) digits.push(randomInt(10));
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits[digits.length - 1 - i];
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return digits.join('') + String((10 - (sum % 10)) % 10);
}

/**
 * Personal data nobody else sends: a Luhn-valid card number, an e-mail address and a phone
 * number, each unique to one test run, so finding one anywhere means it leaked.
 */
export function markers() {
  const tag = randomBytes(4).toString('hex');
  const n = String(randomInt(1000, 10000));
  const card = luhnCard('4539');
  const email = `privacy.marker.${tag}@example.com`;
  const phone = `+1 (415) 867-${n}`;
  return {
    card,
    email,
    phone,
    /** The phone's digits as written in other ways (a search for any of them must find nothing). */
    needles: [card, email, phone, `415867${n}`, `867-${n}`, tag],
    /** Not personal data, stored as sent: the control that shows a search would find the markers. */
    control: `order-ref-${randomBytes(6).toString('hex')}`,
    get sentence() {
      return `Please charge card ${card} and send the receipt to ${email} or call ${phone} (${this.control}).`;
    },
  };
}
