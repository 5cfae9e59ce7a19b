import { z } from 'zod';

/** A date a request may send: epoch milliseconds or ISO 8601 with an offset (the web app type-checks it too). */
export const dateInput = z.union([z.number().int().nonnegative(), z.iso.datetime({ offset: true })]);
