const SENTENCES = [
  'Hi, this is Maria Gonzalez from the billing team in Denver.',
  'Please call me back at (303) 555-0147 or write to maria.gonzalez@example.com.',
  'The refund for order 88231 was issued to the card ending 4242 on March 3rd.',
  'Our office at 1600 Pennsylvania Avenue will be closed on Friday.',
  'Customers can reach support through the help center any time of day.',
  'The IBAN on file is DE89 3704 0044 0532 0130 00 and the server IP is 192.168.10.23.',
  'We reviewed the logs and found no further issues with the account.',
];

/** About 2 KB of support-chat English with a realistic share of personal data. */
export function text2kb(seed = 0): string {
  let out = '';
  for (let i = seed; out.length < 2048; i++) out += SENTENCES[i % SENTENCES.length] + ' ';
  return out.slice(0, 2048);
}

